// Section 7 of npm run bench: what the hook costs per parent in a fleet. The
// hook runs as the image runs it (dist/server/main.js in its own process, with
// the Deployment's heap bound); the suite's stand-in Metacontroller
// (test/k8s/metacontroller.ts, dynamic apply) drives N distinct parents through
// it, each in its own namespace with the Secret its spec names:
//   1. creation wave: every parent synced until a sync changes nothing, five at
//      a time (Metacontroller's default --workers);
//   2. the Deployment controller posts each Deployment's first status (no pod
//      available yet): one sync per parent, as the child's update event causes;
//   3. the pods become ready: the Deployments report them available, and each
//      parent is synced until quiet (the Ready status);
//   4. idle resync: one sync per parent with nothing changed, as
//      resyncPeriodSeconds causes, twice.
// The hook's CPU time and resident memory are read from /proc after each phase.
//
// The API server is MemoryKube below, not the suite's kube-apiserver: the
// hook's work depends only on the requests it gets, and 1,000 parents through
// the real control plane take minutes of a shared machine's cores for its own
// controllers (a ReplicaSet and a Pod per parent) while measuring nothing more
// of the hook. MemoryKube stores what the stand-in writes with what the real
// API server adds that the hook reads back: uid, resourceVersion,
// creationTimestamp, generation (Deployments and parents, bumped when the spec
// changes), a managedFields entry per writer mirroring the fields it wrote, and
// the status subresource. It does not fill in the API server's defaults
// (a Deployment's progressDeadlineSeconds, a Service's clusterIP, ...), so its
// requests are somewhat smaller than a real cluster's; the section prints their
// mean size beside the figures (docs/operations/capacity.md compares them).
import { spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import type { KubeObject } from "../src/api/hook.js";
import { API_VERSION, KIND } from "../src/api/schema.js";
import { CHILD_TYPES, RELATED_TYPES } from "../src/children/types.js";
import { CACHE_BYTES } from "../src/server/app.js";
import { collectionPath, Kube, type KubeResponse, type RequestOptions } from "../test/k8s/kube.js";
import { Metacontroller, type SyncRound } from "../test/k8s/metacontroller.js";
import { freePort } from "../test/net.js";
import { buildDist } from "./bench-memory.js";

const MiB = 2 ** 20;
const RESOURCE = "llamastackdistributions";

// ---------------------------------------------------------------- an API server in memory

type Obj = KubeObject & { spec?: unknown; status?: unknown; [k: string]: unknown };
type Meta = Obj["metadata"] & {
  uid?: string;
  generation?: number;
  creationTimestamp?: string;
  managedFields?: ManagedEntry[];
};
interface ManagedEntry {
  manager: string;
  operation: string;
  apiVersion: string;
  time: string;
  fieldsType: "FieldsV1";
  fieldsV1: unknown;
  subresource?: string;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** A FieldsV1 set for a value, as the API server records one: f:<key>, list items by name. */
function fieldsOf(value: unknown): Record<string, unknown> {
  if (Array.isArray(value))
    return Object.fromEntries(
      value.map((item, i) => [
        isObject(item) && typeof item["name"] === "string"
          ? `k:{"name":${JSON.stringify(item["name"])}}`
          : `v:${i}`,
        isObject(item) ? { ".": {}, ...fieldsOf(item) } : {},
      ]),
    );
  if (!isObject(value)) return {};
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [`f:${k}`, fieldsOf(v)]));
}

/** The kinds MemoryKube serves, by apiVersion and resource. */
const TYPES = [
  ...CHILD_TYPES,
  ...RELATED_TYPES,
  { apiVersion: API_VERSION, kind: KIND, resource: RESOURCE },
].map((t) => ({ ...t, versioned: t.kind === "Deployment" || t.kind === KIND }));

interface Path {
  apiVersion: string;
  resource: string;
  namespace: string;
  name: string | undefined;
  subresource: string | undefined;
}

