// Metacontroller's server-side apply on a real kube-apiserver
// (--apply-strategy=server-side-apply, emulated in metacontroller.ts):
//   - every child of every golden case, created the way Metacontroller's
//     server-side apply creates it: the hook's keep projection of the live
//     child (projectApplied, src/children/managed-fields.ts), applied again by
//     the same field manager with force as Metacontroller would send it,
//     changes nothing (a dry run: same resourceVersion, generation, contents
//     and field set; a dry run keeps the resourceVersion even when it changes
//     the object, so the contents are compared too), and equals the child the
//     hook returned;
//   - a running cluster switched from dynamic apply to server-side apply, whose
//     first apply of the Deployment an admission policy refuses after
//     Metacontroller removed its last-applied annotation: the hook answers 409
//     naming the child and the Apply managers it found while it needs what was
//     applied, and keeps the children from their managed fields once the
//     apply went through;
//   - a field manager other than the default: the hook configured with it
//     keeps the children, one left at the default names it in its 409;
//   - a running cluster switched back from server-side apply to dynamic apply.
import { expect } from "chai";
import type { Server } from "node:http";
import { LAST_APPLIED_ANNOTATION, type KubeObject } from "../../src/api/hook.js";
import { API_VERSION, KIND } from "../../src/api/schema.js";
import { projectApplied } from "../../src/children/managed-fields.js";
import { CHILD_TYPES } from "../../src/children/types.js";
import { canonicalJson } from "../../src/lib/json.js";
import { loadCases, runCase } from "../support/harness.js";
import { createParent, restrictedNamespace, waitFor, type Kube, type Status } from "./kube.js";
import { Metacontroller, ssaPayload, type SyncRound } from "./metacontroller.js";
import { serveHook } from "./serve-hook.js";
import { cluster } from "./setup.js";

const FIELD_MANAGER = "metacontroller";
const RESOURCE = "llamastackdistributions";

interface ManagedFieldsEntry {
  manager: string;
  operation: string;
  subresource?: string;
  apiVersion?: string;
  time?: string;
  fieldsV1?: unknown;
}

const managedFields = (o: KubeObject) =>
  (o.metadata as { managedFields?: ManagedFieldsEntry[] }).managedFields ?? [];

/** The field set of `manager`'s Apply entry on the main resource. */
function applySet(o: KubeObject, manager: string): unknown {
  return managedFields(o).find(
    (e) => e.manager === manager && e.operation === "Apply" && (e.subresource ?? "") === "",
  )?.fieldsV1;
}

function applyManagers(o: KubeObject): string[] {
  return managedFields(o)
    .filter((e) => e.operation === "Apply" && (e.subresource ?? "") === "")
    .map((e) => e.manager)
    .sort();
}

function updateManagers(o: KubeObject): string[] {
  return managedFields(o)
    .filter((e) => e.operation === "Update" && (e.subresource ?? "") === "")
    .map((e) => e.manager)
    .sort();
}

/** The object with the times of its managedFields entries left out. */
function timeless(o: KubeObject): unknown {
  return {
    ...o,
    metadata: {
      ...o.metadata,
      managedFields: managedFields(o).map(({ time: _time, ...rest }) => rest),
    },
  };
}

function resourceOf(o: { apiVersion: string; kind: string }): string {
  const t = CHILD_TYPES.find((t) => t.kind === o.kind && t.apiVersion === o.apiVersion);
  if (t === undefined) throw new Error(`${o.kind} ${o.apiVersion} is not a declared child type`);
  return t.resource;
}

function emptyRound(): SyncRound {
  return {
    httpStatus: 200,
    body: undefined,
    created: [],
    updated: [],
    deleted: [],
    applied: [],
    annotationRemoved: [],
    adopted: [],
    released: [],
    errors: [],
    statusWritten: false,
    storedStatus: undefined,
  };
}

/** The entries of two snapshots that differ, each as "key: before → after". */
function changes(before: Record<string, string>, after: Record<string, string>): string[] {
  return [...new Set([...Object.keys(before), ...Object.keys(after)])]
    .filter((k) => before[k] !== after[k])
    .map((k) => `${k}:\n    before ${before[k] ?? "(none)"}\n    after  ${after[k] ?? "(none)"}`);
}

