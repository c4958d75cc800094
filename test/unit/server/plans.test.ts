// The worker's plan memo (server/memo.ts, memoizePlans): a sync answered from a
// kept plan is the same bytes as one planned afresh, for every golden case and
// across cases sharing one cache; the key reads every input a plan reads, and
// no Secret's value; inputs too large to key are planned afresh and not kept.
import { expect } from "chai";
import type { KubeObject, SyncRequest } from "../../../src/api/hook.js";
import { generateConfig } from "../../../src/config/generate.js";
import { loadCatalog } from "../../../src/edge/load-catalog.js";
import { observe, relatedOf, specInputsOf, type SpecInputs } from "../../../src/observe.js";
import { planSpec } from "../../../src/return-children.js";
import { syncResponseText } from "../../../src/server/handle.js";
import { byteCache, memoizePlans, specPlanKey } from "../../../src/server/memo.js";
import { sync, type SyncOutcome } from "../../../src/sync.js";
import { buildRequest, loadCases, NOW } from "../../support/harness.js";

const catalog = loadCatalog();
const fixed = { catalog, generate: generateConfig };

const textOf = (outcome: SyncOutcome): string =>
  outcome.kind === "ok" ? syncResponseText(outcome.response) : `conflict: ${outcome.message}`;

/** A memoized context as a worker makes one, and its cache. */
function memoized(maxBytes = 64 << 20) {
  const cache = byteCache(maxBytes);
  const planSpecMemo = memoizePlans((inputs) => planSpec(inputs, fixed), cache);
  return { cache, ctx: { ...fixed, planSpec: planSpecMemo } };
}

describe("the plan memo", () => {
  const requests = loadCases().map(({ name, file }) => ({
    name,
    request: buildRequest(file, "v2"),
  }));

  it("answers every golden case with the same bytes as a plan made afresh, three times over one shared cache", () => {
    const { cache, ctx } = memoized();
    const fresh = requests.map(({ request }) => textOf(sync(request, NOW, fixed)));
    for (let round = 0; round < 3; round++)
      for (const [i, { name, request }] of requests.entries())
        expect(textOf(sync(request, NOW, ctx)), `${name}, round ${round + 1}`).to.equal(fresh[i]);
    const plans = cache.tierStats()["plan"];
    // Planned once per distinct inputs (cases that differ only in what runs share them);
    // a spec with a __proto__ key is planned afresh each time, never kept.
    const keyed = requests.filter(({ name }) => name !== "hostile-proto-keys");
    expect(keyed.length).to.equal(requests.length - 1);
    const keys = new Set(keyed.map(({ request }) => specPlanKey(specInputsOf(observe(request)))));
    expect(requests.length).to.be.above(20);
    // Met once: planned; twice: planned and kept; then answered from the kept plan.
    expect(plans?.misses).to.equal(2 * keys.size);
    expect(plans?.hits).to.equal(3 * keyed.length - 2 * keys.size);
  });

  it("keeps a plan frozen: changing it throws instead of changing the next answer", () => {
    const { ctx } = memoized();
    const inputs = specInputsOf(observe(requests[0]?.request as SyncRequest));
    const once = ctx.planSpec(inputs);
    expect(Object.isFrozen(once.resolution)).to.equal(false); // met once: not kept
    const plan = ctx.planSpec(inputs);
    expect(Object.isFrozen(plan.resolution)).to.equal(true);
    const warnings: unknown[] = plan.resolution.warnings;
    expect(() => warnings.push("changed")).to.throw(TypeError);
    expect(ctx.planSpec(inputs)).to.equal(plan);
  });

  it("keeps a plan the second time its key is met; forgets a key met past the 1,024 latest", () => {
    const cache = byteCache(64 << 20);
    const base = specInputsOf(observe(requests[0]?.request as SyncRequest));
    const made: string[] = [];
    const memo = memoizePlans((inputs) => {
      made.push(inputs.name);
      return { resolution: { warnings: [] }, check: undefined, planned: undefined } as never;
    }, cache);
    const met = (name: string) => memo({ ...base, name });
    met("k0");
    for (let i = 1; i <= 1024; i++) met(`k${i}`); // k0 is now the 1,025th latest: forgotten
    met("k0"); // met once again: planned, not kept
    expect(cache.tierStats()["plan"]?.entries).to.equal(0);
    met("k0"); // twice: kept
    met("k0"); // answered from the kept plan
    expect(made.filter((n) => n === "k0")).to.have.length(3);
    expect(cache.tierStats()["plan"]?.entries).to.equal(1);
  });

  it("keeps the plans of a cycle shorter than the tier holds, and no more of a longer one", () => {
    // The tier's budget is a quarter of the cache's: 20,000 bytes, about 15
    // of these plans (about 1,300 bytes each, as counted).
    const cycle = (length: number) => {
      const cache = byteCache(80_000);
      const base = specInputsOf(observe(requests[0]?.request as SyncRequest));
      let made = 0;
      const memo = memoizePlans(() => {
        made += 1;
        return { resolution: { warnings: [] }, check: undefined, planned: undefined } as never;
      }, cache);
      for (let round = 0; round < 4; round++)
        for (let i = 0; i < length; i++) memo({ ...base, name: `k${i}` });
      const plans = cache.tierStats()["plan"];
      const size = (plans?.bytes ?? 0) / (plans?.entries ?? 1);
      return { made, kept: plans?.entries, reach: 20_000 / size };
    };
    const short = cycle(5);
    expect(short.reach).to.be.within(5, 40);
    // Met once, met again and kept, then answered: two plans made a key.
    expect(short).to.include({ made: 10, kept: 5 });
    // 60 keys in turn: each met again 60 lookups later, past the tier's reach.
    // The first key met again is kept (no plan's size known yet); no other is,
    // and each is planned every time, as without the memo.
    const long = cycle(60);
    expect(long).to.include({ made: 4 * 60 - 2, kept: 1 });
  });

  it("plans afresh, and keeps nothing, for inputs too large to key", () => {
    const { cache, ctx } = memoized();
    const request = structuredClone(requests[0]?.request as SyncRequest);
    const data = Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [`k${i}`, "dg=="]));
    request.related["Secret.v1"] = {
      "default/wide": { apiVersion: "v1", kind: "Secret", metadata: { name: "wide" }, data },
    };
    expect(textOf(sync(request, NOW, ctx))).to.equal(textOf(sync(request, NOW, fixed)));
    expect(cache.tierStats()["plan"]).to.deep.include({ entries: 0, hits: 0 });
  });
});

