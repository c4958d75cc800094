// The monitoring component (manifests/components/hook-monitoring) read by
// Prometheus's own tools, built from the Go module (test/prometheus/build.sh):
// `promtool check rules` on the PrometheusRule's groups, `promtool test rules`
// with input series that make each alert fire and stay quiet (two replicas'
// views of one resource among them), and Prometheus's PromQL parser over every
// query of the dashboard and every alert: each parses and names only metrics
// the hook exports. How kustomize renders the component: test/install/hook-metrics.test.ts.
import { expect } from "chai";
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import { createMetrics } from "../../src/server/metrics.js";
import {
  alertRules,
  dashboardExpressions,
  prometheusTool,
  writeRuleFile,
  type AlertRule,
} from "./monitoring.js";

/** One input series of a promtool test: its selector and one value a minute ("_": none). */
type Series = [selector: string, values: string];

interface Case {
  what: string;
  series: Series[];
  /** Minutes after the start at which the alert is evaluated. */
  at: number;
  /** The labels of each alert firing then, beside alertname and the rule's own. */
  firing: Record<string, string>[];
  /** What `{{ $value | humanizePercentage }}` prints, for the alerts that say it. */
  percentage?: string;
}

const MINUTES = 40;

/**
 * The values of a per-resource series of one replica: absent before minute
 * `from`, then the time of its last sync (Unix seconds from the test's start),
 * a sync every `every` minutes until minute `until`, frozen after it (the hook
 * exports the last view until expiry).
 */
function synced(from: number, every: number, until = MINUTES): string {
  return Array.from({ length: MINUTES + 1 }, (_, m) => {
    if (m < from) return "_";
    const t = Math.min(m, until);
    return String((from + Math.floor((t - from) / every) * every) * 60);
  }).join(" ");
}

/** A counter that grows by `perMinute` each minute. */
const counter = (perMinute: number) => `0+${perMinute}x${MINUTES}`;

const phase = (replica: string, p: string, name = "llama") =>
  `llsd_hook_parent_last_sync_timestamp_seconds{namespace="team-a",name="${name}",phase="${p}",instance="${replica}"}`;
const held = (replica: string, condition: string, reason: string) =>
  `llsd_hook_parent_condition_last_sync_timestamp_seconds{namespace="team-a",name="llama",condition="${condition}",reason="${reason}",instance="${replica}"}`;
const stalled = (replica: string): Series[] => [
  [phase(replica, "Failed"), ""],
  [held(replica, "Stalled", "UnknownProviderType"), ""],
];
/** The series of `views` with the same values each. */
const all = (views: Series[], values: string): Series[] => views.map(([s]) => [s, values]);
const llama = { namespace: "team-a", name: "llama" };