/**
 * What a server-side dry-run force-apply of the keep projection of `child`,
 * by `manager` and as Metacontroller sends it, would change; [] when nothing.
 * Controllers (the Deployment controller) may write the child meanwhile: then
 * it is read and tried again.
 */
async function keepDryRunChanges(
  kube: Kube,
  parent: KubeObject,
  mc: Metacontroller,
  child: KubeObject,
  manager: string,
): Promise<string[]> {
  const at = `${child.kind}/${child.metadata.name}`;
  const resource = resourceOf(child);
  for (let attempt = 0; attempt < 5; attempt++) {
    const live = await kube.get(
      child.apiVersion,
      resource,
      child.metadata.namespace,
      child.metadata.name,
    );
    if (live === undefined) return [`${at}: not found`];
    const projected = projectApplied(live, manager);
    if (projected === undefined)
      return [`${at}: no projection (Apply managers: ${applyManagers(live).join(", ") || "none"})`];
    const res = await kube.apply(
      child.apiVersion,
      resource,
      ssaPayload(projected, parent, mc.controller),
      {
        fieldManager: manager,
        force: true,
        dryRun: true,
      },
    );
    if (res.status >= 300)
      return [`${at}: dry run: HTTP ${res.status}: ${(res.body as unknown as Status).message}`];
    const after = await kube.get(
      child.apiVersion,
      resource,
      child.metadata.namespace,
      child.metadata.name,
    );
    if (after?.metadata.resourceVersion !== live.metadata.resourceVersion) continue;
    const dry = res.body;
    const problems: string[] = [];
    if (dry.metadata.resourceVersion !== live.metadata.resourceVersion)
      problems.push(
        `${at}: resourceVersion ${live.metadata.resourceVersion} → ${dry.metadata.resourceVersion}`,
      );
    const generation = (o: KubeObject) => (o.metadata as { generation?: number }).generation;
    if (generation(dry) !== generation(live))
      problems.push(`${at}: generation ${generation(live)} → ${generation(dry)}`);
    if (canonicalJson(applySet(dry, manager)) !== canonicalJson(applySet(live, manager)))
      problems.push(
        `${at}: ${manager}'s field set\n    was ${canonicalJson(applySet(live, manager))}\n    now ${canonicalJson(applySet(dry, manager))}`,
      );
    if (canonicalJson(timeless(dry)) !== canonicalJson(timeless(live)))
      problems.push(
        `${at}: contents\n    were ${canonicalJson(timeless(live))}\n    now  ${canonicalJson(timeless(dry))}`,
      );
    return problems;
  }
  return [`${at}: kept changing while it was checked`];
}

