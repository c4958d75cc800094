// A real Prometheus (test/prometheus/build.sh) on the host, scraping the hook's
// pods on the node as the Prometheus Operator would from the hook's
// ServiceMonitor (manifests/components/hook-servicemonitor): job llsd-hook, the
// ServiceMonitor's honorLabels, and the target labels the Operator gives a pod
// (namespace, pod, service, endpoint), with the alerts of
// manifests/components/hook-monitoring. A scrape and an evaluation every second,
// and the `for` of the alerts named cut short: the test's copy.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse, stringify } from "yaml";
import { waitFor } from "../k8s/kube.js";
import { prometheusTool, ruleGroups, writeRuleFile } from "../install/monitoring.js";
import { root } from "../support/tools.js";
import { freePort } from "../net.js";
import type { PodView } from "./pods.js";

export interface Alert {
  labels: Record<string, string>;
  state: "pending" | "firing";
  activeAt: string;
}

interface Sample {
  metric: Record<string, string>;
  value: [number, string];
}

export interface RealPrometheus {
  alerts(): Promise<Alert[]>;
  query(expr: string): Promise<Sample[]>;
  /** Its log so far (stderr). */
  log(): string;
  close(): Promise<void>;
}

/** The ServiceMonitor's endpoint, as the component ships it. */
function serviceMonitorEndpoint(): { port: string; path: string; honorLabels?: boolean } {
  const sm = parse(
    readFileSync(
      join(root, "manifests", "components", "hook-servicemonitor", "servicemonitor.yaml"),
      "utf8",
    ),
  ) as { spec: { endpoints: { port: string; path: string; honorLabels?: boolean }[] } };
  const [endpoint] = sm.spec.endpoints;
  if (endpoint === undefined) throw new Error("the ServiceMonitor has no endpoint");
  return endpoint;
}

async function api<T>(base: string, path: string): Promise<T> {
  const res = await fetch(`${base}${path}`, { signal: AbortSignal.timeout(10_000) });
  const body = (await res.json()) as { status: string; data: T; error?: string };
  if (body.status !== "success") throw new Error(`${path}: ${body.error ?? res.status}`);
  return body.data;
}

/**
 * Starts Prometheus scraping each of `pods` on `metricsPort` (the hook's
 * container port `metrics`), in namespace `namespace`, with the alerts'
 * `for` replaced by `forOf` where it names them.
 */
export async function startPrometheus(
  pods: PodView[],
  opts: { namespace: string; metricsPort: number; forOf: Record<string, string> },
): Promise<RealPrometheus> {
  const work = mkdtempSync(join(tmpdir(), "llsd-prometheus-"));
  const groups = ruleGroups().map((g) => ({
    ...g,
    rules: g.rules.map((r) => ({
      ...r,
      ...(r.alert in opts.forOf ? { for: opts.forOf[r.alert] ?? "" } : {}),
    })),
  }));
  writeRuleFile(work, groups);
  const endpoint = serviceMonitorEndpoint();
  const config = {
    global: { scrape_interval: "1s", scrape_timeout: "1s", evaluation_interval: "1s" },
    rule_files: ["rules.yaml"],
    scrape_configs: [
      {
        job_name: "llsd-hook",
        honor_labels: endpoint.honorLabels === true,
        metrics_path: endpoint.path,
        static_configs: pods.map((p) => ({
          targets: [`${p.ip}:${opts.metricsPort}`],
          labels: {
            namespace: opts.namespace,
            pod: p.name,
            service: "llsd-hook",
            endpoint: endpoint.port,
          },
        })),
      },
    ],
  };
  writeFileSync(join(work, "prometheus.yml"), stringify(config));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  let stderr = "";
  const child: ChildProcess = spawn(
    prometheusTool("prometheus"),
    [
      `--config.file=${join(work, "prometheus.yml")}`,
      `--storage.tsdb.path=${join(work, "data")}`,
      `--web.listen-address=127.0.0.1:${port}`,
      "--log.level=warn",
    ],
    { cwd: work, stdio: ["ignore", "ignore", "pipe"] },
  );
  child.stderr?.on("data", (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const close = async () => {
    child.kill("SIGTERM");
    await exited;
    rmSync(work, { recursive: true, force: true });
  };
  try {
    await waitFor(
      "Prometheus to be ready",
      async () => ((await fetch(`${base}/-/ready`)).ok ? true : undefined),
      30_000,
      200,
    );
  } catch (err) {
    await close();
    throw new Error(`${(err as Error).message}\n${stderr}`, { cause: err });
  }
  return {
    alerts: async () => (await api<{ alerts: Alert[] }>(base, "/api/v1/alerts")).alerts,
    query: async (expr) =>
      (await api<{ result: Sample[] }>(base, `/api/v1/query?query=${encodeURIComponent(expr)}`))
        .result,
    log: () => stderr,
    close,
  };
}
