// Hostile and heavy input: children whose annotations anyone with `edit` can
// rewrite, objects Metacontroller adopted, specs nested or wide enough to
// overflow a recursive walk, and the HTTP edge's answers to malformed bodies.
import { expect } from "chai";
import fc from "fast-check";
import { once } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { brotliCompressSync, gzipSync } from "node:zlib";
import { pino } from "pino";
import supertest from "supertest";
import { LAST_APPLIED_ANNOTATION, type KubeObject } from "../../src/api/hook.js";
import { isOwnedName } from "../../src/children/keep.js";
import { CHILD_TYPES } from "../../src/children/types.js";
import { createApp } from "../../src/server/app.js";
import { API_SERVER_CLASS } from "../../src/server/classes.js";
import { testPool } from "../support/pool.js";
import { loadCatalog } from "../../src/edge/load-catalog.js";
import { sync } from "../../src/sync.js";
import { syncContext } from "../support/harness.js";
import { applyAll, request, syncOk } from "../support/request.js";
import { readCounter } from "./reads.js";

const pool = testPool();
const app = createApp({ pool, catalog: loadCatalog(), logger: pino({ level: "silent" }) });
/** The API server's endpoints (/convert), on their own port in the hook (src/server/classes.ts). */
const apiServerApp = createApp({
  pool,
  catalog: loadCatalog(),
  logger: pino({ level: "silent" }),
  endpoints: API_SERVER_CLASS,
});

const runningSpec = {
  distribution: { name: "starter" },
  providers: { inference: [{ provider: "vllm", endpoint: "http://vllm:8000/v1" }] },
  workload: { storage: { size: "10Gi" } },
  networking: { expose: { enabled: true, hostname: "llama.example.com" } },
};
/** Every kind of child at once: ConfigMap, Deployment, Service, ServiceAccount, PVC, Ingress. */
const running = applyAll(syncOk(request(runningSpec)));

const edits = {
  /** Still valid, config changed: the previous ConfigMap must be kept while the rollout runs. */
  rollout: {
    ...runningSpec,
    providers: { inference: [{ provider: "vllm", endpoint: "http://vllm-2:8000/v1" }] },
  },
  /** Storage removed: the claim must be kept. */
  storageRemoved: { ...runningSpec, workload: {} },
  /** Invalid: every child must be kept. */
  invalid: {
    ...runningSpec,
    providers: { inference: [{ provider: "vllm" }, { provider: "ollama" }] },
  },
} as const;