describe("server-side apply: the hook's keep projection of every golden child changes nothing", function () {
  this.timeout(300_000);
  const kube = () => cluster().kube;
  // Children of the base install's types: the CompositeController the stand-in
  // loads has no component, so it declares no optional type.
  const cases = loadCases()
    .map((c) => ({ c, outcome: runCase(c.file, "v2") }))
    .map(({ c, outcome }) => ({
      c,
      outcome:
        outcome.kind === "ok"
          ? {
              ...outcome,
              response: {
                ...outcome.response,
                children: outcome.response.children.filter((o) =>
                  CHILD_TYPES.some((t) => t.kind === o.kind),
                ),
              },
            }
          : outcome,
    }))
    .flatMap(({ c, outcome }) =>
      outcome.kind === "ok" && outcome.response.children.length > 0
        ? [{ c, response: outcome.response }]
        : [],
    );
  // No hook calls: the children come from the golden corpus.
  let mc: Metacontroller;
  const namespaces: string[] = [];

  before(() => {
    mc = new Metacontroller(kube(), "http://127.0.0.1:9", {
      applyStrategy: "server-side-apply",
      fieldManager: FIELD_MANAGER,
    });
  });

  after(async () => {
    for (const ns of namespaces) await kube().remove("v1", "namespaces", undefined, ns);
  });

  it("the negative control: a projection with one more label is seen as a change", async () => {
    const ns = "llsd-ssa-control";
    namespaces.push(ns);
    await kube().mustCreate("v1", "namespaces", restrictedNamespace(ns));
    const parent = await kube().mustCreate(API_VERSION, RESOURCE, {
      apiVersion: API_VERSION,
      kind: KIND,
      metadata: { name: "llama", namespace: ns },
      spec: { distribution: { name: "starter" } },
    });
    const child = {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "llama-config-0123456789", namespace: ns, labels: { a: "b" } },
      data: { "config.yaml": "x: 1\n" },
      immutable: true,
    } as KubeObject;
    const round = emptyRound();
    await mc.manageChildren(parent, [], [child], round);
    expect(round.errors).to.deep.equal([]);
    const live = await kube().get("v1", "configmaps", ns, child.metadata.name);
    const projected = projectApplied(live as KubeObject, FIELD_MANAGER) as KubeObject;
    const changed = {
      ...projected,
      metadata: { ...projected.metadata, labels: { ...projected.metadata.labels, c: "d" } },
    };
    const res = await kube().apply("v1", "configmaps", ssaPayload(changed, parent, mc.controller), {
      fieldManager: FIELD_MANAGER,
      force: true,
      dryRun: true,
    });
    expect(res.status).to.equal(200);
    expect(canonicalJson(timeless(res.body))).not.to.equal(
      canonicalJson(timeless(live as KubeObject)),
    );
    expect(canonicalJson(applySet(res.body, FIELD_MANAGER))).not.to.equal(
      canonicalJson(applySet(live as KubeObject, FIELD_MANAGER)),
    );
    expect(await keepDryRunChanges(kube(), parent, mc, child, FIELD_MANAGER)).to.deep.equal([]);
  });

  /** One case: its children created by Metacontroller's server-side apply, then checked. */
  async function runGoldenCase(
    i: number,
    { c, response }: (typeof cases)[number],
  ): Promise<string[]> {
    const ns = `llsd-ssa-${i}`;
    namespaces.push(ns);
    await kube().mustCreate("v1", "namespaces", restrictedNamespace(ns));
    const name = c.file.name ?? "llama";
    // The owner must exist (or the garbage collector removes the children);
    // a spec the API server refuses is carried by a minimal one.
    const parent = await createParent(kube(), ns, name, c.file.spec);
    const desired = response.children.map((child) => ({
      ...child,
      metadata: { ...child.metadata, namespace: ns },
    }));
    const round = emptyRound();
    await mc.manageChildren(parent, [], desired, round);
    const ids = desired.map((d) => `${d.kind}/${d.metadata.name}`).sort();
    if (round.errors.length > 0) return round.errors;
    if (canonicalJson([...round.created].sort()) !== canonicalJson(ids))
      return [`created ${round.created.join(", ")}; wanted ${ids.join(", ")}`];
    const checks = await Promise.all(desired.map((d) => checkChild(parent, d)));
    return checks.flat();
  }

  // The cases are independent and each waits mostly on the API server: a few
  // run at a time from the start (each test awaits its own), which takes a
  // third of the time of one after another.
  const results: Promise<string[]>[] = [];
  before(() => {
    let next = 0;
    const settled: ((problems: string[]) => void)[] = [];
    for (let i = 0; i < cases.length; i++)
      results.push(new Promise<string[]>((resolve) => settled.push(resolve)));
    const worker = async () => {
      while (next < cases.length) {
        const i = next++;
        const problems = await runGoldenCase(i, cases[i] as (typeof cases)[number]).catch(
          (err: unknown) => [`failed: ${(err as Error).message}`],
        );
        settled[i]?.(problems);
      }
    };
    for (let w = 0; w < 4; w++) void worker();
  });

  for (const [i, { c, response }] of cases.entries()) {
    it(`${c.name}: ${response.children.length} children applied by Metacontroller read back as applied`, async () => {
      expect(await results[i]).to.deep.equal([]);
    });
  }

  async function checkChild(parent: KubeObject, d: KubeObject): Promise<string[]> {
    const problems: string[] = [];
    const at = `${d.kind}/${d.metadata.name}`;
    const live = await kube().get(
      d.apiVersion,
      resourceOf(d),
      d.metadata.namespace,
      d.metadata.name,
    );
    if (live === undefined) return [`${at}: not created`];
    if (Object.hasOwn(live.metadata.annotations ?? {}, LAST_APPLIED_ANNOTATION))
      problems.push(`${at}: has a last-applied annotation`);
    if (canonicalJson(applyManagers(live)) !== canonicalJson([FIELD_MANAGER]))
      problems.push(`${at}: Apply managers ${applyManagers(live).join(", ")}`);
    problems.push(...(await keepDryRunChanges(kube(), parent, mc, d, FIELD_MANAGER)));
    // What the hook keeps is what it returned (quantities are already canonical).
    const projected = projectApplied(live, FIELD_MANAGER);
    if (canonicalJson(projected) !== canonicalJson(d))
      problems.push(
        `${at}: the projection differs from what the hook returned\n    returned  ${canonicalJson(d)}\n    projected ${canonicalJson(projected)}`,
      );
    return problems;
  }
});

