// The monitoring component as its tests read it (manifests/components/hook-monitoring):
// the PrometheusRule's groups and alerts, the Grafana dashboard and the PromQL
// of its panels and variables, and Prometheus's own tools (test/prometheus/build.sh,
// from the peers file).
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse, stringify } from "yaml";
import { loadPeers } from "../peers.js";
import { root } from "../support/tools.js";

export const MONITORING_DIR = join(root, "manifests", "components", "hook-monitoring");

export interface AlertRule {
  alert: string;
  expr: string;
  for?: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

export interface RuleGroup {
  name: string;
  rules: AlertRule[];
}

/** The PrometheusRule's groups, as committed. */
export function ruleGroups(): RuleGroup[] {
  const rule = parse(readFileSync(join(MONITORING_DIR, "prometheusrule.yaml"), "utf8")) as {
    spec: { groups: RuleGroup[] };
  };
  return rule.spec.groups;
}

export function alertRules(groups: RuleGroup[] = ruleGroups()): AlertRule[] {
  return groups.flatMap((g) => g.rules);
}

/** Writes `groups` as a Prometheus rule file (what the Operator gives Prometheus) at `dir`/rules.yaml. */
export function writeRuleFile(dir: string, groups: RuleGroup[] = ruleGroups()): string {
  const file = join(dir, "rules.yaml");
  writeFileSync(file, stringify({ groups }));
  return file;
}

interface Target {
  refId: string;
  expr: string;
  datasource?: { type?: string; uid?: string };
}

interface Panel {
  id: number;
  type: string;
  title: string;
  datasource?: { type?: string; uid?: string };
  targets: Target[];
}

interface Variable {
  name: string;
  type: string;
  query?: string | { query: string };
  allValue?: string;
}

export interface Dashboard {
  uid: string;
  title: string;
  schemaVersion: number;
  templating: { list: Variable[] };
  panels: Panel[];
}

export function dashboard(): Dashboard {
  return JSON.parse(
    readFileSync(join(MONITORING_DIR, "llsd-hook-dashboard.json"), "utf8"),
  ) as Dashboard;
}

/** What Grafana puts for a variable before Prometheus sees a query (the rate interval at its 1-minute scrape floor). */
function substitute(expr: string, board: Dashboard): string {
  let out = expr.replaceAll("$__rate_interval", "1m");
  for (const v of board.templating.list)
    if (v.allValue !== undefined) out = out.replaceAll(`$${v.name}`, v.allValue);
  return out;
}

/**
 * Every PromQL expression of the dashboard, as Prometheus receives it: each
 * panel's targets, and the metric of each `label_values(metric, label)` variable.
 */
export function dashboardExpressions(board: Dashboard = dashboard()): Record<string, string> {
  const exprs: Record<string, string> = {};
  for (const p of board.panels)
    for (const t of p.targets) exprs[`${p.title} ${t.refId}`] = substitute(t.expr, board);
  for (const v of board.templating.list) {
    const query = typeof v.query === "string" ? v.query : v.query?.query;
    const m = /^label_values\((.*),\s*[a-z_]+\)$/.exec(query ?? "");
    if (v.type === "query") exprs[`variable ${v.name}`] = m?.[1] ?? `(not label_values: ${query})`;
  }
  return exprs;
}

/** Prometheus's own tools (test/prometheus/build.sh): promtool, prometheus, promql-names. */
export function prometheusTool(name: "promtool" | "prometheus" | "promql-names"): string {
  const dir = loadPeers().prometheusDir;
  const path = dir === undefined ? undefined : join(dir, name);
  if (path === undefined || !existsSync(path))
    throw new Error(`${name} is missing (peers.json prometheusDir: ${dir}): run "npm run peers"`);
  return path;
}