const namespaces = fc.constantFrom("default", "kube-system", "other");
const kinds = fc.constantFrom(
  ...CHILD_TYPES.map((t) => ({ apiVersion: t.apiVersion, kind: t.kind })),
  { apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRoleBinding" },
  { apiVersion: "v1", kind: "Secret" },
  { apiVersion: "v1", kind: "Pod" },
);
const names = fc.oneof(
  fc.constantFrom("llama", "llama-service", "llama-pvc", "llama-config-0123456789", "llama-sa"),
  fc.string({ maxLength: 30 }),
);

/** A forged annotation: another object, the same object, or any JSON at all. */
const annotation = (child: KubeObject) =>
  fc.oneof(
    fc.record({ kind: kinds, namespace: namespaces, name: names }).map((f) =>
      JSON.stringify({
        apiVersion: f.kind.apiVersion,
        kind: f.kind.kind,
        metadata: { name: f.name, namespace: f.namespace },
        spec: { forged: true },
      }),
    ),
    fc.constant(
      JSON.stringify({
        apiVersion: child.apiVersion,
        kind: child.kind,
        metadata: { name: child.metadata.name, namespace: "default" },
        data: { forged: "but same identity" },
      }),
    ),
    fc.json({ maxDepth: 4 }),
    fc.string({ maxLength: 40 }),
    fc.constant(null),
  );

/** Each running child unchanged, with a forged annotation, or without one. */
const tampered = fc.tuple(
  ...running.map((child) =>
    fc.option(annotation(child), { nil: undefined }).map((text): KubeObject => {
      if (text === undefined) return child;
      const annotations = { ...(child.metadata.annotations ?? {}) };
      if (text === null) delete annotations[LAST_APPLIED_ANNOTATION];
      else annotations[LAST_APPLIED_ANNOTATION] = text;
      return { ...child, metadata: { ...child.metadata, annotations } };
    }),
  ),
);

/** Objects a user labelled with the parent's controller-uid, adopted by Metacontroller. */
const adopted = fc.array(
  fc.record({ kind: kinds, namespace: namespaces, name: names }).map((f): KubeObject => ({
    apiVersion: f.kind.apiVersion,
    kind: f.kind.kind,
    metadata: {
      name: f.name || "x",
      namespace: f.namespace,
      labels: { "controller-uid": "uid-parent" },
      annotations: {
        [LAST_APPLIED_ANNOTATION]: JSON.stringify({
          apiVersion: f.kind.apiVersion,
          kind: f.kind.kind,
          metadata: { name: f.name || "x", namespace: f.namespace },
        }),
      },
    },
  })),
  { maxLength: 2 },
);

const id = (o: KubeObject) => `${o.kind}/${o.metadata.name}`;

describe("hostile children (property tests)", () => {
  it("whatever the annotations say, every object answered is one of this parent's children, and none observed is dropped where it must be kept", () => {
    fc.assert(
      fc.property(
        tampered,
        adopted,
        fc.constantFrom(...(Object.keys(edits) as (keyof typeof edits)[])),
        (children, extra, edit) => {
          const observed = [...children, ...extra];
          const req = request(edits[edit], { children: observed, generation: 2 });
          const out = sync(req, "2026-11-01T12:00:00Z", syncContext());
          if (out.kind === "conflict") {
            expect(out.message).to.match(/^\S+ \S+\/\S* /);
            return;
          }
          const answered = out.response.children;
          // A 200 answer leaves nothing out that Metacontroller adopted: every observed object is ours.
          for (const o of observed) {
            const declared = CHILD_TYPES.find((t) => t.kind === o.kind);
            const ours =
              declared?.apiVersion === o.apiVersion &&
              (o.metadata.namespace ?? "default") === "default" &&
              isOwnedName(o.kind, o.metadata.name, "llama");
            expect(ours, `${id(o)} was adopted and answered 200`).to.equal(true);
          }
          for (const o of answered) {
            const declared = CHILD_TYPES.find((t) => t.kind === o.kind);
            expect(declared?.apiVersion, id(o)).to.equal(o.apiVersion);
            expect(o.metadata.namespace, id(o)).to.equal("default");
            expect(isOwnedName(o.kind, o.metadata.name, "llama"), id(o)).to.equal(true);
          }
          const ids = new Set(answered.map(id));
          const mustKeep = observed.filter(
            (o) =>
              edit === "invalid" ||
              (o.kind === "PersistentVolumeClaim" && o.metadata.name === "llama-pvc"),
          );
          for (const o of mustKeep) expect(ids.has(id(o)), `${id(o)} was dropped`).to.equal(true);
          if (edit === "rollout") {
            const old = running.find((c) => c.kind === "ConfigMap");
            expect(ids.has(id(old as KubeObject)), "the ConfigMap the pods mount").to.equal(true);
          }
        },
      ),
      { numRuns: 300, seed: 20261216 },
    );
  });
});

/**
 * A FieldsV1 set covering every field of `value`, the way the API server records
 * an apply: objects by f:, lists of objects by k: on their merge key, other lists whole.
 */
function fieldSet(value: unknown): Record<string, unknown> {
  if (Array.isArray(value)) {
    const keyOf = (item: unknown): string | undefined => {
      if (typeof item !== "object" || item === null) return undefined;
      const o = item as Record<string, unknown>;
      if (o["containerPort"] !== undefined)
        return JSON.stringify({
          containerPort: o["containerPort"],
          protocol: o["protocol"] ?? "TCP",
        });
      if (o["port"] !== undefined)
        return JSON.stringify({ port: o["port"], protocol: o["protocol"] ?? "TCP" });
      for (const k of ["name", "mountPath", "key"])
        if (o[k] !== undefined) return JSON.stringify({ [k]: o[k] });
      return undefined;
    };
    if (value.every((i) => keyOf(i) !== undefined))
      return Object.fromEntries(value.map((i) => [`k:${keyOf(i)}`, { ".": {}, ...fieldSet(i) }]));
    return {};
  }
  if (typeof value !== "object" || value === null) return {};
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [`f:${k}`, fieldSet(v)]));
}