function parsePath(path: string): Path {
  const parts = path.split("/").filter(Boolean);
  const apiVersion = parts[0] === "api" ? (parts[1] ?? "") : `${parts[1]}/${parts[2]}`;
  const rest = parts.slice(parts[0] === "api" ? 2 : 3);
  if (rest[0] !== "namespaces" || rest.length < 3)
    throw new Error(`MemoryKube serves namespaced objects only: ${path}`);
  return {
    apiVersion,
    resource: rest[2] ?? "",
    namespace: rest[1] ?? "",
    name: rest[3],
    subresource: rest[4],
  };
}

class MemoryStore {
  /** namespace → "apiVersion resource name" → object */
  readonly namespaces = new Map<string, Map<string, Obj>>();
  private version = 1000;
  private uids = 0;
  readonly clock = () => new Date().toISOString().replace(/\.\d+Z$/, "Z");

  nextVersion(): string {
    return String(++this.version);
  }
  nextUid(): string {
    return `00000000-0000-4000-8000-${String(++this.uids).padStart(12, "0")}`;
  }
  objects(namespace: string): Map<string, Obj> {
    let m = this.namespaces.get(namespace);
    if (m === undefined) this.namespaces.set(namespace, (m = new Map()));
    return m;
  }
}

/** A Kube whose API server is a Map: the verbs the stand-in's dynamic apply sends. */
class MemoryKube extends Kube {
  constructor(
    readonly store: MemoryStore = new MemoryStore(),
    userAgent = "bench/v0.0.0",
  ) {
    super("https://memory.invalid", Buffer.alloc(0), "", userAgent);
  }

  override withUserAgent(userAgent: string): Kube {
    return new MemoryKube(this.store, userAgent);
  }

  private get manager(): string {
    return (this.userAgent ?? "unknown").split("/")[0] ?? "unknown";
  }

  private record(obj: Obj, apiVersion: string, subresource?: string): void {
    const meta = obj.metadata as Meta;
    const fields =
      subresource === "status"
        ? { "f:status": fieldsOf(obj.status) }
        : fieldsOf({
            metadata: { labels: meta.labels, annotations: meta.annotations },
            ...Object.fromEntries(
              Object.entries(obj).filter(
                ([k]) => !["apiVersion", "kind", "metadata", "status"].includes(k),
              ),
            ),
          });
    const entries = (meta.managedFields ?? []).filter(
      (e) => !(e.manager === this.manager && (e.subresource ?? "") === (subresource ?? "")),
    );
    entries.push({
      manager: this.manager,
      operation: "Update",
      apiVersion,
      time: this.store.clock(),
      fieldsType: "FieldsV1",
      fieldsV1: fields,
      ...(subresource === undefined ? {} : { subresource }),
    });
    meta.managedFields = entries;
  }