/** For each alert, input series that make it fire and that keep it quiet. */
const CASES: Record<string, { fires: Case[]; quiet: Case[] }> = {
  LlamaStackDistributionStalled: {
    fires: [
      {
        what: "Stalled at every resync for 16 minutes",
        series: all(stalled("a"), synced(0, 5)),
        at: 16,
        firing: [llama],
      },
      {
        what: "two replicas: the newer view is Stalled, the other replica's older one Ready",
        series: [[phase("b", "Ready"), synced(0, 5, 0)], ...all(stalled("a"), synced(1, 5))],
        at: 17,
        firing: [llama],
      },
    ],
    quiet: [
      {
        what: "Stalled for 14 minutes (pending)",
        series: all(stalled("a"), synced(0, 5)),
        at: 14,
        firing: [],
      },
      {
        what: "two replicas: one still exports an older Stalled view, the other's newer one is Ready",
        series: [...all(stalled("a"), synced(0, 5, 0)), [phase("b", "Ready"), synced(5, 5)]],
        at: 20,
        firing: [],
      },
      {
        what: "two replicas that disagree (one upgraded): the newest view flips between Stalled and Ready",
        series: [...all(stalled("a"), synced(0, 5)), [phase("b", "Ready"), synced(2, 5)]],
        at: 20,
        firing: [],
      },
      {
        what: "deleted after 5 minutes: its last view is still exported, but older than 600 s",
        series: all(stalled("a"), synced(0, 5, 5)),
        at: 20,
        firing: [],
      },
    ],
  },
  LlamaStackDistributionNotReady: {
    fires: [
      {
        what: "Initializing at every resync for 16 minutes",
        series: [[phase("a", "Initializing"), synced(0, 5)]],
        at: 16,
        firing: [llama],
      },
    ],
    quiet: [
      {
        what: "Ready, and a Failed resource (the Stalled alert's)",
        series: [
          [phase("a", "Ready"), synced(0, 5)],
          [phase("a", "Failed", "other"), synced(0, 5)],
        ],
        at: 20,
        firing: [],
      },
      {
        what: "two replicas: the older view Pending, the newer Ready",
        series: [
          [phase("a", "Pending"), synced(0, 5, 0)],
          [phase("b", "Ready"), synced(5, 5)],
        ],
        at: 20,
        firing: [],
      },
    ],
  },
  LlsdHookDown: {
    fires: [
      {
        what: "neither replica answers the scrape for 5 minutes",
        series: [
          ['up{job="llsd-hook",instance="a"}', `0x${MINUTES}`],
          ['up{job="llsd-hook",instance="b"}', `0x${MINUTES}`],
        ],
        at: 6,
        firing: [{}],
      },
      {
        what: "Prometheus has no target for the hook at all",
        series: [['up{job="other"}', `1x${MINUTES}`]],
        at: 6,
        firing: [{}],
      },
    ],
    quiet: [
      {
        what: "one replica of two answers",
        series: [
          ['up{job="llsd-hook",instance="a"}', `0x${MINUTES}`],
          ['up{job="llsd-hook",instance="b"}', `1x${MINUTES}`],
        ],
        at: 10,
        firing: [],
      },
    ],
  },
  LlsdHookNotCalled: {
    fires: [
      {
        what: "no sync after the first, for 17 minutes",
        series: [[phase("a", "Ready"), synced(0, 5, 0)]],
        at: 17,
        firing: [{}],
      },
    ],
    quiet: [
      {
        what: "every resource synced every 5 minutes",
        series: [
          [phase("a", "Ready"), synced(0, 5)],
          [phase("b", "Ready", "other"), synced(2, 5)],
        ],
        at: 30,
        firing: [],
      },
      {
        what: "one resource deleted, another still synced",
        series: [
          [phase("a", "Ready"), synced(0, 5, 5)],
          [phase("a", "Ready", "other"), synced(0, 5)],
        ],
        at: 30,
        firing: [],
      },
      { what: "no resource synced at all", series: [], at: 30, firing: [] },
    ],
  },
  LlsdHookErrors: {
    fires: [
      {
        what: "half the syncs answered 500 for 15 minutes",
        series: [
          ['llsd_hook_sync_outcomes_total{outcome="error",reason="none"}', counter(5)],
          ['llsd_hook_sync_outcomes_total{outcome="ready",reason="Ready"}', counter(5)],
        ],
        at: 16,
        firing: [{}],
        percentage: "50%",
      },
    ],
    quiet: [
      {
        what: "1% answered 503",
        series: [
          ['llsd_hook_sync_outcomes_total{outcome="unavailable",reason="none"}', counter(1)],
          ['llsd_hook_sync_outcomes_total{outcome="ready",reason="Ready"}', counter(99)],
        ],
        at: 20,
        firing: [],
      },
    ],
  },
  LlsdHookParentSeriesCapped: {
    fires: [
      {
        what: "a resource past the cap synced",
        series: [["llsd_hook_parents_not_exported_total", counter(1)]],
        at: 5,
        firing: [{}],
      },
    ],
    quiet: [
      {
        what: "none past the cap",
        series: [["llsd_hook_parents_not_exported_total", `0x${MINUTES}`]],
        at: 20,
        firing: [],
      },
    ],
  },
  LlsdHookWorkerLimits: {
    fires: [
      {
        what: "a sync stopped at the deadline every minute",
        series: [['llsd_hook_worker_timeouts_total{route="sync"}', counter(1)]],
        at: 10,
        firing: [{ route: "sync" }],
      },
      {
        what: "out of heap, and its repeats refused, on /customize",
        series: [
          ['llsd_hook_worker_crashes_total{route="customize"}', "0 1 2 3 3"],
          ['llsd_hook_worker_refusals_total{route="customize",why="repeat"}', counter(2)],
        ],
        at: 10,
        firing: [{ route: "customize" }],
      },
    ],
    quiet: [
      {
        what: "one stopped request, and refusals of other kinds",
        series: [
          ['llsd_hook_worker_timeouts_total{route="sync"}', `0 1x${MINUTES}`],
          ['llsd_hook_worker_refusals_total{route="sync",why="queue"}', counter(5)],
          ['llsd_hook_worker_refusals_total{route="sync",why="share"}', counter(5)],
        ],
        at: 20,
        firing: [],
      },
    ],
  },
  LlsdHookTenantHeldBack: {
    fires: [
      {
        what: "a namespace held back to its share for 20 minutes",
        series: [['llsd_hook_worker_refusals_total{route="sync",why="share"}', counter(1)]],
        at: 20,
        firing: [{}],
      },
    ],
    quiet: [
      {
        what: "refused for want of a free worker, not for a share",
        series: [['llsd_hook_worker_refusals_total{route="sync",why="queue"}', counter(1)]],
        at: 20,
        firing: [],
      },
    ],
  },
};