/** `levels` objects, one inside the next. */
function nested(levels: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < levels; i++) value = { a: value };
  return value;
}

const wide = (entries: number) =>
  Object.fromEntries(Array.from({ length: entries }, (_, i) => [`k${i}`, i]));

describe("specPlanKey", () => {
  const [first] = loadCases();
  if (first === undefined) throw new Error("no golden case");
  const request = buildRequest(first.file, "v2");
  const base = specInputsOf(observe(request));
  const secret = (data: Record<string, string>, resourceVersion = "1") => ({
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: "creds", namespace: base.namespace, resourceVersion },
    data,
  });
  const configMap = (text: string) => ({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "base", namespace: base.namespace },
    data: { "config.yaml": text },
  });
  const claim = (size: string) => ({
    apiVersion: "v1",
    kind: "PersistentVolumeClaim",
    metadata: { name: `${base.name}-pvc`, namespace: base.namespace },
    spec: { resources: { requests: { storage: size } } },
  });
  /** `base` with related objects of its own, read as observe reads them. */
  const withRelated = (secrets: KubeObject[], configMaps: KubeObject[]): SpecInputs => ({
    ...base,
    related: relatedOf(
      {
        "Secret.v1": Object.fromEntries(
          secrets.map((o) => [`${base.namespace}/${o.metadata.name}`, o]),
        ),
        "ConfigMap.v1": Object.fromEntries(
          configMaps.map((o) => [`${base.namespace}/${o.metadata.name}`, o]),
        ),
      },
      base.namespace,
    ),
  });
  const start = withRelated([secret({ token: "YQ==" })], [configMap("a: 1")]);
  const rows: [why: string, inputs: SpecInputs, same: boolean][] = [
    ["the same inputs, copied", structuredClone(start), true],
    [
      "a Secret's value (never read)",
      withRelated([secret({ token: "Yg==" })], [configMap("a: 1")]),
      true,
    ],
    ["a Secret's key", withRelated([secret({ other: "YQ==" })], [configMap("a: 1")]), false],
    [
      "a Secret's resourceVersion",
      withRelated([secret({ token: "YQ==" }, "2")], [configMap("a: 1")]),
      false,
    ],
    ["a ConfigMap's text", withRelated([secret({ token: "YQ==" })], [configMap("a: 2")]), false],
    ["the spec", { ...start, spec: { ...(start.spec as object), x: 1 } }, false],
    ["the name", { ...start, name: "other" }, false],
    ["the namespace", { ...start, namespace: "other" }, false],
    [
      "the conversion notes",
      {
        ...start,
        conversion: {
          errors: [],
          warnings: [{ reason: "X", path: "spec", message: "m" } as never],
        },
      },
      false,
    ],
    [
      "the status's release",
      { ...start, history: { ...start.history, resolved: { name: "starter", release: "1.4.1" } } },
      false,
    ],
    [
      "the Deployment's release label",
      { ...start, history: { ...start.history, label: "1.4.1" } },
      false,
    ],
    ["the running image", { ...start, history: { ...start.history, image: "x:1" } }, false],
    ["the claim", { ...start, claim: claim("1Gi") }, false],
    [
      "the child groups",
      { ...start, childGroups: [...start.childGroups, "Ingress.networking.k8s.io/v1"] },
      false,
    ],
  ];
  for (const [why, inputs, same] of rows)
    it(`${why}: ${same ? "one key" : "two keys"}`, () =>
      expect(specPlanKey(inputs) === specPlanKey(start)).to.equal(same));

  const notKept: [why: string, inputs: SpecInputs][] = [
    ["a -0 (JSON writes 0; the config's YAML -0)", { ...start, spec: { x: -0 } }],
    ["a __proto__ key", { ...start, spec: JSON.parse('{"__proto__": {"x": 1}}') as unknown }],
    ["an object 64 levels below the inputs' root", { ...start, spec: nested(64) }],
    ["an object of 1,025 entries", { ...start, spec: wide(1025) }],
    ["a Map, which JSON writes as {}", { ...start, spec: new Map([["x", 1]]) }],
  ];
  for (const [why, inputs] of notKept)
    it(`${why}: no key (planned afresh)`, () => expect(specPlanKey(inputs)).to.equal(undefined));

  it("an object 63 levels below the root, and 1,024 entries an object: keyed", () => {
    expect(specPlanKey({ ...start, spec: nested(63) })).to.be.a("string");
    expect(specPlanKey({ ...start, spec: wide(1024) })).to.be.a("string");
  });

  it("the same spec in another key order: another key (a miss, never another's plan)", () => {
    const spec = { a: 1, b: 2 };
    const reordered = { b: 2, a: 1 };
    expect(specPlanKey({ ...start, spec })).to.not.equal(
      specPlanKey({ ...start, spec: reordered }),
    );
  });

  it("keys both of Related's maps (a new one must be added to the key)", () =>
    expect(Object.keys(base.related).sort()).to.deep.equal(["configMaps", "secrets"]));
});