/** A child as server-side apply leaves it: no annotation, an Apply entry of `manager`. */
function appliedServerSide(child: KubeObject, manager: string): KubeObject {
  const { annotations, ...metadata } = child.metadata;
  const rest = Object.fromEntries(
    Object.entries(annotations ?? {}).filter(([k]) => k !== LAST_APPLIED_ANNOTATION),
  );
  const applied = JSON.parse(annotations?.[LAST_APPLIED_ANNOTATION] ?? "{}") as KubeObject;
  return {
    ...child,
    metadata: {
      ...metadata,
      ...(Object.keys(rest).length === 0 ? {} : { annotations: rest }),
      managedFields: [
        {
          manager,
          operation: "Apply",
          apiVersion: child.apiVersion,
          fieldsType: "FieldsV1",
          fieldsV1: fieldSet(applied),
        },
      ],
    },
  };
}

/**
 * The invalid edit synced while its observed Deployment (`ssa`'s) carries
 * `items` env entries and an Apply entry forged to claim `members` of them, by
 * index or by name; and the work the sync did on the entries and the claims,
 * in reads (test/unit/reads.ts).
 */
function syncForged(
  ssa: KubeObject[],
  items: number,
  members: number,
  byIndex: boolean,
): { out: ReturnType<typeof sync>; reads: number } {
  const deployment = ssa.find((c) => c.kind === "Deployment") as KubeObject;
  const env = Array.from({ length: items }, (_, i) => ({ name: `E${i}`, value: "x" }));
  const claims = Object.fromEntries(
    Array.from({ length: members }, (_, i) => [
      byIndex ? `i:${i}` : `k:{"name":"E${i}"}`,
      { ".": {} },
    ]),
  );
  const containers = { 'k:{"name":"llama-stack"}': { "f:env": claims } };
  const fieldsV1 = { "f:spec": { "f:template": { "f:spec": { "f:containers": containers } } } };
  const forged = {
    ...deployment,
    metadata: {
      ...deployment.metadata,
      managedFields: [
        { manager: "metacontroller", operation: "Apply", apiVersion: "apps/v1", fieldsV1 },
      ],
    },
    spec: { template: { spec: { containers: [{ name: "llama-stack", env }] } } },
  };
  const req = request(edits.invalid, {
    children: [...ssa.filter((c) => c !== deployment), forged],
    generation: 2,
  });
  // Counted as the hook reads them: wrapped in the parsed request.
  const counter = readCounter();
  const observed = req.children["Deployment.apps/v1"]?.["default/llama"] as typeof forged;
  const container = observed.spec.template.spec.containers[0]!;
  container.env = container.env.map(counter.wrap);
  const claimed = observed.metadata.managedFields[0]!.fieldsV1["f:spec"]["f:template"]["f:spec"];
  const entry = claimed["f:containers"]['k:{"name":"llama-stack"}'];
  entry["f:env"] = counter.wrap(entry["f:env"]);
  const out = sync(req, "2026-11-01T12:00:00Z", syncContext());
  return { out, reads: counter.reads() };
}