/** The rule's annotations as Prometheus fills them in for an alert with `labels`. */
function annotationsOf(rule: AlertRule, labels: Record<string, string>, c: Case) {
  return Object.fromEntries(
    Object.entries(rule.annotations).map(([k, v]) => [
      k,
      v
        .replace(/\{\{ \$labels\.(\w+) \}\}/g, (_, l: string) => labels[l] ?? "")
        .replace(/\{\{ \$value \| humanizePercentage \}\}/g, c.percentage ?? "(unset)"),
    ]),
  );
}

/**
 * The dashboard's fleet count over two replicas, by Prometheus's engine: each
 * resource once, by its newest view.
 */
function fleetCountTest(): unknown {
  const expr = dashboardExpressions()["Resources by phase A"];
  return {
    name: "the dashboard's Resources by phase: each resource once, by its newest view",
    interval: "1m",
    input_series: [
      // llama: Initializing on a at 0, Ready on b from 5; other: Failed on b, Ready on a later.
      { series: phase("a", "Initializing"), values: synced(0, 5, 0) },
      { series: phase("b", "Ready"), values: synced(5, 5) },
      { series: phase("b", "Failed", "other"), values: synced(0, 5, 0) },
      { series: phase("a", "Ready", "other"), values: synced(6, 5) },
      // deleted long ago: its last view is older than 600 s.
      { series: phase("a", "Pending", "gone"), values: synced(0, 5, 0) },
    ],
    promql_expr_test: [
      {
        expr,
        eval_time: "3m",
        exp_samples: [
          { labels: '{phase="Initializing"}', value: 1 },
          { labels: '{phase="Failed"}', value: 1 },
          { labels: '{phase="Pending"}', value: 1 },
        ],
      },
      { expr, eval_time: "12m", exp_samples: [{ labels: '{phase="Ready"}', value: 2 }] },
    ],
  };
}

/** A promtool test file of every case, beside the rule file it reads. */
function promtoolTests(rules: AlertRule[]): unknown {
  const tests = rules.flatMap((rule) => {
    const cases = CASES[rule.alert];
    if (cases === undefined) return [];
    return [...cases.fires, ...cases.quiet].map((c) => ({
      name: `${rule.alert}: ${c.what}`,
      interval: "1m",
      input_series: c.series.map(([series, values]) => ({ series, values })),
      alert_rule_test: [
        {
          eval_time: `${c.at}m`,
          alertname: rule.alert,
          exp_alerts: c.firing.map((labels) => {
            const all = { ...rule.labels, ...labels };
            return { exp_labels: all, exp_annotations: annotationsOf(rule, all, c) };
          }),
        },
      ],
    }));
  });
  return {
    rule_files: ["rules.yaml"],
    evaluation_interval: "1m",
    tests: [...tests, fleetCountTest()],
  };
}

function promtool(args: string[], cwd: string): { code: number | null; out: string } {
  const run = spawnSync(prometheusTool("promtool"), args, {
    cwd,
    encoding: "utf8",
    timeout: 120_000,
  });
  return { code: run.status, out: `${run.stdout}${run.stderr}` };
}