describe("switching a running cluster from dynamic apply to server-side apply", function () {
  this.timeout(180_000);
  const kube = () => cluster().kube;
  const NS = "llsd-ssa-switch";
  const NAME = "llama";
  const POLICY = "llsd-test-no-retired-llamastack-images";
  let server: Server;
  let url: string;

  const spec = (release: string, provider = "vllm") => ({
    distribution: { name: "starter", release },
    providers: {
      inference: [
        {
          provider,
          endpoint: "http://vllm.example:8000/v1",
          apiKey: { secretKeyRef: { name: "vllm-creds", key: "token" } },
        },
      ],
    },
    resources: { models: [{ name: "llama3.2-8b" }] },
  });

  async function setSpec(next: unknown): Promise<void> {
    const parent = await kube().get(API_VERSION, RESOURCE, NS, NAME);
    if (parent === undefined) throw new Error("no parent");
    await kube().replace(API_VERSION, RESOURCE, { ...parent, spec: next });
  }

  async function children(): Promise<KubeObject[]> {
    const parent = await kube().get(API_VERSION, RESOURCE, NS, NAME);
    if (parent === undefined) throw new Error("no parent");
    return new Metacontroller(kube(), url).children(parent);
  }

  /**
   * kind/name → everything but status, resourceVersion and managedFields
   * (the Deployment controller keeps writing the status: no kubelet runs the pods).
   */
  async function snapshot(): Promise<Record<string, string>> {
    return Object.fromEntries(
      (await children()).map((c) => {
        const copy = structuredClone(c) as KubeObject & {
          status?: unknown;
          metadata: { managedFields?: unknown };
        };
        delete copy.status;
        delete copy.metadata.resourceVersion;
        delete copy.metadata.managedFields;
        return [`${c.kind}/${c.metadata.name}`, canonicalJson(copy)];
      }),
    );
  }

  /**
   * Waits until the Deployment controller has seen the Deployment's generation:
   * until then it may still write its revision annotation.
   */
  async function deploymentSettled(): Promise<void> {
    await waitFor("the Deployment controller to observe the Deployment", async () => {
      const d = (await kube().get("apps/v1", "deployments", NS, NAME)) as
        (KubeObject & { status?: { observedGeneration?: number } }) | undefined;
      const generation = (d?.metadata as { generation?: number } | undefined)?.generation;
      return d !== undefined && d.status?.observedGeneration === generation ? true : undefined;
    });
  }

  /** The round wrote no child. */
  function wroteNothing(round: SyncRound): void {
    expect(round.created, "created").to.deep.equal([]);
    expect(round.updated, "updated").to.deep.equal([]);
    expect(round.deleted, "deleted").to.deep.equal([]);
    expect(round.applied, "applied").to.deep.equal([]);
    expect(round.annotationRemoved, "annotationRemoved").to.deep.equal([]);
  }

  before(async () => {
    ({ server, url } = await serveHook(FIELD_MANAGER));
    await kube().mustCreate("v1", "namespaces", restrictedNamespace(NS));
    await kube().mustCreate("v1", "secrets", {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "vllm-creds", namespace: NS },
      stringData: { token: "sk-switch" },
    });
  });

  after(async () => {
    await new Promise((resolve) => server?.close(resolve));
    await kube().remove(
      "admissionregistration.k8s.io/v1",
      "validatingadmissionpolicybindings",
      undefined,
      POLICY,
    );
    await kube().remove(
      "admissionregistration.k8s.io/v1",
      "validatingadmissionpolicies",
      undefined,
      POLICY,
    );
    await kube().remove("v1", "namespaces", undefined, NS);
  });

  it("dynamic apply: every child carries the last-applied annotation and no Apply entry", async () => {
    await kube().mustCreate(API_VERSION, RESOURCE, {
      apiVersion: API_VERSION,
      kind: KIND,
      metadata: { name: NAME, namespace: NS },
      spec: spec("1.5.0"),
    });
    const dynamic = new Metacontroller(kube(), url, { applyStrategy: "dynamic-apply" });
    await dynamic.reconcile(NS, NAME);
    const kids = await children();
    expect(kids.map((c) => c.kind).sort()).to.deep.equal([
      "ConfigMap",
      "Deployment",
      "Service",
      "ServiceAccount",
    ]);
    for (const c of kids) {
      const at = `${c.kind}/${c.metadata.name}`;
      expect(c.metadata.annotations, at).to.have.property(LAST_APPLIED_ANNOTATION);
      expect(applyManagers(c), at).to.deep.equal([]);
      // Metacontroller's client-go User-Agent names its Update entries.
      expect(updateManagers(c), at).to.include(FIELD_MANAGER);
    }
  });

  it("the first server-side apply removes the annotation; when the API server then refuses the apply, the child has neither", async () => {
    // An admin blocks the retired docker.io/llamastack images (CEL admission,
    // on every create and update of a Deployment in the namespace) …
    await kube().mustCreate("admissionregistration.k8s.io/v1", "validatingadmissionpolicies", {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingAdmissionPolicy",
      metadata: { name: POLICY },
      spec: {
        failurePolicy: "Fail",
        matchConstraints: {
          resourceRules: [
            {
              apiGroups: ["apps"],
              apiVersions: ["v1"],
              operations: ["CREATE", "UPDATE"],
              resources: ["deployments"],
            },
          ],
        },
        validations: [
          {
            expression:
              "object.spec.template.spec.containers.all(c, !c.image.startsWith('docker.io/llamastack/'))",
            message: "docker.io/llamastack images are retired; mirror the image",
          },
        ],
      },
    });
    await kube().mustCreate(
      "admissionregistration.k8s.io/v1",
      "validatingadmissionpolicybindings",
      {
        apiVersion: "admissionregistration.k8s.io/v1",
        kind: "ValidatingAdmissionPolicyBinding",
        metadata: { name: POLICY },
        spec: {
          policyName: POLICY,
          validationActions: ["Deny"],
          matchResources: {
            namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": NS } },
          },
        },
      },
    );
    await waitFor("the admission policy to take effect", async () => {
      const res = await kube().create(
        "apps/v1",
        "deployments",
        {
          apiVersion: "apps/v1",
          kind: "Deployment",
          metadata: { name: "probe", namespace: NS },
          spec: {
            selector: { matchLabels: { a: "b" } },
            template: {
              metadata: { labels: { a: "b" } },
              spec: {
                containers: [
                  { name: "c", image: "docker.io/llamastack/distribution-starter:0.7.3" },
                ],
              },
            },
          },
        },
        { dryRun: "All" },
      );
      return res.status === 403 || res.status === 422 ? true : undefined;
    });
    // … a user pins the release whose image is one of them, and Metacontroller
    // is restarted with --apply-strategy=server-side-apply (an empty cache).
    await setSpec(spec("0.7.3"));
    const ssa = new Metacontroller(kube(), url, {
      applyStrategy: "server-side-apply",
      fieldManager: FIELD_MANAGER,
    });
    const round = (await ssa.sync(NS, NAME)) as SyncRound;
    expect(round.httpStatus).to.equal(200);
    const deployment = `Deployment/${NAME}`;
    expect(round.annotationRemoved).to.include.members([deployment, `Service/${NAME}-service`]);
    expect(round.errors).to.have.length(1);
    expect(round.errors[0]).to.match(
      new RegExp(`^apply ${deployment}: HTTP 4\\d\\d: .*docker\\.io/llamastack images are retired`),
    );
    expect(round.applied).not.to.include(deployment);
    for (const c of await children()) {
      const at = `${c.kind}/${c.metadata.name}`;
      expect(c.metadata.annotations ?? {}, at).not.to.have.property(LAST_APPLIED_ANNOTATION);
      expect(applyManagers(c), at).to.deep.equal(at === deployment ? [] : [FIELD_MANAGER]);
    }
  });

  it("while a child has neither, a sync that needs what was applied is a 409 naming it and the Apply managers found; nothing changes", async () => {
    // Someone annotates the Deployment with kubectl's server-side apply.
    const labelled = await kube().apply(
      "apps/v1",
      "deployments",
      {
        apiVersion: "apps/v1",
        kind: "Deployment",
        metadata: { name: NAME, namespace: NS, annotations: { "example.com/owner": "team-a" } },
      },
      { fieldManager: "kubectl" },
    );
    expect(labelled.status, JSON.stringify(labelled.body)).to.equal(200);
    await deploymentSettled();
    const kept = await snapshot();
    await setSpec(spec("0.7.3", "no-such-provider"));
    const ssa = new Metacontroller(kube(), url, {
      applyStrategy: "server-side-apply",
      fieldManager: FIELD_MANAGER,
    });
    const round = (await ssa.sync(NS, NAME)) as SyncRound;
    expect(round.httpStatus).to.equal(409);
    const message = JSON.stringify(round.body);
    expect(message).to.include(`Deployment ${NS}/${NAME}`);
    expect(message).to.include("kubectl");
    expect(message).to.include(FIELD_MANAGER);
    expect(message).to.include(LAST_APPLIED_ANNOTATION);
    wroteNothing(round);
    expect(round.statusWritten).to.equal(false);
    expect(changes(kept, await snapshot())).to.deep.equal([]);
  });

  it("once the apply goes through, an invalid edit keeps every child from its managed fields and changes nothing", async () => {
    const ssa = new Metacontroller(kube(), url, {
      applyStrategy: "server-side-apply",
      fieldManager: FIELD_MANAGER,
    });
    // The user moves back to a release whose image is allowed.
    await setSpec(spec("1.5.0"));
    await ssa.reconcile(NS, NAME);
    const live = await children();
    for (const c of live)
      expect(applyManagers(c), `${c.kind}/${c.metadata.name}`).to.include(FIELD_MANAGER);

    await deploymentSettled();
    const kept = await snapshot();
    await setSpec(spec("1.5.0", "no-such-provider"));
    const rounds = await ssa.reconcile(NS, NAME);
    const first = rounds[0] as SyncRound;
    expect(first.httpStatus).to.equal(200);
    // Equal to what was applied, so Metacontroller's cache does not even send an apply.
    rounds.forEach(wroteNothing);
    expect(changes(kept, await snapshot())).to.deep.equal([]);
    const returned = (first.body as { children: KubeObject[] }).children;
    const byId = (list: KubeObject[]) =>
      Object.fromEntries(list.map((c) => [`${c.kind}/${c.metadata.name}`, c]));
    const liveById = byId(await children());
    expect(Object.keys(byId(returned)).sort()).to.deep.equal(Object.keys(liveById).sort());
    for (const c of returned) {
      const at = `${c.kind}/${c.metadata.name}`;
      expect(canonicalJson(c), at).to.equal(
        canonicalJson(projectApplied(liveById[at] as KubeObject, FIELD_MANAGER)),
      );
      expect(c.metadata.annotations ?? {}, at).not.to.have.property("example.com/owner");
      expect(c.metadata.annotations ?? {}, at).not.to.have.property(LAST_APPLIED_ANNOTATION);
    }
    expect(
      (first.storedStatus as { phase?: string }).phase,
      JSON.stringify(first.storedStatus),
    ).to.equal("Failed");
  });
});