describe("hostile children under server-side apply (property tests)", () => {
  const ssa = running.map((c) => appliedServerSide(c, "metacontroller"));

  it("an invalid edit keeps every child as its Apply entry records it, equal to what was returned", () => {
    const out = sync(
      request(edits.invalid, { children: ssa, generation: 2 }),
      "2026-11-01T12:00:00Z",
      syncContext(),
    );
    expect(out.kind).to.equal("ok");
    if (out.kind !== "ok") return;
    const returned = syncOk(request(runningSpec)).children;
    expect(out.response.children.map(id).sort()).to.deep.equal(returned.map(id).sort());
    for (const child of returned) {
      const kept = out.response.children.find((c) => id(c) === id(child));
      expect(JSON.stringify(sortKeys(kept)), id(child)).to.equal(JSON.stringify(sortKeys(child)));
    }
  });

  it("a Deployment whose Apply entry is forged to claim 12,000 env items: a 409 naming it with the fix, a few reads of each", () => {
    const { out, reads } = syncForged(ssa, 12_000, 12_000, false);
    // Not one read per item per claim (144 million).
    expect(reads).to.be.at.most(16 * 24_000);
    expect(out.kind).to.equal("conflict");
    expect(out.kind === "conflict" && out.message).to.match(
      /^Deployment default\/llama has a managedFields Apply entry of field manager metacontroller with more than 10000 fields, .*Fix the spec so that nothing needs keeping, or delete that object so that llsd-hook creates it again\.$/,
    );
  });

  it("whatever managedFields say (any manager, any set, any operation), every object answered is this parent's, and an invalid edit drops none", () => {
    const entry = fc.record({
      manager: fc.constantFrom("metacontroller", "kubectl-edit", "other"),
      operation: fc.constantFrom("Apply", "Update"),
      subresource: fc.constantFrom(undefined, "status"),
      fieldsV1: fc.oneof(
        fc.json({ maxDepth: 3 }).map((t) => JSON.parse(t) as unknown),
        fc.constant({ "f:metadata": { "f:name": {}, "f:namespace": {} }, "f:kind": {} }),
      ),
    });
    const children = fc.tuple(
      ...ssa.map((child) =>
        fc.option(fc.array(entry, { maxLength: 3 }), { nil: undefined }).map((entries) =>
          entries === undefined
            ? child
            : {
                ...child,
                metadata: { ...child.metadata, managedFields: entries },
              },
        ),
      ),
    );
    fc.assert(
      fc.property(
        children,
        fc.constantFrom(...(Object.keys(edits) as (keyof typeof edits)[])),
        (observed, edit) => {
          const out = sync(
            request(edits[edit], { children: observed, generation: 2 }),
            "2026-11-01T12:00:00Z",
            syncContext(),
          );
          if (out.kind === "conflict") return;
          for (const o of out.response.children) {
            expect(CHILD_TYPES.find((t) => t.kind === o.kind)?.apiVersion, id(o)).to.equal(
              o.apiVersion,
            );
            expect(o.metadata.namespace, id(o)).to.equal("default");
            expect(isOwnedName(o.kind, o.metadata.name, "llama"), id(o)).to.equal(true);
          }
          if (edit === "invalid") {
            const ids = new Set(out.response.children.map(id));
            for (const o of observed) expect(ids.has(id(o)), `${id(o)} was dropped`).to.equal(true);
          }
        },
      ),
      { numRuns: 200, seed: 20261217 },
    );
  });
});

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => [k, sortKeys(v)]),
  );
}

