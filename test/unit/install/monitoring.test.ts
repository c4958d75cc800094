// The monitoring component (manifests/components/hook-monitoring) as written:
// each alert has a severity, a summary and a runbook_url at a heading of
// docs/troubleshooting.md that exists; the pool's refusal reasons it names are
// the code's, in one group; the dashboard's invariants (uid, schema version, a
// datasource variable every query uses); docs/operations/metrics.md names every
// metric the hook exports, every alert and every panel. promtool and
// Prometheus's PromQL parser read the same files in test/install/alerts.test.ts.
import { expect } from "chai";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import type { RefusalReason } from "../../../src/server/answer.js";
import { createMetrics } from "../../../src/server/metrics.js";
import { anchorsOf } from "../../docs/anchors.js";
import {
  alertRules,
  dashboard,
  dashboardExpressions,
  MONITORING_DIR,
  ruleGroups,
} from "../../install/monitoring.js";
import { root } from "../../support/tools.js";

/** Every refusal reason of the pool, checked both ways against its type by the compiler. */
const REFUSAL_REASONS = ["queue", "repeat", "share"] as const satisfies readonly RefusalReason[];
type Unlisted = Exclude<RefusalReason, (typeof REFUSAL_REASONS)[number]>;
const ALL_LISTED: Unlisted extends never ? true : never = true;

const RUNBOOKS = "https://github.com/llsd-hook/llsd-hook/blob/main/docs/troubleshooting.md#";

/** Every family the hook can export, all options on, as Prometheus names its series. */
async function exportedFamilies(): Promise<string[]> {
  const metrics = createMetrics({ processMetrics: true, version: "0", memoryLimitBytes: 1 });
  return (await metrics.registry.getMetricsAsJSON()).map((m) => m.name);
}

describe("the monitoring component", () => {
  describe("alerts", () => {
    const rules = alertRules();

    it("has the alerts the docs list, each once", () => {
      expect(rules.map((r) => r.alert)).to.deep.equal([
        "LlamaStackDistributionStalled",
        "LlamaStackDistributionNotReady",
        "LlsdHookDown",
        "LlsdHookNotCalled",
        "LlsdHookErrors",
        "LlsdHookParentSeriesCapped",
        "LlsdHookWorkerLimits",
        "LlsdHookTenantHeldBack",
      ]);
    });

    for (const rule of rules)
      it(`${rule.alert}: a severity, a summary, a description and a runbook at a heading of docs/troubleshooting.md`, () => {
        expect(["critical", "warning", "info"]).to.include(rule.labels["severity"]);
        expect(rule.annotations["summary"]).to.be.a("string").and.not.equal("");
        expect(rule.annotations["description"]).to.be.a("string").and.not.equal("");
        const url = rule.annotations["runbook_url"] ?? "";
        expect(url.startsWith(RUNBOOKS), url).to.equal(true);
        expect([...anchorsOf("docs/troubleshooting.md")]).to.include(url.slice(RUNBOOKS.length));
      });

    it("names the pool's refusal reasons only in the pool's group, and only reasons the pool has", () => {
      expect(ALL_LISTED).to.equal(true);
      const named = (exprs: string[]) =>
        exprs.flatMap((e) => [...e.matchAll(/\bwhy\s*=~?\s*"([^"]*)"/g)].map((m) => m[1] ?? ""));
      for (const group of ruleGroups()) {
        const why = named(group.rules.map((r) => r.expr));
        if (group.name === "llsd-hook.pool") {
          expect(why).to.not.deep.equal([]);
          for (const w of why) expect(REFUSAL_REASONS).to.include(w);
        } else expect(why, group.name).to.deep.equal([]);
      }
    });
  });

  describe("the dashboard", () => {
    const board = dashboard();

    it("has a fixed uid, schema version 39 and a Prometheus datasource variable", () => {
      expect(board.uid).to.equal("llsd-hook");
      expect(board.schemaVersion).to.equal(39);
      const variables = board.templating.list.filter((v) => v.type === "datasource");
      expect(variables.map((v) => [v.name, v.query])).to.deep.equal([["datasource", "prometheus"]]);
    });

    it("every panel and every query read the datasource variable; panel ids are unique", () => {
      const uses = (d: { type?: string; uid?: string } | undefined) => [d?.type, d?.uid];
      for (const p of board.panels) {
        expect(uses(p.datasource), p.title).to.deep.equal(["prometheus", "${datasource}"]);
        expect(p.targets, p.title).to.not.deep.equal([]);
        for (const t of p.targets)
          expect(uses(t.datasource), `${p.title} ${t.refId}`).to.deep.equal([
            "prometheus",
            "${datasource}",
          ]);
      }
      const ids = board.panels.map((p) => p.id);
      expect(new Set(ids).size).to.equal(ids.length);
    });

    it("leaves no Grafana variable in a query once Grafana has put its values in", () => {
      for (const [where, expr] of Object.entries(dashboardExpressions(board)))
        expect(expr, where).to.not.include("$");
    });

    it("is the ConfigMap the component makes, with the label Grafana's sidecar looks for", () => {
      const k = parse(readFileSync(join(MONITORING_DIR, "kustomization.yaml"), "utf8")) as {
        configMapGenerator: {
          files: string[];
          options: { disableNameSuffixHash: boolean; labels: Record<string, string> };
        }[];
      };
      expect(k.configMapGenerator).to.have.length(1);
      const [gen] = k.configMapGenerator;
      expect(gen?.files).to.deep.equal(["llsd-hook-dashboard.json"]);
      expect(gen?.options.labels["grafana_dashboard"]).to.equal("1");
      expect(gen?.options.disableNameSuffixHash).to.equal(true);
    });
  });

  it("the hook's ServiceMonitor honours the hook's labels: a parent's namespace stays namespace", () => {
    const sm = parse(
      readFileSync(
        join(root, "manifests", "components", "hook-servicemonitor", "servicemonitor.yaml"),
        "utf8",
      ),
    ) as { spec: { endpoints: { honorLabels?: boolean }[] } };
    expect(sm.spec.endpoints.map((e) => e.honorLabels)).to.deep.equal([true]);
  });

  describe("docs/operations/metrics.md", () => {
    const page = readFileSync(join(root, "docs", "operations", "metrics.md"), "utf8");
    const quoted = (name: string) => page.includes(`\`${name}\``);

    it("names every metric the hook exports", async () => {
      const families = (await exportedFamilies()).filter(
        (n) => !/^llsd_hook_(process|nodejs)_/.test(n),
      );
      expect(families.filter((f) => !quoted(f))).to.deep.equal([]);
    });

    it("names every alert and every panel", () => {
      expect(alertRules().filter((r) => !quoted(r.alert))).to.deep.equal([]);
      expect(dashboard().panels.filter((p) => !page.includes(`**${p.title}**`))).to.deep.equal([]);
    });
  });
});
