// scripts/migrate-stored-versions.sh on the suite's kube-apiserver, run by sh
// with the suite's kubectl, as docs/conversion.md ("Stored versions") says: a
// cluster that still holds the retired operator's CRD (v1alpha1 only, served
// and stored) and its objects, in two namespaces, takes our CRD with the
// v1alpha1 component (storage v1alpha2, the suite's hook over HTTPS converting);
// the script then rewrites every object and drops v1alpha1 from
// status.storedVersions. What is stored is read straight from etcd, and with
// the hook stopped afterwards, reads at v1alpha2 still work while reads at
// v1alpha1 fail. The refusals are run too. The CRD is cluster-scoped and
// shared by the suite: it is deleted for the retired operator's, and the
// suite's own is installed again afterwards (setup.ts's installCrd).
import { expect } from "chai";
import type { ChildProcess } from "node:child_process";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { isDeepStrictEqual } from "node:util";
import { join } from "node:path";
import { parse } from "yaml";
import type { KubeObject } from "../../src/api/hook.js";
import { CONVERSION_PATCH_FILE, CRD_FILE } from "../../src/api/crd-file.js";
import { kubectl } from "../support/tools.js";
import { freePort } from "../net.js";
import {
  CRD_API,
  CRDS,
  crdWithConversion,
  makeCertificates,
  putCrd,
  root,
  startHook,
  type Crd,
} from "./conversion-hook.js";
import { waitFor } from "./kube.js";
import { cluster, installCrd } from "./setup.js";

const SCRIPT = join(root, "scripts", "migrate-stored-versions.sh");
const CRD_NAME = "llamastackdistributions.llamastack.io";
const RESOURCE = "llamastackdistributions";
const V1 = "llamastack.io/v1alpha1";
const V2 = "llamastack.io/v1alpha2";
const NS = "llsd-migrate";
const OTHER_NS = "llsd-migrate-other";

/** The retired operator's objects, written at v1alpha1. */
const OBJECTS: { namespace: string; name: string; spec: Record<string, unknown> }[] = [
  {
    namespace: NS,
    name: "starter",
    spec: {
      server: {
        distribution: { name: "starter" },
        containerSpec: { port: 8321, env: [{ name: "INFERENCE_MODEL", value: "llama3.2:1b" }] },
        storage: { size: "20Gi", mountPath: "/.llama" },
      },
      network: { exposeRoute: false, allowedFrom: { namespaces: ["clients"] } },
    },
  },
  {
    namespace: NS,
    name: "pinned-image",
    spec: {
      replicas: 2,
      server: {
        distribution: { image: "docker.io/llamastack/distribution-starter:0.7.3" },
        podDisruptionBudget: { minAvailable: 1 },
      },
    },
  },
  {
    namespace: OTHER_NS,
    name: "forked",
    // A fork's own field: the v1alpha1 schema keeps it, the annotation carries it.
    spec: { server: { distribution: { name: "starter" }, forkExtension: { level: 3 } } },
  },
];
/** Created with a finalizer and deleted: the script skips it while it is being deleted. */
const LEAVING = { namespace: NS, name: "leaving", finalizer: "llsd-test/hold" };

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

const describeRun = (run: Run) =>
  `exit ${run.status}\nstdout:\n${run.stdout}\nstderr:\n${run.stderr}`;

function baseCrd(): Crd {
  return parse(readFileSync(join(root, CRD_FILE), "utf8")) as Crd;
}

/** The component's v1alpha1 version, as `npm run crd` generates it. */
function v1alpha1Version(): Record<string, unknown> {
  const patch = parse(readFileSync(join(root, CONVERSION_PATCH_FILE), "utf8")) as {
    path: string;
    value: Record<string, unknown>;
  }[];
  const version = patch.find((op) => op.path === "/spec/versions/-")?.value;
  if (version === undefined) throw new Error(`${CONVERSION_PATCH_FILE} adds no version`);
  return version;
}