describe("server-side apply with a field manager other than the default", function () {
  // Metacontroller run with --apply-strategy-ssa-field-manager=metacontroller-blue.
  this.timeout(120_000);
  const kube = () => cluster().kube;
  const NS = "llsd-ssa-manager";
  const NAME = "llama";
  const MANAGER = "metacontroller-blue";
  const hooks: Server[] = [];
  let configured: string;
  let unconfigured: string;

  const spec = (provider: string) => ({
    distribution: { name: "starter" },
    providers: {
      inference: [
        {
          provider,
          endpoint: "http://vllm.example:8000/v1",
          apiKey: { secretKeyRef: { name: "vllm-creds", key: "token" } },
        },
      ],
    },
  });

  /** kind/name → resourceVersion; not the Deployment, whose status its controller keeps writing. */
  async function snapshot(): Promise<Record<string, string>> {
    const parent = await kube().get(API_VERSION, RESOURCE, NS, NAME);
    if (parent === undefined) throw new Error("no parent");
    return Object.fromEntries(
      (await new Metacontroller(kube(), configured).children(parent))
        .filter((c) => c.kind !== "Deployment")
        .map((c) => [`${c.kind}/${c.metadata.name}`, c.metadata.resourceVersion ?? ""]),
    );
  }

  before(async () => {
    const a = await serveHook(MANAGER);
    const b = await serveHook(undefined);
    hooks.push(a.server, b.server);
    configured = a.url;
    unconfigured = b.url;
    await kube().mustCreate("v1", "namespaces", restrictedNamespace(NS));
    await kube().mustCreate("v1", "secrets", {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "vllm-creds", namespace: NS },
      stringData: { token: "sk-blue" },
    });
    await kube().mustCreate(API_VERSION, RESOURCE, {
      apiVersion: API_VERSION,
      kind: KIND,
      metadata: { name: NAME, namespace: NS },
      spec: spec("vllm"),
    });
    await new Metacontroller(kube(), configured, {
      applyStrategy: "server-side-apply",
      fieldManager: MANAGER,
    }).reconcile(NS, NAME);
    const parent = (await kube().get(API_VERSION, RESOURCE, NS, NAME)) as KubeObject;
    for (const c of await new Metacontroller(kube(), configured).children(parent))
      expect(applyManagers(c), `${c.kind}/${c.metadata.name}`).to.deep.equal([MANAGER]);
    await kube().replace(API_VERSION, RESOURCE, { ...parent, spec: spec("no-such-provider") });
  });

  after(async () => {
    for (const s of hooks) await new Promise((resolve) => s.close(resolve));
    await kube().remove("v1", "namespaces", undefined, NS);
  });

  it("a hook left at the default manager answers an invalid edit with a 409 naming the manager it found", async () => {
    const kept = await snapshot();
    const round = (await new Metacontroller(kube(), unconfigured, {
      applyStrategy: "server-side-apply",
      fieldManager: MANAGER,
    }).sync(NS, NAME)) as SyncRound;
    expect(round.httpStatus).to.equal(409);
    const message = JSON.stringify(round.body);
    expect(message).to.include(MANAGER);
    expect(message).to.include("SSA_FIELD_MANAGER");
    expect(changes(kept, await snapshot())).to.deep.equal([]);
  });

  it("a hook given the same manager keeps every child and changes nothing", async () => {
    const kept = await snapshot();
    const rounds = await new Metacontroller(kube(), configured, {
      applyStrategy: "server-side-apply",
      fieldManager: MANAGER,
    }).reconcile(NS, NAME);
    expect((rounds[0] as SyncRound).httpStatus).to.equal(200);
    expect(rounds.flatMap((r) => [...r.created, ...r.updated, ...r.deleted])).to.deep.equal([]);
    expect(changes(kept, await snapshot())).to.deep.equal([]);
    expect((rounds[0]?.storedStatus as { phase?: string }).phase).to.equal("Failed");
  });
});