  override request<T = unknown>(opts: RequestOptions): Promise<KubeResponse<T>> {
    const reply = (status: number, body: unknown) =>
      Promise.resolve({ status, body: structuredClone(body) as T, warnings: [] });
    const p = parsePath(opts.path);
    const type = TYPES.find((t) => t.apiVersion === p.apiVersion && t.resource === p.resource);
    if (type === undefined) throw new Error(`MemoryKube: no type ${p.apiVersion} ${p.resource}`);
    const objects = this.store.objects(p.namespace);
    const key = (name: string) => `${p.apiVersion} ${p.resource} ${name}`;
    const notFound = { kind: "Status", status: "Failure", reason: "NotFound", code: 404 };
    const conflict = { kind: "Status", status: "Failure", reason: "Conflict", code: 409 };
    if (opts.method === "GET" && p.name === undefined) {
      const prefix = key("");
      const items = [...objects].filter(([k]) => k.startsWith(prefix)).map(([, o]) => o);
      return reply(200, { kind: `${type.kind}List`, apiVersion: p.apiVersion, items });
    }
    if (p.name === undefined && opts.method !== "POST")
      throw new Error(`MemoryKube: ${opts.method} ${opts.path}`);
    const body = (typeof opts.body === "string" ? JSON.parse(opts.body) : opts.body) as Obj;
    switch (opts.method) {
      case "GET": {
        const o = objects.get(key(p.name ?? ""));
        return o === undefined ? reply(404, notFound) : reply(200, o);
      }
      case "POST": {
        const name = body.metadata.name;
        if (objects.has(key(name))) return reply(409, { ...conflict, reason: "AlreadyExists" });
        const obj = structuredClone(body);
        const meta = obj.metadata as Meta;
        meta.namespace = p.namespace;
        meta.uid = this.store.nextUid();
        meta.resourceVersion = this.store.nextVersion();
        meta.creationTimestamp = this.store.clock();
        if (type.versioned) meta.generation = 1;
        delete obj.status;
        this.record(obj, p.apiVersion);
        objects.set(key(name), obj);
        return reply(201, obj);
      }
      case "PUT": {
        const live = objects.get(key(p.name ?? ""));
        if (live === undefined) return reply(404, notFound);
        const sent = body.metadata.resourceVersion;
        if (sent !== undefined && sent !== live.metadata.resourceVersion)
          return reply(409, conflict);
        const next = structuredClone(live);
        if (p.subresource === "status") next.status = structuredClone(body.status);
        else {
          for (const k of Object.keys(next))
            if (!["metadata", "status"].includes(k)) delete next[k];
          for (const [k, v] of Object.entries(body))
            if (!["metadata", "status"].includes(k)) next[k] = structuredClone(v);
          const meta = next.metadata as Meta;
          meta.labels = structuredClone(body.metadata.labels);
          meta.annotations = structuredClone(body.metadata.annotations);
          (meta as { ownerReferences?: unknown }).ownerReferences = structuredClone(
            (body.metadata as { ownerReferences?: unknown }).ownerReferences,
          );
          if (type.versioned && JSON.stringify(next.spec) !== JSON.stringify(live.spec))
            meta.generation = ((live.metadata as Meta).generation ?? 1) + 1;
        }
        if (JSON.stringify(next) === JSON.stringify(live)) return reply(200, live);
        next.metadata.resourceVersion = this.store.nextVersion();
        this.record(next, p.apiVersion, p.subresource);
        objects.set(key(p.name ?? ""), next);
        return reply(200, next);
      }
      case "DELETE": {
        const live = objects.get(key(p.name ?? ""));
        if (live === undefined) return reply(404, notFound);
        const uid = (body as unknown as { preconditions?: { uid?: string } })?.preconditions?.uid;
        if (uid !== undefined && uid !== (live.metadata as Meta).uid) return reply(409, conflict);
        objects.delete(key(p.name ?? ""));
        return reply(200, { kind: "Status", status: "Success" });
      }
      default:
        throw new Error(`MemoryKube: ${opts.method} is not served (dynamic apply only)`);
    }
  }
}

/**
 * What the Deployment controller writes to every Deployment's status: its
 * first post (the ReplicaSet created, no pod available) or the rollout done.
 */
async function deploymentController(store: MemoryStore, available: boolean): Promise<void> {
  const kube = new MemoryKube(store, "kube-controller-manager/v1.37.2");
  const now = store.clock();
  for (const [namespace, objects] of store.namespaces)
    for (const [k, d] of objects) {
      if (!k.startsWith("apps/v1 deployments ")) continue;
      const replicas = (d.spec as { replicas?: number } | undefined)?.replicas ?? 1;
      const status = {
        observedGeneration: (d.metadata as Meta).generation,
        replicas,
        updatedReplicas: replicas,
        ...(available
          ? { readyReplicas: replicas, availableReplicas: replicas }
          : { unavailableReplicas: replicas }),
        conditions: [
          {
            type: "Available",
            status: available ? "True" : "False",
            reason: available ? "MinimumReplicasAvailable" : "MinimumReplicasUnavailable",
            message: available
              ? "Deployment has minimum availability."
              : "Deployment does not have minimum availability.",
            lastUpdateTime: now,
            lastTransitionTime: now,
          },
          {
            type: "Progressing",
            status: "True",
            reason: available ? "NewReplicaSetAvailable" : "ReplicaSetUpdated",
            message: `ReplicaSet "${d.metadata.name}-5d9c7b8f6" ${available ? "has successfully progressed" : "is progressing"}.`,
            lastUpdateTime: now,
            lastTransitionTime: now,
          },
        ],
      };
      const res = await kube.request({
        method: "PUT",
        path: `${collectionPath("apps/v1", "deployments", namespace)}/${d.metadata.name}/status`,
        body: { ...d, status },
      });
      if (res.status !== 200) throw new Error(`deployment status: ${res.status}`);
    }
}

