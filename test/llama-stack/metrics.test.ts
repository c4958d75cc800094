// spec.monitoring against real servers. The hook generates the config and the
// Deployment for a starter resource with monitoring set; the release's package
// runs with exactly the container's environment (test/llama-stack/boot.ts).
//  - OGX 1.4.1 and 1.5.0 (monitoring.metrics): the port the Deployment names
//    `metrics` serves Prometheus text on every address of the machine (the
//    scrape comes to the pod's IP, not to loopback), parsed by
//    prometheus_client.parser.text_string_to_metric_families from the
//    release's own venv; the request counter counts the requests made. Without
//    the OGX_METRICS_HOST the hook sets, OGX answers on 127.0.0.1 only.
//  - Llama Stack 0.7.3 (monitoring.otlp, its only way): the server posts
//    OTLP/HTTP protobuf to <endpoint>/v1/metrics, decoded with the
//    opentelemetry-proto classes from its venv, named as OTEL_SERVICE_NAME says.
import { expect } from "chai";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { networkInterfaces } from "node:os";
import type { Deployment } from "kubernetes-types/apps/v1.js";
import type { Service } from "kubernetes-types/core/v1.js";
import { freePort } from "../net.js";
import { bootLlamaStack, type BootedStack } from "./boot.js";
import { startFakeOpenAI, type FakeOpenAI } from "./fake-openai.js";
import { generate, llsd, vllmCreds, vllmStarter, type Generated } from "./generated.js";
import { python } from "./python.js";

const model = "meta-llama/Llama-3.2-3B-Instruct";
const NAME = "metered";
const NAMESPACE = "team-a";

/** boot-generated.test.ts's resource, with spec.monitoring. */
function generateWith(endpoint: string, release: string, monitoring: unknown): Generated {
  const spec = { ...vllmStarter(release, endpoint, model), monitoring };
  return generate(llsd(NAME, NAMESPACE, spec), [vllmCreds(NAMESPACE)]);
}

interface Family {
  name: string;
  type: string;
  samples: { name: string; labels: Record<string, string>; value: number | string }[];
}

/** The exposition parsed by the release's own prometheus_client (a parse error fails the test). */
function parseExposition(release: string, text: string): Family[] {
  const script = `
import json, math, sys
from prometheus_client.parser import text_string_to_metric_families
def value(v):
    return v if math.isfinite(v) else str(v)
print(json.dumps([
    {"name": f.name, "type": f.type,
     "samples": [{"name": s.name, "labels": s.labels, "value": value(s.value)} for s in f.samples]}
    for f in text_string_to_metric_families(sys.stdin.read())
]))
`;
  return JSON.parse(python(release, script, text)) as Family[];
}

/** Loopback and every other address of this machine, as URL hosts. */
function addresses(): { loopback: string[]; other: string[] } {
  const other = Object.values(networkInterfaces())
    .flatMap((list) => list ?? [])
    .filter((a) => !a.internal && !a.address.startsWith("fe80:"))
    .map((a) => (a.family === "IPv6" ? `[${a.address}]` : a.address));
  return { loopback: ["127.0.0.1", "[::1]"], other };
}

async function scrape(
  host: string,
  port: number,
): Promise<{ status: number; type: string; text: string }> {
  const res = await fetch(`http://${host}:${port}/metrics`, {
    signal: AbortSignal.timeout(10_000),
  });
  return {
    status: res.status,
    type: res.headers.get("content-type") ?? "",
    text: await res.text(),
  };
}

const refused = (host: string, port: number) =>
  scrape(host, port).then(
    (r) => `answered ${r.status}`,
    () => "refused",
  );

function metricsPortOf(deployment: Deployment): number | undefined {
  return deployment.spec?.template.spec?.containers[0]?.ports?.find((p) => p.name === "metrics")
    ?.containerPort;
}