describe("switching a running cluster back from server-side apply to dynamic apply", function () {
  // Metacontroller restarted with the default --apply-strategy=dynamic-apply
  // after running with server-side apply: its Apply entries stay on the
  // children, and each dynamic-apply PUT that changes a field moves that field
  // from the Apply entry to its Update entry.
  this.timeout(180_000);
  const kube = () => cluster().kube;
  const NAME = "llama";
  let server: Server;
  let url: string;
  const namespaces: string[] = [];

  const spec = (opts: { endpoint: string; cpu: string; provider?: string }) => ({
    distribution: { name: "starter" },
    providers: {
      inference: [
        {
          provider: opts.provider ?? "vllm",
          endpoint: opts.endpoint,
          apiKey: { secretKeyRef: { name: "vllm-creds", key: "token" } },
        },
      ],
    },
    resources: { models: [{ name: "llama3.2-8b" }] },
    workload: { resources: { requests: { cpu: opts.cpu } } },
  });

  before(async () => {
    ({ server, url } = await serveHook(FIELD_MANAGER));
  });

  after(async () => {
    await new Promise((resolve) => server?.close(resolve));
    for (const ns of namespaces) await kube().remove("v1", "namespaces", undefined, ns);
  });

  /**
   * Runs under server-side apply, switches to dynamic apply, changes the spec
   * (still valid) and then makes it invalid; returns what the invalid edit did.
   */
  async function switchBack(
    ns: string,
    first: Parameters<typeof spec>[0],
    second: Parameters<typeof spec>[0],
  ): Promise<{ errors: string[]; before: KubeObject; after: KubeObject }> {
    namespaces.push(ns);
    await kube().mustCreate("v1", "namespaces", restrictedNamespace(ns));
    await kube().mustCreate("v1", "secrets", {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "vllm-creds", namespace: ns },
      stringData: { token: "sk-switch-back" },
    });
    const setSpec = async (next: unknown) => {
      const parent = await kube().get(API_VERSION, RESOURCE, ns, NAME);
      if (parent === undefined) throw new Error("no parent");
      await kube().replace(API_VERSION, RESOURCE, { ...parent, spec: next });
    };
    await kube().mustCreate(API_VERSION, RESOURCE, {
      apiVersion: API_VERSION,
      kind: KIND,
      metadata: { name: NAME, namespace: ns },
      spec: spec(first),
    });
    await new Metacontroller(kube(), url, {
      applyStrategy: "server-side-apply",
      fieldManager: FIELD_MANAGER,
    }).reconcile(ns, NAME);
    const dynamic = new Metacontroller(kube(), url, { applyStrategy: "dynamic-apply" });
    await dynamic.reconcile(ns, NAME);
    await setSpec(spec(second));
    await dynamic.reconcile(ns, NAME);
    const before = (await kube().get("apps/v1", "deployments", ns, NAME)) as KubeObject;
    await setSpec(spec({ ...second, provider: "no-such-provider" }));
    const rounds = await dynamic.reconcile(ns, NAME, { tolerateErrors: true });
    const after = (await kube().get("apps/v1", "deployments", ns, NAME)) as KubeObject;
    return { errors: [...new Set(rounds.flatMap((r) => r.errors))], before, after };
  }

  const generation = (o: KubeObject) => (o.metadata as { generation?: number }).generation;
  const template = (o: KubeObject) =>
    canonicalJson((o as { spec?: { template?: unknown } }).spec?.template);

  it("after a resources change under dynamic apply, an invalid edit leaves the Deployment as it runs", async () => {
    const endpoint = "http://vllm-1.example:8000/v1";
    const { errors, before, after } = await switchBack(
      "llsd-ssa-back-resources",
      { endpoint, cpu: "1" },
      { endpoint, cpu: "2" },
    );
    expect(errors, "Metacontroller's writes").to.deep.equal([]);
    expect(generation(after), "the Deployment's generation").to.equal(generation(before));
    expect(template(after), "the pod template").to.equal(template(before));
  });

  it("after a provider change under dynamic apply, an invalid edit leaves the Deployment as it runs", async () => {
    const { errors, before, after } = await switchBack(
      "llsd-ssa-back-provider",
      { endpoint: "http://vllm-1.example:8000/v1", cpu: "1" },
      { endpoint: "http://vllm-2.example:8000/v1", cpu: "1" },
    );
    expect(errors, "Metacontroller's writes").to.deep.equal([]);
    expect(generation(after), "the Deployment's generation").to.equal(generation(before));
    expect(template(after), "the pod template").to.equal(template(before));
  });
});
