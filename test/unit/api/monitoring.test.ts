// spec.monitoring and workload.terminationGracePeriodSeconds in the schema:
// their bounds and defaults, hostile values, and the example in docs/guide/monitoring.md.
import { expect } from "chai";
import { parse } from "yaml";
import { LlamaStackDistribution, LlamaStackDistributionSpec } from "../../../src/api/schema.js";
import { codeBlocks, docSection } from "../../support/tools.js";

const problems = (spec: object): string[] => {
  const result = LlamaStackDistributionSpec.safeParse({
    distribution: { name: "starter" },
    ...spec,
  });
  return result.success ? [] : result.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
};

describe("spec.monitoring", () => {
  it("defaults the metrics port to OGX's own, 9464", () => {
    const spec = LlamaStackDistributionSpec.parse({
      distribution: { name: "starter" },
      monitoring: { metrics: {} },
    });
    expect(spec.monitoring?.metrics?.port).to.equal(9464);
  });

  const rows: [why: string, monitoring: unknown, problem: string | undefined][] = [
    ["nothing at all", {}, undefined],
    ["a port of its own", { metrics: { port: 9090 } }, undefined],
    [
      "a privileged port",
      { metrics: { port: 80 } },
      "monitoring.metrics.port: must be between 1024 and 65535 (the server runs as non-root)",
    ],
    ["a port as a string", { metrics: { port: "9464" } }, "monitoring.metrics.port: "],
    ["an unknown field", { metrics: { path: "/m" } }, "monitoring.metrics: "],
    ["interval 1m30s", { metrics: { serviceMonitor: { interval: "1m30s" } } }, undefined],
    [
      "interval 30 (no unit)",
      { metrics: { serviceMonitor: { interval: "30" } } },
      "monitoring.metrics.serviceMonitor.interval: must be a Prometheus duration such as 30s",
    ],
    [
      "an empty interval",
      { metrics: { serviceMonitor: { interval: "" } } },
      "monitoring.metrics.serviceMonitor.interval: ",
    ],
    ["an OTLP endpoint with a path", { otlp: { endpoint: "https://c:4318/otlp" } }, undefined],
    [
      "an endpoint with a trailing slash (the server appends /v1/metrics)",
      { otlp: { endpoint: "http://c:4318/" } },
      "monitoring.otlp.endpoint: must be an http or https URL without a trailing slash",
    ],
    [
      "a gRPC-style endpoint without a scheme",
      { otlp: { endpoint: "c:4317" } },
      "monitoring.otlp.endpoint: must be an http or https URL",
    ],
    [
      "hostile: whitespace in the endpoint",
      { otlp: { endpoint: "http://c:4318 x" } },
      "monitoring.otlp.endpoint: must be an http or https URL",
    ],
    ["otlp without an endpoint", { otlp: {} }, "monitoring.otlp.endpoint: "],
    [
      "an export interval of 0",
      { otlp: { endpoint: "http://c:4318", exportIntervalSeconds: 0 } },
      "monitoring.otlp.exportIntervalSeconds: ",
    ],
    ["hostile: null", null, "monitoring: "],
  ];
  for (const [why, monitoring, problem] of rows)
    it(`${why}: ${problem ?? "accepted"}`, () => {
      const found = problems({ monitoring });
      if (problem === undefined) expect(found).to.deep.equal([]);
      else
        expect(
          found.some((p) => p.startsWith(problem)),
          found.join("\n"),
        ).to.equal(true);
    });
});

describe("spec.workload.terminationGracePeriodSeconds", () => {
  const rows: [value: unknown, ok: boolean][] = [
    [1, true],
    [30, true],
    [3600, true],
    [0, false],
    [3601, false],
    [1.5, false],
    ["30", false],
  ];
  for (const [value, ok] of rows)
    it(`${JSON.stringify(value)}: ${ok ? "accepted" : "refused"}`, () =>
      expect(problems({ workload: { terminationGracePeriodSeconds: value } })).to.have.length(
        ok ? 0 : 1,
      ));
});

describe("the Monitoring example (docs/guide/monitoring.md)", () => {
  it("is a valid resource that sets every monitoring field", () => {
    const [example] = codeBlocks(docSection("docs/guide/monitoring.md", "# Monitoring"), "yaml");
    const parsed = LlamaStackDistribution.safeParse(parse(example ?? ""));
    if (!parsed.success) expect.fail(parsed.error.message);
    const monitoring = parsed.data.spec.monitoring;
    expect(Object.keys(monitoring?.metrics ?? {}).sort()).to.deep.equal([
      "allowedFrom",
      "port",
      "serviceMonitor",
    ]);
    expect(Object.keys(monitoring?.otlp ?? {}).sort()).to.deep.equal([
      "endpoint",
      "exportIntervalSeconds",
    ]);
  });
});
