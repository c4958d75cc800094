// Faults, on the real control plane, with the hook as a process of its own
// (src/server/main.ts) and the stand-in Metacontroller (metacontroller.ts),
// once with each apply strategy:
//   1. a wave of new parents, the hook killed with SIGKILL partway through the
//      stand-in's syncs, and started again: a sync whose hook call fails
//      changes nothing and is retried, as Metacontroller requeues it;
//   2. a rollout of half the fleet (a provider edit), the stand-in restarted
//      (a new Metacontroller: its server-side apply cache empty) before the
//      new pods are ready.
// After each: no child lost (every child there before the fault is there
// after, with its UID, but the ConfigMap a finished rollout replaced), no
// server pod rolled that should not (each Deployment's ReplicaSets, by
// pod-template-hash: one for a parent not edited, the old and exactly one new
// for an edited one), and the fleet converges: every parent Ready, a further
// sync changing nothing. Bounded by work, not time: each parent gets at most
// MAX_ATTEMPTS syncs; the figures (parents, attempts, retries, seconds to
// converge) are printed, never asserted.
import { expect } from "chai";
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import type { KubeObject } from "../../src/api/hook.js";
import { API_VERSION, KIND } from "../../src/api/schema.js";
import { freePort } from "../net.js";
import { restrictedNamespace, waitFor } from "./kube.js";
import { Metacontroller, type ApplyStrategy } from "./metacontroller.js";
import { markPodsReady, waitRolledOut } from "./pods.js";
import { cluster } from "./setup.js";

const root = join(import.meta.dirname, "..", "..");
const RESOURCE = "llamastackdistributions";
const PARENTS = 10;
/** Sync attempts a parent may take to converge, failed ones included: the bound on work. */
const MAX_ATTEMPTS = 40;
/** Concurrent syncs, as Metacontroller's workers run them. */
const WORKERS = 4;
const SELECTOR = "app.kubernetes.io/name=llama-stack";

const spec = (endpoint: string) => ({
  distribution: { name: "starter" },
  providers: { inference: [{ provider: "vllm", endpoint }] },
});

/** The hook, started as its image starts it (src/server/main.ts), on a fixed port. */
class HookProcess {
  private proc: ChildProcess | undefined;
  log = "";
  constructor(
    readonly port: number,
    private readonly metricsPort: number,
    private readonly apiServerPort: number,
  ) {}

  async start(): Promise<void> {
    const proc = spawn(process.execPath, ["--import", "tsx", "src/server/main.ts"], {
      cwd: root,
      env: {
        PATH: process.env["PATH"] ?? "",
        PORT: String(this.port),
        METRICS_PORT: String(this.metricsPort),
        API_SERVER_PORT: String(this.apiServerPort),
        LOG_LEVEL: "warn",
        SHUTDOWN_DELAY_SECONDS: "0",
      },
    });
    proc.stdout.on("data", (b: Buffer) => (this.log += b.toString()));
    proc.stderr.on("data", (b: Buffer) => (this.log += b.toString()));
    this.proc = proc;
    await waitFor(
      "the hook to answer /readyz",
      async () => {
        const res = await fetch(`http://127.0.0.1:${this.port}/readyz`).catch(() => undefined);
        return res?.status === 200 ? true : undefined;
      },
      120_000,
    ).catch((err: Error) => {
      throw new Error(`${err.message}\nthe hook's log:\n${this.log}`);
    });
  }

  /** SIGKILL: no shutdown delay, no request finished. */
  async kill(): Promise<void> {
    const proc = this.proc;
    if (proc === undefined || proc.exitCode !== null) return;
    const exited = new Promise((resolve) => proc.once("exit", resolve));
    proc.kill("SIGKILL");
    await exited;
  }
}

interface Figures {
  attempts: number;
  failed: number;
  errors: Set<string>;
}

/**
 * Reconciles every parent, WORKERS at a time: a sync that throws (the hook
 * unreachable, or answering 503) is retried after the others, as a requeue.
 * `during(figures)` runs after each attempt (to inject the fault). Fails when
 * a parent needs more than MAX_ATTEMPTS.
 */