describe("spec.monitoring on real servers", function () {
  this.timeout(900_000);

  for (const release of ["1.4.1", "1.5.0"]) {
    it(`${release}: the Deployment's port metrics serves Prometheus text on every address, parsed by prometheus_client, counting the requests made`, async () => {
      const fake: FakeOpenAI = await startFakeOpenAI({ models: [model], reply: "pong" });
      let stack: BootedStack | undefined;
      try {
        const port = await freePort();
        const { configYaml, env, deployment, response } = generateWith(fake.baseUrl, release, {
          metrics: { port },
        });
        expect(metricsPortOf(deployment), "the container port named metrics").to.equal(port);
        const service = response.children.find((c) => c.kind === "Service") as Service | undefined;
        expect(service?.spec?.ports?.find((p) => p.name === "metrics")).to.include({
          port,
          targetPort: "metrics",
        });

        stack = await bootLlamaStack({ release, configYaml, env });
        for (let i = 0; i < 3; i++) {
          const res = await fetch(`${stack.baseUrl}/v1/models`);
          expect(res.status).to.equal(200);
        }
        const { loopback, other } = addresses();
        expect(other, "a non-loopback address to scrape, as Prometheus reaches a pod").to.not.be
          .empty;
        let text = "";
        for (const host of [...loopback, ...other]) {
          const got = await scrape(host, port).catch((cause: unknown) => {
            throw new Error(`scraping ${host}:${port} failed`, { cause });
          });
          expect(got.status, host).to.equal(200);
          expect(got.type, host).to.match(/^text\/plain; version=0\.0\.4/);
          text = got.text;
        }

        const families = parseExposition(release, text);
        const requests = families.find((f) => f.name === "ogx_requests" && f.type === "counter");
        expect(requests, `families: ${families.map((f) => f.name).join(", ")}`).to.not.equal(
          undefined,
        );
        const models = (requests?.samples ?? []).filter(
          (s) => s.name === "ogx_requests_total" && s.labels["api"] === "models",
        );
        const counted = models.reduce((n, s) => n + Number(s.value), 0);
        expect(counted, JSON.stringify(models)).to.be.at.least(3);
        const target = families.find((f) => f.name === "target_info");
        expect(target?.samples[0]?.labels).to.include({ service_name: "ogx" });
        console.log(
          `      [metrics ${release}] ${families.length} families on port ${port} of ${[...loopback, ...other].join(", ")}; ogx_requests_total{api="models"} = ${counted}`,
        );
      } finally {
        await stack?.stop();
        await fake.close();
      }
    });
  }

  it("1.5.0: without the OGX_METRICS_HOST the hook sets, OGX serves loopback only (what Prometheus could not reach)", async () => {
    const fake = await startFakeOpenAI({ models: [model] });
    let stack: BootedStack | undefined;
    try {
      const port = await freePort();
      const { configYaml, env } = generateWith(fake.baseUrl, "1.5.0", { metrics: { port } });
      expect(env["OGX_METRICS_HOST"]).to.equal("::");
      const { OGX_METRICS_HOST: _host, ...withoutHost } = env;
      void _host;
      stack = await bootLlamaStack({ release: "1.5.0", configYaml, env: withoutHost });
      expect((await scrape("127.0.0.1", port)).status).to.equal(200);
      for (const host of addresses().other)
        expect(await refused(host, port), host).to.equal("refused");
    } finally {
      await stack?.stop();
      await fake.close();
    }
  });

  it("0.7.3: monitoring.otlp makes the server push OTLP/HTTP protobuf to <endpoint>/v1/metrics, as the resource's name", async () => {
    const fake = await startFakeOpenAI({ models: [model] });
    const collector = await startCollector();
    let stack: BootedStack | undefined;
    try {
      const { configYaml, env } = generateWith(fake.baseUrl, "0.7.3", {
        otlp: { endpoint: collector.url, exportIntervalSeconds: 1 },
      });
      expect(env).to.include({
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
        OTEL_METRIC_EXPORT_INTERVAL: "1000",
        OTEL_SERVICE_NAME: NAME,
      });
      stack = await bootLlamaStack({ release: "0.7.3", configYaml, env });
      for (let i = 0; i < 3; i++) await fetch(`${stack.baseUrl}/v1/models`);
      const deadline = performance.now() + 30_000;
      let exported: Exported[] = [];
      while (performance.now() < deadline) {
        exported = collector.posts.map((p) => decodeExport(p.body));
        if (exported.some((e) => e.metrics.includes("llama_stack.requests_total"))) break;
        await new Promise((r) => setTimeout(r, 500));
      }
      expect(collector.posts.length, "pushes received").to.be.greaterThan(0);
      for (const post of collector.posts) {
        expect(post.path).to.equal("/v1/metrics");
        expect(post.contentType).to.equal("application/x-protobuf");
      }
      const last = exported.at(-1);
      expect(last?.service).to.equal(NAME);
      expect(exported.flatMap((e) => e.metrics)).to.include("llama_stack.requests_total");
      console.log(
        `      [otlp 0.7.3] ${collector.posts.length} push(es) to ${collector.url}/v1/metrics; service.name ${last?.service}; metrics ${[...new Set(exported.flatMap((e) => e.metrics))].join(", ")}`,
      );
    } finally {
      await stack?.stop();
      await collector.close();
      await fake.close();
    }
  });
});

interface Collector {
  url: string;
  posts: { path: string; contentType: string; body: Buffer }[];
  close(): Promise<void>;
}

/** An OTLP/HTTP receiver on 127.0.0.1 that accepts and records every push. */
async function startCollector(): Promise<Collector> {
  const posts: Collector["posts"] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      posts.push({
        path: req.url ?? "",
        contentType: req.headers["content-type"] ?? "",
        body: Buffer.concat(chunks),
      });
      res.writeHead(200, { "content-type": "application/x-protobuf" }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    posts,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

interface Exported {
  service: string;
  metrics: string[];
}

/** An ExportMetricsServiceRequest, decoded by the opentelemetry-proto package of 0.7.3's venv. */
function decodeExport(body: Buffer): Exported {
  const script = `
import json, sys
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import ExportMetricsServiceRequest
req = ExportMetricsServiceRequest.FromString(sys.stdin.buffer.read())
service = ""
metrics = []
for rm in req.resource_metrics:
    for kv in rm.resource.attributes:
        if kv.key == "service.name":
            service = kv.value.string_value
    metrics += [m.name for sm in rm.scope_metrics for m in sm.metrics]
print(json.dumps({"service": service, "metrics": metrics}))
`;
  return JSON.parse(python("0.7.3", script, body)) as Exported;
}