/** The CRD as the retired operator installed it: v1alpha1 only, served and stored. */
function retiredCrd(): Crd {
  const base = baseCrd();
  const version = Object.fromEntries(
    Object.entries(v1alpha1Version()).filter(([k]) => !k.startsWith("deprecat")),
  );
  return {
    apiVersion: base.apiVersion,
    kind: base.kind,
    metadata: { name: CRD_NAME },
    spec: { ...base.spec, versions: [{ ...version, storage: true }] },
  };
}

async function getCrd(): Promise<(Crd & { status?: { storedVersions?: string[] } }) | undefined> {
  return (await cluster().kube.get(CRD_API, CRDS, undefined, CRD_NAME)) as
    (Crd & { status?: { storedVersions?: string[] } }) | undefined;
}

async function storedVersions(): Promise<string[] | undefined> {
  return (await getCrd())?.status?.storedVersions;
}

/** The apiVersion an object is stored at, read from etcd (its JSON gateway), not through the API. */
async function storedAt(namespace: string, name: string): Promise<string | undefined> {
  const key = Buffer.from(`/registry/llamastack.io/${RESOURCE}/${namespace}/${name}`);
  const res = await fetch(`${cluster().etcd}/v3/kv/range`, {
    method: "POST",
    body: JSON.stringify({ key: key.toString("base64") }),
  });
  const body = (await res.json()) as { kvs?: { value: string }[] };
  const value = body.kvs?.[0]?.value;
  if (value === undefined) return undefined;
  return (JSON.parse(Buffer.from(value, "base64").toString("utf8")) as KubeObject).apiVersion;
}

async function storedAtAll(): Promise<(string | undefined)[]> {
  return Promise.all(OBJECTS.map((o) => storedAt(o.namespace, o.name)));
}

/** GET at `apiVersion`: the status code and the object or the API server's message. */
async function read(apiVersion: string, namespace: string, name: string) {
  const res = await cluster().kube.request<Crd & { message?: string }>({
    method: "GET",
    path: `/apis/${apiVersion}/namespaces/${namespace}/${RESOURCE}/${name}`,
  });
  return { status: res.status, body: res.body };
}

/** A server-side dry run of creating `spec` at v1alpha2: what a new object would get. */
async function dryRunCreate(namespace: string, spec: unknown) {
  return cluster().kube.create(
    V2,
    RESOURCE,
    {
      apiVersion: V2,
      kind: "LlamaStackDistribution",
      metadata: { name: "probe", namespace },
      spec,
    },
    { dryRun: "All" },
  );
}

/** The spec a write at v1alpha2 stores: its schema defaults added (starter's storage lacks accessMode). */
function withWriteDefaults(name: string, spec: unknown): unknown {
  if (name !== "starter") return spec;
  const s = structuredClone(spec) as { workload: { storage: Record<string, unknown> } };
  s.workload.storage["accessMode"] = "ReadWriteOnce";
  return s;
}

async function waitEstablished(): Promise<void> {
  await waitFor(
    "the CRD to be established",
    async () => {
      const crd = (await getCrd()) as
        (Crd & { status?: { conditions?: { type: string; status: string }[] } }) | undefined;
      return crd?.status?.conditions?.some((c) => c.type === "Established" && c.status === "True")
        ? true
        : undefined;
    },
    60_000,
  );
}

async function deleteCrd(): Promise<void> {
  await cluster().kube.remove(CRD_API, CRDS, undefined, CRD_NAME);
  await waitFor(
    "the CRD to be gone",
    async () => ((await getCrd()) === undefined ? true : undefined),
    60_000,
  );
}