async function converge(
  mc: () => Metacontroller,
  namespace: string,
  names: readonly string[],
  during: (f: Figures) => Promise<void> = async () => {},
): Promise<Figures> {
  const figures: Figures = { attempts: 0, failed: 0, errors: new Set() };
  const attempts = new Map<string, number>();
  const queue = [...names];
  const work = async () => {
    for (let name = queue.shift(); name !== undefined; name = queue.shift()) {
      const n = (attempts.get(name) ?? 0) + 1;
      attempts.set(name, n);
      if (n > MAX_ATTEMPTS)
        throw new Error(`${name} did not converge in ${MAX_ATTEMPTS} sync attempts`);
      figures.attempts++;
      try {
        const rounds = await mc().reconcile(namespace, name, { maxRounds: 8 });
        const status = rounds.at(-1)?.httpStatus;
        // A sync the hook did not answer 200 changed nothing, and is requeued.
        if (status !== 200) throw new Error(`/sync answered ${status ?? "nothing"}`);
      } catch (err) {
        figures.failed++;
        figures.errors.add((err as Error).message.split("\n")[0]?.slice(0, 80) ?? "");
        queue.push(name);
        // Metacontroller's rate limiter waits before a requeued key: 5 ms, doubling
        // (up to 1000 s there; 5 s here, so a parent's MAX_ATTEMPTS last minutes).
        await new Promise((r) => setTimeout(r, Math.min(5_000, 5 * 2 ** n)));
      }
      await during(figures);
    }
  };
  await Promise.all(Array.from({ length: WORKERS }, work));
  return figures;
}