/** JSON text nested `depth` levels (built as text: JSON.stringify itself overflows). */
function nested(depth: number, arrays: boolean): string {
  return arrays
    ? `${"[".repeat(depth)}1${"]".repeat(depth)}`
    : `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
}

function wide(keys: number): string {
  const parts: string[] = [];
  for (let i = 0; i < keys; i++) parts.push(`"k${i}":${i}`);
  return `{${parts.join(",")}}`;
}

/** A parent's text in `namespace`. */
const parentIn =
  (namespace: string) =>
  (spec: string, metadataExtra = "", status = "") =>
    `{"apiVersion":"llamastack.io/v1alpha2","kind":"LlamaStackDistribution","metadata":{"name":"llama","namespace":"${namespace}","generation":1${metadataExtra}},"spec":${spec}${status}}`;

const PARENT = parentIn("default");

/**
 * The deep and wide fuzz's namespace: the pool charges its CPU time to its
 * tenant (ADR 17), and in "default" it held back the tests after it (a 503
 * "holds back ... took more worker time lately than its share") when the
 * machine ran slow.
 */
const FUZZ = "fuzz";
const FUZZ_PARENT = parentIn(FUZZ);

/** Where a deep or wide value goes in a request, as text. */
const placements: Record<string, (value: string) => { path: string; body: string }> = {
  settings: (v) => ({
    path: "/sync",
    body: `{"parent":${FUZZ_PARENT(`{"distribution":{"name":"starter"},"providers":{"inference":[{"provider":"vllm","settings":{"network":${v}}}]}}`)}}`,
  }),
  modelMetadata: (v) => ({
    path: "/sync",
    body: `{"parent":${FUZZ_PARENT(`{"distribution":{"name":"starter"},"providers":{"inference":[{"provider":"vllm"}]},"resources":{"models":[{"name":"m","metadata":{"x":${v}}}]}}`)}}`,
  }),
  unknownSpecField: (v) => ({
    path: "/sync",
    body: `{"parent":${FUZZ_PARENT(`{"distribution":{"name":"starter"},"x":${v}}`)}}`,
  }),
  parentMetadata: (v) => ({
    path: "/sync",
    body: `{"parent":${FUZZ_PARENT(`{"distribution":{"name":"starter"}}`, `,"x":${v}`)}}`,
  }),
  parentStatus: (v) => ({
    path: "/sync",
    body: `{"parent":${FUZZ_PARENT(`{"distribution":{"name":"starter"}}`, "", `,"status":${v}`)}}`,
  }),
  childField: (v) => ({
    path: "/sync",
    body: `{"parent":${FUZZ_PARENT(`{"distribution":{"name":"starter"},"x":1}`)},"children":{"ConfigMap.v1":{"${FUZZ}/llama-config-0123456789":{"apiVersion":"v1","kind":"ConfigMap","immutable":true,"metadata":{"name":"llama-config-0123456789","namespace":"${FUZZ}"},"data":${v}}}}}`,
  }),
  childAnnotation: (v) => ({
    path: "/sync",
    body: `{"parent":${FUZZ_PARENT(`{"distribution":{"name":"starter"},"x":1}`)},"children":{"Service.v1":{"${FUZZ}/llama-service":{"apiVersion":"v1","kind":"Service","metadata":{"name":"llama-service","namespace":"${FUZZ}","annotations":{"${LAST_APPLIED_ANNOTATION}":${JSON.stringify(v)}}}}}}}`,
  }),
  relatedData: (v) => ({
    path: "/sync",
    body: `{"parent":${FUZZ_PARENT(`{"distribution":{"name":"starter"}}`)},"related":{"Secret.v1":{"${FUZZ}/s":{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s","namespace":"${FUZZ}"},"data":${v}}}}}`,
  }),
  customizeSpec: (v) => ({
    path: "/customize",
    body: `{"parent":${FUZZ_PARENT(`{"distribution":{"name":"starter"},"overrideConfig":{"configMapName":"c"},"x":${v}}`)}}`,
  }),
  customizeMetadata: (v) => ({
    path: "/customize",
    body: `{"parent":${FUZZ_PARENT(`{"distribution":{"name":"starter"}}`, `,"x":${v}`)}}`,
  }),
};

/** Where the placements that put the value in the spec report it. */
const SPEC_PATHS: Record<string, string> = {
  settings: "spec.providers.inference[0].settings.network",
  modelMetadata: "spec.resources.models[0].metadata.x",
  unknownSpecField: "spec.x",
};

/** The API server's own limit on a request body (3 MiB): nothing larger can be stored. */
const API_SERVER_LIMIT = 3 * 1024 * 1024;

/**
 * Around a fuzz through the HTTP edge: no request took its worker past the
 * deadline (WORKER_DEADLINE_MS of processing) or out of heap, which would have
 * replaced it. The pool measures each request's own CPU time, so this holds on
 * a busy machine where a wall-clock bound would not.
 */
function noWorkerReplaced(): { before: () => Promise<void>; after: () => void } {
  let replaced = 0;
  return {
    before: async () => {
      await pool.ready();
      replaced = pool.stats().replaced;
    },
    after: () =>
      expect(
        pool.stats().replaced - replaced,
        "workers replaced (past the deadline or out of heap)",
      ).to.equal(0),
  };
}

describe("deep and wide input (bounded fuzz)", function () {
  this.timeout(300_000);
  const pool = noWorkerReplaced();
  before(pool.before);
  after(pool.after);

  it("never a 500 and never a crash, up to the API server's 3 MiB; a spec problem is named by its field", async () => {
    const shapes = fc.oneof(
      fc.record({
        kind: fc.constant("deep" as const),
        n: fc.integer({ min: 1, max: 200_000 }),
        arrays: fc.boolean(),
      }),
      fc.record({
        kind: fc.constant("wide" as const),
        n: fc.integer({ min: 1, max: 150_000 }),
        arrays: fc.constant(false),
      }),
    );
    await fc.assert(
      fc.asyncProperty(
        shapes,
        fc.constantFrom(...Object.keys(placements)),
        async (shape, where) => {
          const value = shape.kind === "deep" ? nested(shape.n, shape.arrays) : wide(shape.n);
          const { path, body } = (
            placements[where] as (v: string) => { path: string; body: string }
          )(value);
          fc.pre(body.length <= API_SERVER_LIMIT);
          const res = await supertest(app)
            .post(path)
            .set("content-type", "application/json")
            .send(body);
          expect(
            [200, 400, 409],
            `${where} ${shape.kind} ${shape.n}: ${res.status} ${res.text.slice(0, 300)}`,
          ).to.include(res.status);
          if (path === "/customize") expect(res.status).to.equal(200);
          const bounded = SPEC_PATHS[where];
          const outOfBounds = shape.kind === "deep" ? shape.n > 24 : shape.n > 1024;
          if (bounded !== undefined && outOfBounds) {
            expect(res.status).to.equal(200);
            const validation = (
              res.body.status.conditions as { type: string; status: string; message: string }[]
            ).find((c) => c.type === "ValidationSucceeded");
            expect(validation?.status).to.equal("False");
            expect(validation?.message.startsWith(bounded), validation?.message).to.equal(true);
          }
        },
      ),
      { numRuns: 60, seed: 20261123 },
    );
  });
});

/** POSTs raw bytes (supertest would re-encode a Buffer sent as JSON). */
async function rawPost(
  path: string,
  headers: Record<string, string>,
  body: string | Buffer,
): Promise<{ status: number; body: unknown }> {
  const server = app.listen(0, "127.0.0.1");
  await once(server, "listening");
  try {
    const { port } = server.address() as AddressInfo;
    return await new Promise((resolve, reject) => {
      const req = http.request(
        { host: "127.0.0.1", port, path, method: "POST", headers },
        (res) => {
          let text = "";
          res.setEncoding("utf8");
          res.on("data", (c: string) => (text += c));
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
        },
      );
      req.on("error", reject);
      req.end(body);
    });
  } finally {
    server.close();
  }
}

describe("HTTP edge: malformed bodies get a message that says what to fix", () => {
  const rows: {
    name: string;
    headers: Record<string, string>;
    body: string | Buffer;
    status: number;
    error: string;
  }[] = [
    {
      name: "a null body",
      headers: { "content-type": "application/json" },
      body: "null",
      status: 400,
      error: "the request body must be a JSON object (a Metacontroller hook request), not null",
    },
    {
      name: "an array body",
      headers: { "content-type": "application/json" },
      body: "[]",
      status: 400,
      error: "the request body must be a JSON object (a Metacontroller hook request), not an array",
    },
    {
      name: "an unsupported charset",
      headers: { "content-type": "application/json; charset=latin-9" },
      body: "{}",
      status: 415,
      error: "unsupported charset: send the body as JSON in UTF-8",
    },
    {
      name: "an unknown content encoding",
      headers: { "content-type": "application/json", "content-encoding": "x-zip" },
      body: "{}",
      status: 415,
      error:
        "unsupported Content-Encoding: send the body uncompressed, or with gzip, deflate or br",
    },
    {
      name: "a corrupt gzip body",
      headers: { "content-type": "application/json", "content-encoding": "gzip" },
      body: Buffer.concat([gzipSync("{}").subarray(0, 10), Buffer.from("garbage")]),
      status: 400,
      error: "the compressed body could not be decompressed; check its Content-Encoding",
    },
    {
      name: "a plain body sent as br (brotli's errors are not zlib's Z_ codes)",
      headers: { "content-type": "application/json", "content-encoding": "br" },
      body: '{"a":1}',
      status: 400,
      error: "the compressed body could not be decompressed; check its Content-Encoding",
    },
    {
      name: "a truncated br body",
      headers: { "content-type": "application/json", "content-encoding": "br" },
      body: brotliCompressSync(Buffer.from(`{"a":"${"x".repeat(1000)}"}`)).subarray(0, 20),
      status: 400,
      error: "the compressed body could not be decompressed; check its Content-Encoding",
    },
  ];
  for (const row of rows) {
    it(row.name, async () => {
      const res = await rawPost("/sync", row.headers, row.body);
      expect(res.status).to.equal(row.status);
      expect(res.body).to.deep.equal({ error: row.error });
    });
  }

  it("a valid gzip body is read", async () => {
    const res = await rawPost(
      "/customize",
      { "content-type": "application/json", "content-encoding": "gzip" },
      gzipSync(
        `{"parent":${PARENT('{"distribution":{"name":"starter"},"overrideConfig":{"configMapName":"c"}}')}}`,
      ),
    );
    expect(res).to.deep.equal({
      status: 200,
      body: {
        relatedResources: [
          { apiVersion: "v1", resource: "configmaps", namespace: "default", names: ["c"] },
        ],
      },
    });
  });
});

describe("related ConfigMaps, managedFields and ConversionReviews (bounded fuzz)", function () {
  this.timeout(300_000);
  const pool = noWorkerReplaced();
  before(pool.before);
  after(pool.after);
  const ssa = running.map((c) => appliedServerSide(c, "metacontroller"));

  /** YAML text of a shape and size, as a tenant could store it in a ConfigMap (up to 1 MiB). */
  const yamlText = fc.oneof(
    fc.integer({ min: 1, max: 250_000 }).map((n) => `- a\n`.repeat(n)),
    fc
      .integer({ min: 1, max: 40_000 })
      .map((n) => Array.from({ length: n }, (_, i) => `k${i}: 1`).join("\n")),
    fc.integer({ min: 1, max: 100_000 }).map((n) => `${"[".repeat(n)}${"]".repeat(n)}`),
    fc.integer({ min: 1, max: 100_000 }).map((n) => `${"- ".repeat(n)}a\n`),
    fc
      .integer({ min: 1, max: 9 })
      .map((n) =>
        Array.from({ length: n }, (_, i) =>
          i === 0
            ? "a0: &a0 [x, x, x, x, x, x, x, x, x, x]"
            : `a${i}: &a${i} [${`*a${i - 1}, `.repeat(9)}*a${i - 1}]`,
        ).join("\n"),
      ),
    fc.string({
      unit: fc.constantFrom(..."ab:- \n[]{},&*!|>'\"#%@`?\t\u2028".split("")),
      maxLength: 300,
    }),
  );

  const related = (text: string) => [
    {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "cm", namespace: "default", uid: "u-cm", resourceVersion: "1" },
      data: { "config.yaml": text },
    },
  ];
  const specs = {
    base: {
      distribution: {
        image: "acme/stack:1",
        release: "1.5.0",
        baseConfig: { configMapName: "cm" },
      },
    },
    override: { distribution: { name: "starter" }, overrideConfig: { configMapName: "cm" } },
  };

  it("a related ConfigMap's YAML: a 200 within the deadline, whatever its shape and size", async () => {
    await fc.assert(
      fc.asyncProperty(yamlText, fc.constantFrom("base", "override"), async (text, use) => {
        fc.pre(Buffer.byteLength(text) <= 1024 * 1024);
        const body = request(specs[use], { related: related(text) });
        const res = await supertest(app).post("/sync").send(body);
        expect(res.status, `${use} ${text.length} chars: ${res.text.slice(0, 200)}`).to.equal(200);
      }),
      { numRuns: 40, seed: 20261125 },
    );
  });

  it("a forged Apply entry of any size: a 200 or a 409, a few reads of each entry and claim", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 20_000 }),
        fc.integer({ min: 0, max: 20_000 }),
        fc.boolean(),
        (items, members, byIndex) => {
          const { out, reads } = syncForged(ssa, items, members, byIndex);
          // Work linear in the entries and claims: never one read per entry per claim.
          expect(reads, `${items} items, ${members} members`).to.be.at.most(
            16 * (items + members + 1),
          );
          expect(["ok", "conflict"]).to.include(out.kind);
        },
      ),
      { numRuns: 30, seed: 20261125 },
    );
  });

  it("a ConversionReview with a deep or wide object at either version: a ConversionReview, never a 500", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.integer({ min: 1, max: 150_000 }).map((n) => nested(n, n % 2 === 0)),
          fc.integer({ min: 1, max: 100_000 }).map((n) => wide(n)),
        ),
        fc.constantFrom("llamastack.io/v1alpha1", "llamastack.io/v1alpha2"),
        fc.constantFrom("llamastack.io/v1alpha1", "llamastack.io/v1alpha2"),
        fc.constantFrom("spec", "metadata", "status"),
        async (value, from, to, where) => {
          const object =
            where === "spec"
              ? `{"apiVersion":"${from}","kind":"LlamaStackDistribution","metadata":{"name":"x","namespace":"d"},"spec":{"a":${value}}}`
              : where === "metadata"
                ? `{"apiVersion":"${from}","kind":"LlamaStackDistribution","metadata":{"name":"x","namespace":"d","labels":${value}},"spec":{}}`
                : `{"apiVersion":"${from}","kind":"LlamaStackDistribution","metadata":{"name":"x"},"spec":{},"status":${value}}`;
          const body = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","request":{"uid":"u","desiredAPIVersion":"${to}","objects":[${object}]}}`;
          fc.pre(body.length <= API_SERVER_LIMIT);
          const res = await supertest(apiServerApp)
            .post("/convert")
            .set("content-type", "application/json")
            .send(body);
          expect(res.status, res.text.slice(0, 200)).to.equal(200);
          expect(res.body.kind).to.equal("ConversionReview");
        },
      ),
      { numRuns: 40, seed: 20261125 },
    );
  });
});