// ---------------------------------------------------------------- the hook's process

function cpuMs(pid: number): number {
  // utime and stime, fields 14 and 15 of /proc/<pid>/stat, in clock ticks (100 a second).
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? NaN) / 1024;
}

/** A sample's value from Prometheus text, summed over the series whose labels contain `match`. */
function metric(text: string, name: string, match = ""): number {
  let total = 0;
  for (const line of text.split("\n")) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const labels = line.slice(name.length, line.lastIndexOf(" "));
    if (labels.includes(match)) total += Number(line.slice(line.lastIndexOf(" ") + 1));
  }
  return total;
}

// ---------------------------------------------------------------- the fleet

function fleetSpec(i: number): unknown {
  return {
    distribution: { name: "starter" },
    providers: {
      inference: [
        {
          provider: "vllm",
          endpoint: `http://vllm-${i}.models.svc:8000/v1`,
          apiKey: { secretKeyRef: { name: "vllm-creds", key: "token" } },
        },
      ],
    },
    resources: { models: [{ name: "llama3.2-8b" }, { name: `team-${i}-model` }] },
  };
}

/** Runs `work` on every index, `workers` at a time. */
async function pool(n: number, workers: number, work: (i: number) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: workers }, async () => {
      for (let i = next++; i < n; i = next++) await work(i);
    }),
  );
}

const writesOf = (r: SyncRound) =>
  r.created.length + r.updated.length + r.deleted.length + (r.statusWritten ? 1 : 0);