for (const strategy of ["dynamic-apply", "server-side-apply"] as ApplyStrategy[]) {
  const NS = `llsd-faults-${strategy === "dynamic-apply" ? "dynamic" : "ssa"}`;

  describe(`faults, with --apply-strategy=${strategy}: the hook killed, the stand-in restarted`, function () {
    this.timeout(600_000);
    const kube = () => cluster().kube;
    let hook: HookProcess;
    let mc: Metacontroller;
    const names = Array.from({ length: PARENTS }, (_, i) => `wave-${String(i).padStart(2, "0")}`);
    const hookUrl = () => `http://127.0.0.1:${hook.port}`;
    const newMetacontroller = () =>
      new Metacontroller(kube(), hookUrl(), { applyStrategy: strategy });

    /** kind/name → UID of each parent's children. */
    async function childUids(): Promise<Map<string, Map<string, string>>> {
      const out = new Map<string, Map<string, string>>();
      for (const name of names) {
        const parent = await kube().get(API_VERSION, RESOURCE, NS, name);
        if (parent === undefined) throw new Error(`no parent ${name}`);
        const children = await mc.children(parent);
        out.set(
          name,
          new Map(children.map((c) => [`${c.kind}/${c.metadata.name}`, c.metadata.uid ?? ""])),
        );
      }
      return out;
    }

    /** Each Deployment's ReplicaSets, by pod-template-hash. */
    async function templateHashes(): Promise<Map<string, string[]>> {
      const sets = await kube().list("apps/v1", "replicasets", NS, SELECTOR);
      const out = new Map<string, string[]>(names.map((n) => [n, []]));
      for (const rs of sets) {
        const refs = (rs.metadata as { ownerReferences?: { kind: string; name: string }[] })
          .ownerReferences;
        const owner = refs?.find((o) => o.kind === "Deployment")?.name;
        const hash = rs.metadata.labels?.["pod-template-hash"];
        if (owner !== undefined && hash !== undefined) out.get(owner)?.push(hash);
      }
      for (const list of out.values()) list.sort();
      return out;
    }

    /** Pods ready, every Deployment rolled out, every parent synced until nothing changes; all Ready. */
    async function settle(): Promise<void> {
      await markPodsReady(kube(), NS, SELECTOR);
      for (const name of names)
        await waitRolledOut(kube(), NS, name, `app.kubernetes.io/instance=${name}`);
      await converge(() => mc, NS, names);
      for (const name of names) {
        const parent = (await kube().get(API_VERSION, RESOURCE, NS, name)) as
          | (KubeObject & { status?: { conditions?: { type: string; status: string }[] } })
          | undefined;
        const ready = parent?.status?.conditions?.find((c) => c.type === "Ready");
        expect(ready?.status, `${name} Ready`).to.equal("True");
        const again = await mc.sync(NS, name);
        expect(again?.created.concat(again.updated, again.deleted), name).to.deep.equal([]);
        expect(again?.statusWritten, name).to.equal(false);
      }
    }

    before(async () => {
      hook = new HookProcess(await freePort(), await freePort(), await freePort());
      await hook.start();
      mc = newMetacontroller();
      await kube().mustCreate("v1", "namespaces", restrictedNamespace(NS));
    });

    // The stored-versions test deletes the CRD last and needs every other test's objects gone.
    after(async () => {
      await hook?.kill();
      for (const name of names) await kube().remove(API_VERSION, RESOURCE, NS, name);
      await kube().remove("v1", "namespaces", undefined, NS);
    });

    it(`a wave of ${PARENTS} parents, the hook SIGKILLed partway and started again: every parent converges, nothing lost or rolled twice`, async () => {
      const started = Date.now();
      for (const name of names)
        await kube().mustCreate(API_VERSION, RESOURCE, {
          apiVersion: API_VERSION,
          kind: KIND,
          metadata: { name, namespace: NS },
          spec: spec("http://vllm:8000/v1"),
        });
      let killed = false;
      let restarted = false;
      let before: Map<string, Map<string, string>> | undefined;
      let beforeHashes: Map<string, string[]> | undefined;
      // The fault goes by work done: the hook is killed once a third of the wave
      // has synced (the rest queued or in flight), and started again once the
      // stand-in has met it dead three times.
      const figures = await converge(
        () => mc,
        NS,
        names,
        async (f) => {
          if (!killed && f.attempts - f.failed >= Math.ceil(PARENTS / 3)) {
            killed = true;
            await hook.kill();
            // What was written before the fault (a sync in flight may still finish its writes).
            before = await childUids();
            beforeHashes = await templateHashes();
          } else if (killed && !restarted && f.failed >= 3) {
            restarted = true;
            await hook.start();
          }
        },
      );
      const seconds = (Date.now() - started) / 1000;
      expect([killed, restarted], "the hook killed mid-wave, then started again").to.deep.equal([
        true,
        true,
      ]);
      expect(figures.failed, "syncs met the dead hook").to.be.greaterThan(0);
      console.log(
        `      faults (${strategy}): ${PARENTS} parents; ${figures.attempts} sync attempts, ${figures.failed} failed (retried): ${[...figures.errors].join(" | ")}; converged in ${seconds.toFixed(1)} s`,
      );

      const after = await childUids();
      for (const name of names) {
        const kinds = [...(after.get(name)?.keys() ?? [])].map((k) => k.split("/")[0]).sort();
        expect(kinds, name).to.deep.equal(["ConfigMap", "Deployment", "Service", "ServiceAccount"]);
        for (const [child, uid] of before?.get(name) ?? [])
          expect(after.get(name)?.get(child), `${name}: ${child} kept`).to.equal(uid);
      }
      await settle();
      const hashes = await templateHashes();
      for (const name of names) {
        expect(hashes.get(name), `${name}: one ReplicaSet`).to.have.length(1);
        const earlier = beforeHashes?.get(name) ?? [];
        if (earlier.length > 0) expect(hashes.get(name), name).to.deep.equal(earlier);
      }
    });

    it("half the fleet edited, the stand-in restarted mid-rollout: the edited roll once, the others not at all, nothing lost", async () => {
      const started = Date.now();
      const before = await childUids();
      const beforeHashes = await templateHashes();
      const edited = names.filter((_, i) => i % 2 === 0);
      for (const name of edited) {
        const parent = await kube().get(API_VERSION, RESOURCE, NS, name);
        if (parent === undefined) throw new Error(`no parent ${name}`);
        await kube().replace(API_VERSION, RESOURCE, {
          ...parent,
          spec: spec("http://vllm-2:8000/v1"),
        });
      }
      // The first stand-in applies the edits: new ConfigMaps, new pod templates; no pod is ready yet.
      const first = await converge(() => mc, NS, edited);
      await waitFor("the edited Deployments' new ReplicaSets", async () => {
        const hashes = await templateHashes();
        return edited.every((name) => hashes.get(name)?.length === 2) ? true : undefined;
      });
      // It stops; another starts with nothing cached, and syncs the whole fleet mid-rollout.
      mc = newMetacontroller();
      const second = await converge(() => mc, NS, names);
      const during = await childUids();
      for (const name of edited) {
        const configMaps = [...(during.get(name)?.keys() ?? [])].filter((k) =>
          k.startsWith("ConfigMap/"),
        );
        expect(
          configMaps,
          `${name}: the old ConfigMap kept while the old pods may mount it`,
        ).to.have.length(2);
      }
      await settle();
      const seconds = (Date.now() - started) / 1000;
      console.log(
        `      faults (${strategy}): ${edited.length} of ${PARENTS} parents edited; ${first.attempts} + ${second.attempts} sync attempts (${first.failed + second.failed} failed) across the restart; converged in ${seconds.toFixed(1)} s`,
      );

      const after = await childUids();
      const hashes = await templateHashes();
      for (const name of names) {
        const was = beforeHashes.get(name) ?? [];
        const now = hashes.get(name) ?? [];
        const kept = [...(before.get(name) ?? [])].filter(([child]) =>
          edited.includes(name) ? !child.startsWith("ConfigMap/") : true,
        );
        for (const [child, uid] of kept)
          expect(after.get(name)?.get(child), `${name}: ${child} kept`).to.equal(uid);
        if (edited.includes(name)) {
          expect(now, `${name}: the old template and exactly one new`).to.have.length(2);
          expect(now, name).to.include.members(was);
          const configMaps = [...(after.get(name)?.keys() ?? [])].filter((k) =>
            k.startsWith("ConfigMap/"),
          );
          expect(configMaps, `${name}: the old ConfigMap gone once rolled out`).to.have.length(1);
        } else expect(now, `${name}: not rolled`).to.deep.equal(was);
      }
    });
  });
}