/** Every metric name a scrape of the hook can hold, by its families' TYPE lines (histograms' three). */
async function exportedNames(): Promise<Set<string>> {
  const metrics = createMetrics({ processMetrics: true, version: "0", memoryLimitBytes: 1 });
  const text = await metrics.exposition();
  const names = [...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].flatMap(([, name = "", type]) =>
    type === "histogram" ? [`${name}_bucket`, `${name}_sum`, `${name}_count`] : [name],
  );
  return new Set(names);
}

/** Prometheus's PromQL parser over `exprs`: for each, the metrics it names, or its error. */
function parsePromql(exprs: string[]): { metrics?: string[]; error?: string }[] {
  const out = execFileSync(prometheusTool("promql-names"), {
    input: JSON.stringify(exprs),
    encoding: "utf8",
  });
  return JSON.parse(out) as { metrics?: string[]; error?: string }[];
}

describe("the hook's alerts and dashboard, read by Prometheus's own tools", function () {
  this.timeout(180_000);
  let work: string;

  before(() => {
    work = mkdtempSync(join(tmpdir(), "llsd-alerts-"));
    writeRuleFile(work);
  });
  after(() => rmSync(work, { recursive: true, force: true }));

  it("promtool check rules: the PrometheusRule's groups are valid rules", () => {
    const { code, out } = promtool(["check", "rules", "rules.yaml"], work);
    expect(code, out).to.equal(0);
    expect(out).to.include(`SUCCESS: ${alertRules().length} rules found`);
  });

  it("promtool test rules: each alert fires on its input series and stays quiet on the others", () => {
    const rules = alertRules();
    for (const rule of rules) {
      expect(CASES[rule.alert]?.fires, `${rule.alert} fires`).to.not.deep.equal([]);
      expect(CASES[rule.alert]?.quiet, `${rule.alert} stays quiet`).to.not.deep.equal([]);
    }
    writeFileSync(join(work, "tests.yaml"), stringify(promtoolTests(rules)));
    const { code, out } = promtool(["test", "rules", "tests.yaml"], work);
    expect(code, out).to.equal(0);
    expect(out).to.include("SUCCESS");
  });

  it("the promtool tests can fail: a Stalled alert expected where none fires is reported", () => {
    const rules = alertRules();
    const wrong = promtoolTests(rules) as {
      tests: { alert_rule_test: { exp_alerts: unknown[] }[] }[];
    };
    const quiet = wrong.tests.find((t) => t.alert_rule_test[0]?.exp_alerts.length === 0);
    quiet?.alert_rule_test[0]?.exp_alerts.push({ exp_labels: llama });
    writeFileSync(join(work, "wrong.yaml"), stringify(wrong));
    const { code, out } = promtool(["test", "rules", "wrong.yaml"], work);
    expect(code, out).to.equal(1);
    expect(out).to.include("FAILED");
  });

  it("every query of the dashboard and every alert parses, and names only metrics the hook exports", async () => {
    const exported = await exportedNames();
    const dashboard = dashboardExpressions();
    const alerts = Object.fromEntries(alertRules().map((r) => [`alert ${r.alert}`, r.expr]));
    const all = { ...dashboard, ...alerts };
    const results = parsePromql(Object.values(all));
    const named = new Set<string>();
    for (const [i, where] of Object.keys(all).entries()) {
      const r = results[i];
      expect(r?.error, `${where}: ${Object.values(all)[i]}`).to.equal(undefined);
      for (const m of r?.metrics ?? []) {
        named.add(m);
        // `up` is Prometheus's own, for LlsdHookDown.
        if (!(where === "alert LlsdHookDown" && m === "up"))
          expect([...exported], `${where} names ${m}`).to.include(m);
      }
    }
    // The parser did read them: the dashboard names the per-resource series and the pool's.
    expect([...named]).to.include.members([
      "llsd_hook_parent_last_sync_timestamp_seconds",
      "llsd_hook_parent_condition_last_sync_timestamp_seconds",
      "llsd_hook_worker_refusals_total",
      "llsd_hook_memory_limit_bytes",
    ]);
    // And it refuses what Prometheus refuses.
    expect(parsePromql(["sum by (le) (rate(x[5m])"])[0]?.error).to.be.a("string");
  });
});