describe("stored versions: scripts/migrate-stored-versions.sh on a real kube-apiserver", function () {
  this.timeout(180_000);
  let dir = "";
  let env: Record<string, string> = {};
  let hook: { proc: ChildProcess; log: () => string } | undefined;
  let hookUrl = "";
  /** Each object read at both versions once the webhook converts, before the migration. */
  const readBefore = new Map<string, { v1: Crd; v2: Crd }>();

  const script = (...args: string[]): Run => {
    const r = spawnSync("sh", [SCRIPT, ...args], {
      cwd: root,
      stdio: ["ignore", "pipe", "pipe"],
      env,
      encoding: "utf8",
      timeout: 120_000,
    });
    return { status: r.status, stdout: r.stdout, stderr: r.stderr };
  };

  before(async () => {
    const kube = cluster().kube;
    // Deleting the CRD deletes its objects: wait for those of other tests to go (those in a
    // namespace another test deleted go with it), and fail, naming them, if some stay.
    // Retried too: right after the CRD is installed, its storage may still answer 429.
    let left: KubeObject[] = [];
    await waitFor(
      "the other tests' LlamaStackDistributions to go",
      async () => {
        left = await kube.list(V2, RESOURCE);
        return left.length === 0 ? true : undefined;
      },
      90_000,
    ).catch((err: unknown) => {
      const names = left.map((o) => `${o.metadata.namespace}/${o.metadata.name}`).join(", ");
      throw new Error(
        `the suite's CRD still holds ${names}: this test deletes the CRD, which would delete them; the test that made them must remove them`,
        { cause: err },
      );
    });
    dir = mkdtempSync(join(tmpdir(), "llsd-migrate-"));
    // Only our kubectl on PATH beside the system tools; a HOME of its own (no ~/.kube).
    mkdirSync(join(dir, "bin"));
    mkdirSync(join(dir, "home"));
    symlinkSync(kubectl(), join(dir, "bin", "kubectl"));
    env = {
      PATH: `${join(dir, "bin")}:/usr/bin:/bin`,
      HOME: join(dir, "home"),
      KUBECONFIG: cluster().kubeconfig,
    };
    makeCertificates(dir);
    const apiServerPort = await freePort();
    hookUrl = `https://127.0.0.1:${apiServerPort}/convert`;
    hook = startHook(dir, { port: await freePort(), apiServerPort, metricsPort: await freePort() });
    const started = hook;
    await waitFor(
      "the hook to listen",
      async () =>
        started.log().includes("llsd-hook listening for the API server") ? true : undefined,
      60_000,
    );
    for (const name of [NS, OTHER_NS]) {
      const ns = { apiVersion: "v1", kind: "Namespace", metadata: { name } };
      await kube.apply("v1", "namespaces", ns, { fieldManager: "llsd-test", force: true });
    }
  });

  after(async () => {
    const kube = cluster().kube;
    // Best effort: with the test failed halfway, some of these may not read.
    await kube
      .patch(
        V2,
        RESOURCE,
        LEAVING.namespace,
        LEAVING.name,
        { metadata: { finalizers: null } },
        "application/merge-patch+json",
      )
      .catch(() => undefined);
    hook?.proc.kill("SIGTERM");
    if ((await getCrd()) !== undefined) await deleteCrd();
    await installCrd(cluster());
    for (const name of [NS, OTHER_NS]) await kube.remove("v1", "namespaces", undefined, name);
    rmSync(dir, { recursive: true, force: true });
  });

  it("refuses when the CRD is not installed", async () => {
    await deleteCrd();
    const run = script();
    expect(run.status, describeRun(run)).to.equal(1);
    expect(run.stderr).to.include(
      `migrate-stored-versions: the CRD ${CRD_NAME} is not installed: check KUBECONFIG points at the cluster`,
    );
  });

  it("refuses on the retired operator's CRD, which stores v1alpha1", async () => {
    const kube = cluster().kube;
    await kube.mustCreate(CRD_API, CRDS, retiredCrd());
    await waitEstablished();
    const created = (namespace: string, name: string, spec: unknown, finalizers?: string[]) =>
      waitFor(
        `${namespace}/${name} to be created at v1alpha1`,
        async () => {
          const res = await kube.create(V1, RESOURCE, {
            apiVersion: V1,
            kind: "LlamaStackDistribution",
            metadata: { name, namespace, ...(finalizers === undefined ? {} : { finalizers }) },
            spec,
          });
          return res.status === 201 ? true : undefined;
        },
        60_000,
      );
    for (const o of OBJECTS) await created(o.namespace, o.name, o.spec);
    await created(LEAVING.namespace, LEAVING.name, OBJECTS[2]!.spec, [LEAVING.finalizer]);
    await kube.remove(V1, RESOURCE, LEAVING.namespace, LEAVING.name);
    expect(await storedVersions()).to.deep.equal(["v1alpha1"]);
    expect(await storedAtAll()).to.deep.equal([V1, V1, V1]);

    const run = script();
    expect(run.status, describeRun(run)).to.equal(1);
    expect(run.stderr).to.include(
      `the CRD ${CRD_NAME} stores objects as v1alpha1, not v1alpha2: install llsd-hook with the v1alpha1 component (kubectl apply --server-side -k examples/v1alpha1-conversion) first`,
    );
  });

  it("refuses while v1alpha1 is stored and the CRD converts by None, not by the webhook", async () => {
    const base = baseCrd();
    await putCrd({
      ...base.spec,
      versions: [...(base.spec["versions"] as unknown[]), v1alpha1Version()],
      conversion: { strategy: "None" },
    });
    expect(await storedVersions()).to.deep.equal(["v1alpha1", "v1alpha2"]);
    for (const args of [[], ["--dry-run"]]) {
      const run = script(...args);
      expect(run.status, describeRun(run)).to.equal(1);
      expect(run.stderr).to.include(
        `the CRD ${CRD_NAME} has stored versions [v1alpha1 v1alpha2] but its conversion strategy is None, not Webhook: objects stored as v1alpha1 would be read as v1alpha2 unconverted, and rewriting them would lose their fields. Install the v1alpha1 component`,
      );
    }
    expect(await storedAtAll()).to.deep.equal([V1, V1, V1]);
  });

  it("with the webhook, the objects stored as v1alpha1 read as v1alpha2, converted by the hook", async () => {
    const ca = readFileSync(join(dir, "ca.crt"));
    await putCrd(crdWithConversion(baseCrd(), hookUrl, ca).spec);
    expect(await storedVersions()).to.deep.equal(["v1alpha1", "v1alpha2"]);
    for (const o of OBJECTS) {
      // The API server takes up the new strategy a moment after the write: until then a read
      // at v1alpha2 is converted by None (apiVersion rewritten, the v1alpha1 spec kept).
      // Converted by the hook, the spec has v1alpha2's distribution and no v1alpha1 server.
      const v2 = await waitFor(
        `${o.namespace}/${o.name} to read as v1alpha2, converted by the hook`,
        async () => {
          const r = await read(V2, o.namespace, o.name);
          const converted =
            r.status === 200 &&
            r.body.apiVersion === V2 &&
            r.body.spec["distribution"] !== undefined &&
            r.body.spec["server"] === undefined;
          return converted ? r.body : undefined;
        },
        60_000,
      );
      expect(v2.spec["distribution"], o.name).to.deep.include({ release: "0.7.3" });
      const v1 = await read(V1, o.namespace, o.name);
      expect(v1.status).to.equal(200);
      readBefore.set(`${o.namespace}/${o.name}`, { v1: v1.body, v2 });
    }
    expect(hook?.log()).to.match(/"path":"\/convert","status":200/);
  });

  it("--dry-run lists every object and changes nothing", async () => {
    const run = script("--dry-run");
    expect(run.status, describeRun(run)).to.equal(0);
    expect(run.stdout.split("\n").sort()).to.include.members([
      `would rewrite ${NS}/pinned-image`,
      `would rewrite ${NS}/starter`,
      `would rewrite ${OTHER_NS}/forked`,
    ]);
    expect(run.stdout).to.match(/^skipped llsd-migrate\/leaving: being deleted since /m);
    expect(run.stdout).to.include(
      "migrate-stored-versions: dry run: would rewrite 3 of 4 objects, then set status.storedVersions from [v1alpha1 v1alpha2] to [v1alpha2]",
    );
    expect(await storedAtAll()).to.deep.equal([V1, V1, V1]);
    expect(await storedVersions()).to.deep.equal(["v1alpha1", "v1alpha2"]);
  });

  it("rewrites the others but keeps v1alpha1 stored while an object is being deleted", async () => {
    const run = script();
    expect(run.status, describeRun(run)).to.equal(1);
    expect(run.stdout).to.match(/^skipped llsd-migrate\/leaving: being deleted since /m);
    expect(run.stderr).to.include(
      "migrate-stored-versions: 1 of 4 objects were not rewritten (above): status.storedVersions stays [v1alpha1 v1alpha2]; fix them, or wait for those being deleted to go, and run again",
    );
    expect(await storedVersions()).to.deep.equal(["v1alpha1", "v1alpha2"]);
    expect(await storedAtAll()).to.deep.equal([V2, V2, V2]);
    expect(await storedAt(LEAVING.namespace, LEAVING.name)).to.equal(V1);
    // Its finalizer removed (a write through the webhook), it goes.
    const res = await cluster().kube.patch(
      V2,
      RESOURCE,
      LEAVING.namespace,
      LEAVING.name,
      { metadata: { finalizers: null } },
      "application/merge-patch+json",
    );
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    await waitFor("the deleted object to go", async () =>
      (await read(V2, LEAVING.namespace, LEAVING.name)).status === 404 ? true : undefined,
    );
  });

  it("migrates: every object stored as v1alpha2, storedVersions [v1alpha2], specs as before", async () => {
    const run = script();
    expect(run.status, describeRun(run)).to.equal(0);
    expect(run.stdout.split("\n").sort()).to.include.members([
      `rewrote ${NS}/pinned-image`,
      `rewrote ${NS}/starter`,
      `rewrote ${OTHER_NS}/forked`,
    ]);
    expect(run.stdout).to.include(
      'migrate-stored-versions: rewrote 3 objects; status.storedVersions: ["v1alpha2"]',
    );
    expect(await storedVersions()).to.deep.equal(["v1alpha2"]);
    expect(await storedAtAll()).to.deep.equal([V2, V2, V2]);
    for (const o of OBJECTS) {
      const was = readBefore.get(`${o.namespace}/${o.name}`)!;
      const v2 = (await read(V2, o.namespace, o.name)).body;
      // Written at v1alpha2, the spec gains v1alpha2's schema defaults, and only then does
      // its generation move (Metacontroller syncs it once; the hook's zod has the same defaults).
      const expected = withWriteDefaults(o.name, was.v2.spec);
      expect(v2.spec, o.name).to.deep.equal(expected);
      const changed = !isDeepStrictEqual(expected, was.v2.spec);
      expect(v2.metadata.generation, o.name).to.equal((was.v2.metadata.generation ?? 0) + +changed);
      expect((await read(V1, o.namespace, o.name)).body.spec, o.name).to.deep.equal(was.v1.spec);
    }
    // pinned-image (two replicas on SQLite) is one v1alpha2's rules refuse: rewritten unchanged
    // all the same, since the API server's validation ratcheting passes values a write keeps.
    const pinned = readBefore.get(`${NS}/pinned-image`)!.v2.spec;
    const refused = await dryRunCreate(NS, pinned);
    expect(refused.status, JSON.stringify(refused.body)).to.equal(422);
  });

  it("with the hook stopped, v1alpha2 reads still work, v1alpha1 reads fail, and a second run is a no-op", async () => {
    const proc = hook?.proc;
    const exited = new Promise((resolve) => proc?.once("exit", resolve));
    proc?.kill("SIGTERM");
    await exited;
    for (const o of OBJECTS) {
      const v2 = await read(V2, o.namespace, o.name);
      expect(v2.status, `${o.name} at v1alpha2`).to.equal(200);
      expect(v2.body.apiVersion).to.equal(V2);
      const v1 = await read(V1, o.namespace, o.name);
      expect(v1.status, `${o.name} at v1alpha1`).to.equal(500);
      expect(v1.body.message).to.include("conversion webhook for llamastack.io/v1alpha2");
    }
    const run = script();
    expect(run.status, describeRun(run)).to.equal(0);
    expect(run.stdout).to.equal(
      "migrate-stored-versions: status.storedVersions is already [v1alpha2]: nothing to migrate\n",
    );
    expect(await storedVersions()).to.deep.equal(["v1alpha2"]);
  });
});