export async function benchScale(options: { parents?: number; build?: boolean } = {}) {
  const n = options.parents ?? Number(process.env["BENCH_SCALE_PARENTS"] ?? 1000);
  if (options.build !== false) buildDist();
  const [port, metricsPort] = [await freePort(), await freePort()];
  const hook = spawn(process.execPath, ["--max-old-space-size=192", "dist/server/main.js"], {
    env: {
      ...process.env,
      PORT: String(port),
      METRICS_PORT: String(metricsPort),
      API_SERVER_PORT: String(await freePort()),
      LOG_LEVEL: "warn",
    },
    stdio: "ignore",
  });
  try {
    const url = `http://127.0.0.1:${port}`;
    for (let i = 0; ; i++) {
      try {
        if ((await fetch(`${url}/readyz`)).ok) break;
      } catch {
        if (i > 100) throw new Error("the hook did not start");
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    const pid = hook.pid as number;
    const scrape = async () => (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    const store = new MemoryStore();
    const admin = new MemoryKube(store);
    const mc = new Metacontroller(admin, url);
    const ns = (i: number) => `team-${i}`;
    for (let i = 0; i < n; i++) {
      const secret = {
        apiVersion: "v1",
        kind: "Secret",
        metadata: { name: "vllm-creds", namespace: ns(i) },
        data: { token: "c2stMTIz" },
      };
      await admin.mustCreate("v1", "secrets", secret);
      await admin.mustCreate(API_VERSION, RESOURCE, {
        apiVersion: API_VERSION,
        kind: KIND,
        metadata: { name: "llama", namespace: ns(i) },
        spec: fleetSpec(i),
      });
    }
    const rows: string[][] = [];
    let before = { cpu: cpuMs(pid), rss: rssMiB(pid), text: await scrape() };
    const idleRss = before.rss;
    const phase = async (label: string, run: (i: number) => Promise<SyncRound[]>) => {
      let syncs = 0;
      let writes = 0;
      await pool(n, 5, async (i) => {
        const rounds = await run(i);
        syncs += rounds.length;
        writes += rounds.reduce((w, r) => w + writesOf(r), 0);
        for (const r of rounds)
          if (r.httpStatus !== 200 || r.errors.length > 0)
            throw new Error(`${ns(i)}: ${r.httpStatus} ${r.errors.join("; ")}`);
      });
      await new Promise((r) => setTimeout(r, 200));
      const after = { cpu: cpuMs(pid), rss: rssMiB(pid), text: await scrape() };
      const delta = (name: string, match = "") =>
        metric(after.text, name, match) - metric(before.text, name, match);
      const bodies = delta("llsd_hook_request_body_bytes_sum", 'route="sync"');
      const cpu = after.cpu - before.cpu;
      rows.push([
        label,
        (syncs / n).toFixed(2),
        (writes / n).toFixed(2),
        `${(bodies / syncs / 1024).toFixed(1)}`,
        (cpu / syncs).toFixed(2),
        (cpu / n).toFixed(2),
        `${delta("llsd_hook_cache_hits_total", 'cache="response"')}/${syncs}`,
        after.rss.toFixed(0),
        (((after.rss - idleRss) * 1024) / n).toFixed(1),
      ]);
      before = after;
    };
    await phase("1. creation wave (until a sync changes nothing)", (i) =>
      mc.reconcile(ns(i), "llama"),
    );
    await deploymentController(store, false);
    await phase("2. the Deployment controller's first status", async (i) => {
      const r = await mc.sync(ns(i), "llama");
      return r === undefined ? [] : [r];
    });
    await deploymentController(store, true);
    await phase("3. pods ready (until quiet)", (i) => mc.reconcile(ns(i), "llama"));
    const resync = async (i: number) => {
      const r = await mc.sync(ns(i), "llama");
      return r === undefined ? [] : [r];
    };
    // The first resync after a status change computes each answer once more: an
    // answer that holds the time of a transition it reports is not cached, so
    // one that the same second's sync gave is computed again; the next is cached.
    await phase("4. idle resync (one sync each)", resync);
    await phase("5. the next idle resync", resync);
    const text = before.text;
    const tier = (name: string) =>
      `${metric(text, "llsd_hook_cache_entries", `cache="${name}"`)} entries, ${(metric(text, "llsd_hook_cache_bytes", `cache="${name}"`) / MiB).toFixed(1)} MiB`;
    console.log(
      `\n7. A fleet of ${n} distinct parents through the stand-in Metacontroller (dynamic apply, 5 workers), the hook in its own process`,
    );
    const header = [
      "phase",
      "/sync per parent",
      "writes per parent",
      "KiB per request",
      "hook CPU ms per sync",
      "per parent",
      "from resp. cache",
      "hook RSS MiB",
      "KiB RSS per parent",
    ];
    const widths = header.map((h, i) =>
      Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)),
    );
    const line = (cells: string[]) =>
      `  ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join("  ")}`;
    console.log(line(header));
    for (const r of rows) console.log(line(r));
    console.log(`  idle hook before the wave: rss ${idleRss.toFixed(0)} MiB`);
    console.log(
      `  caches at the end (CACHE_MIB ${CACHE_BYTES / MiB}): plans ${tier("plan")}; generations ${tier("generation")}; whole responses ${tier("response")}`,
    );
    console.log(
      "  writes: what the stand-in sent for the phase (creates, updates, deletes, status). KiB RSS per parent: growth over the idle hook, divided by the parents.",
    );
  } finally {
    hook.kill("SIGTERM");
    await once(hook, "exit");
  }
}

if (process.argv[1]?.endsWith("bench-scale.ts")) await benchScale();
