// The hook as a cluster runs it (test/node/README.md, "The hook in the cluster"):
// its image (scripts/build-image.sh) imported into the node's containerd, and
// the HTTPS overlay (examples/https) applied by the suite's kubectl with the
// lines of docs/operations/https.md, on a copy of the tree whose one place
// names Metacontroller elsewhere (manifests/components/metacontroller-identity).
// cert-manager's part is stood in for: the test makes the Secret the serving
// Certificate names, for the names it lists. The Metacontroller stand-in signs
// in with a token the API server issues for that ServiceAccount, resolves the
// applied CompositeController's URL, CA and bearer token, and reaches the hook
// through KubeProxy: the Service's EndpointSlices, watched; ready endpoints
// only; an endpoint chosen when a connection is made and kept for its life (as
// kube-proxy's rules and conntrack do); keep-alive, one pool per webhook, with
// Go's limits and Metacontroller's timeout; no retry.
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import type { ClientRequestArgs } from "node:http";
import { Agent, request as httpsRequest, type AgentOptions } from "node:https";
import type { Duplex } from "node:stream";
import { connect as tlsConnect, type ConnectionOptions } from "node:tls";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import type { KubeObject } from "../../src/api/hook.js";
import {
  setMetacontrollerIdentity,
  type MetacontrollerIdentity,
} from "../install/metacontroller-identity.js";
import { kubectl } from "../support/tools.js";
import {
  copyTree,
  describeRun,
  httpsCommands,
  installMetacontroller,
  kubectlEnv,
  runLines,
  thirdPartyCrdLines,
} from "../k8s/install-run.js";
import { Kube, waitFor } from "../k8s/kube.js";
import { Metacontroller, type WebhookTransport } from "../k8s/metacontroller.js";
import { loadPeers } from "../peers.js";
import { rolledOutReplicas, type ObservedDeployment } from "../support/rollout.js";
import { readWatch } from "../support/watch.js";
import { issue, makeCa } from "../pki.js";
import type { NodeCluster } from "./node.js";
import { podLog, podMemory, podProcesses, podsBySelector, type PodView } from "./pods.js";

export const HOOK_NS = "llsd-hook";
const HOOK = "llsd-hook";
const HOOK_SELECTOR = "app.kubernetes.io/name=llsd-hook";
/** Metacontroller installed elsewhere than the install's default (metacontroller/metacontroller). */
const MC_IDENTITY: MetacontrollerIdentity = {
  namespace: "mc-system",
  serviceAccount: "mc-controller",
};
const CC_API = "metacontroller.k8s.io/v1alpha1";
/** Go's http.DefaultTransport, which Metacontroller's webhook transport clones: MaxIdleConnsPerHost. */
const GO_MAX_IDLE_CONNS_PER_HOST = 2;

const execFileAsync = promisify(execFile);

function log(msg: string): void {
  process.stderr.write(`[node] ${msg}\n`);
}

// ---------------------------------------------------------------- kube-proxy

interface Endpoint {
  ip: string;
  port: number;
  pod: string;
}

type RawSlice = KubeObject & {
  ports?: { name?: string; port?: number }[] | null;
  endpoints?: {
    addresses: string[];
    conditions?: { ready?: boolean };
    targetRef?: { name?: string };
  }[];
};

/** One hook request as the client saw it; times are Date.now() on this machine (the node's clock). */
interface HookRequest {
  path: string;
  /** The pod and address the connection went to ("" when none was ready). */
  pod: string;
  ip: string;
  /** Sent on a kept-alive connection. */
  reused: boolean;
  start: number;
  end: number;
  status: number;
  error?: string;
}

/** Opens each connection to a ready endpoint of the Service, chosen at random as kube-proxy's rules do. */
class RoutedAgent extends Agent {
  constructor(
    private readonly pick: () => Endpoint | undefined,
    private readonly routes: WeakMap<object, Endpoint>,
    options: AgentOptions,
  ) {
    super(options);
  }

  override createConnection(
    options: ClientRequestArgs,
    callback?: (err: Error | null, stream: Duplex) => void,
  ): Duplex | null | undefined {
    const endpoint = this.pick();
    if (endpoint === undefined) {
      const err = Object.assign(
        new Error("connect ECONNREFUSED: the Service has no ready endpoint"),
        {
          code: "ECONNREFUSED",
        },
      );
      process.nextTick(() => callback?.(err, undefined as unknown as Duplex));
      return undefined;
    }
    // The name stays the TLS server name (checked against the certificate, as Go does).
    const socket = tlsConnect({
      ...(options as ConnectionOptions),
      host: endpoint.ip,
      port: endpoint.port,
    });
    this.routes.set(socket, endpoint);
    return socket;
  }
}

/**
 * kube-proxy for one Service, seen from the host: its EndpointSlices listed
 * and watched, ready endpoints only, every change of the ready set recorded.
 */
class KubeProxy {
  readonly requests: HookRequest[] = [];
  /** Each change of the ready set: when this process saw it, and the ready pods. */
  readonly changes: { at: number; ready: string[] }[] = [];
  private slices = new Map<string, RawSlice>();
  private targetPortName = "";
  private closed = false;
  private watching: ReturnType<typeof httpsRequest> | undefined;
  private readonly agents = new Map<string, RoutedAgent>();
  private readonly routes = new WeakMap<object, Endpoint>();

  constructor(
    private readonly api: { server: string; ca: Buffer; token: string },
    /** The Service and the port of it the webhook URL names. */
    private readonly service: { namespace: string; name: string; port: number },
    private readonly client: { caBundle: string; timeoutMs: number },
  ) {}

  private get(path: string): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const req = httpsRequest(
        new URL(path, this.api.server),
        { ca: this.api.ca, headers: { authorization: `Bearer ${this.api.token}` } },
        (res) => {
          let text = "";
          res.setEncoding("utf8");
          res.on("data", (c: string) => (text += c));
          res.on("end", () =>
            res.statusCode === 200
              ? resolve(JSON.parse(text))
              : reject(new Error(`GET ${path}: HTTP ${res.statusCode}: ${text}`)),
          );
        },
      );
      req.on("error", reject);
      req.end();
    });
  }

  private slicesPath(query: string): string {
    const selector = encodeURIComponent(`kubernetes.io/service-name=${this.service.name}`);
    return `/apis/discovery.k8s.io/v1/namespaces/${this.service.namespace}/endpointslices?labelSelector=${selector}${query}`;
  }

  async start(): Promise<void> {
    const svc = (await this.get(
      `/api/v1/namespaces/${this.service.namespace}/services/${this.service.name}`,
    )) as { spec: { ports: { name?: string; port: number; targetPort?: string | number }[] } };
    // The Service port the webhook names (its URL's port) is matched to the slices' port by name.
    const port = svc.spec.ports.find((p) => p.port === this.service.port);
    if (port === undefined)
      throw new Error(`the Service ${this.service.name} has no port ${this.service.port}`);
    this.targetPortName = port.name ?? "";
    this.watch(await this.relist());
  }

  private async relist(): Promise<string> {
    const list = (await this.get(this.slicesPath(""))) as {
      metadata: { resourceVersion: string };
      items: RawSlice[];
    };
    this.slices = new Map(list.items.map((s) => [s.metadata.name, s]));
    this.note();
    return list.metadata.resourceVersion;
  }

  private watch(resourceVersion: string): void {
    if (this.closed) return;
    let rv = resourceVersion;
    let ended = false;
    // Once per watch, however it ends: list again, then watch from there.
    const again = () => {
      if (this.closed || ended) return;
      ended = true;
      setTimeout(() => {
        this.relist().then(
          (next) => this.watch(next),
          () => again(),
        );
      }, 100);
    };
    const req = httpsRequest(
      new URL(
        this.slicesPath(`&watch=true&allowWatchBookmarks=true&resourceVersion=${rv}`),
        this.api.server,
      ),
      { ca: this.api.ca, headers: { authorization: `Bearer ${this.api.token}` }, agent: false },
      (res) => {
        readWatch<RawSlice>(res, (event) => {
          if (event.type === "ERROR") {
            // e.g. 410 Gone: the resourceVersion is too old.
            again();
            req.destroy();
            return true;
          }
          rv = event.object.metadata.resourceVersion ?? rv;
          if (event.type === "BOOKMARK") return false;
          if (event.type === "DELETED") this.slices.delete(event.object.metadata.name);
          else this.slices.set(event.object.metadata.name, event.object);
          this.note();
          return false;
        });
        res.on("end", again);
        res.on("error", again);
      },
    );
    req.on("error", again);
    req.end();
    this.watching = req;
  }

  /** The endpoints kube-proxy sends new connections to: ready ones only. */
  ready(): Endpoint[] {
    const out: Endpoint[] = [];
    for (const s of this.slices.values()) {
      const port = (s.ports ?? []).find((p) => (p.name ?? "") === this.targetPortName)?.port;
      if (port === undefined) continue;
      for (const e of s.endpoints ?? []) {
        // kube-proxy takes an unset ready as ready.
        if (e.conditions?.ready === false) continue;
        for (const ip of e.addresses) out.push({ ip, port, pod: e.targetRef?.name ?? "" });
      }
    }
    return out.sort((a, b) => a.ip.localeCompare(b.ip));
  }

  private note(): void {
    const ready = this.ready().map((e) => e.pod);
    const last = this.changes.at(-1)?.ready;
    if (last !== undefined && last.join() === ready.join()) return;
    this.changes.push({ at: Date.now(), ready });
  }

  private agent(path: string): RoutedAgent {
    let agent = this.agents.get(path);
    if (agent === undefined) {
      const pick = () => {
        const ready = this.ready();
        return ready[Math.floor(Math.random() * ready.length)];
      };
      agent = new RoutedAgent(pick, this.routes, {
        keepAlive: true,
        maxFreeSockets: GO_MAX_IDLE_CONNS_PER_HOST,
        scheduling: "lifo",
        ca: this.client.caBundle,
        minVersion: "TLSv1.2",
      });
      this.agents.set(path, agent);
    }
    return agent;
  }

  /** The Metacontroller stand-in's webhook client through this proxy. */
  transport(): WebhookTransport {
    return (url, body, headers) => this.post(url, body, headers);
  }

  private post(
    url: string,
    body: string,
    headers: Record<string, string>,
  ): Promise<{ status: number; text: string }> {
    const u = new URL(url);
    if (
      u.hostname !== `${this.service.name}.${this.service.namespace}` ||
      Number(u.port) !== this.service.port
    )
      throw new Error(
        `${url} is not port ${this.service.port} of the Service ${this.service.namespace}/${this.service.name}`,
      );
    const record: HookRequest = {
      path: u.pathname,
      pod: "",
      ip: "",
      reused: false,
      start: Date.now(),
      end: 0,
      status: 0,
    };
    this.requests.push(record);
    return new Promise((resolve, reject) => {
      const req = httpsRequest(
        u,
        {
          method: "POST",
          agent: this.agent(u.pathname),
          headers: { ...headers, "content-length": String(Buffer.byteLength(body)) },
        },
        (res) => {
          let text = "";
          res.setEncoding("utf8");
          res.on("data", (c: string) => (text += c));
          res.on("end", () => {
            clearTimeout(timer);
            record.end = Date.now();
            record.status = res.statusCode ?? 0;
            resolve({ status: record.status, text });
          });
          res.on("error", fail);
        },
      );
      // Go's http.Client.Timeout: the whole exchange (Metacontroller's webhook timeout).
      const timer = setTimeout(
        () => req.destroy(new Error(`Client.Timeout exceeded (${this.client.timeoutMs} ms)`)),
        this.client.timeoutMs,
      );
      function fail(err: NodeJS.ErrnoException): void {
        clearTimeout(timer);
        if (record.end !== 0) return;
        record.end = Date.now();
        record.error = err.code ?? err.message;
        reject(new Error(`POST ${u.pathname} to ${record.pod || "no endpoint"}: ${err.message}`));
      }
      req.on("socket", (socket) => {
        const endpoint = this.routes.get(socket);
        record.pod = endpoint?.pod ?? "";
        record.ip = endpoint?.ip ?? "";
        record.reused = req.reusedSocket;
      });
      req.on("error", fail);
      req.end(body);
    });
  }

  close(): void {
    this.closed = true;
    this.watching?.destroy();
    for (const a of this.agents.values()) a.destroy();
  }
}

// ---------------------------------------------------------------- install

export interface HookPodFigures {
  pod: string;
  /** Container start → "llsd-hook listening" → Ready, in ms (start and Ready are whole seconds in the pod's status). */
  listeningMs: number;
  readyMs: number;
}

export interface InClusterHook {
  /** Metacontroller's identity here, and a client signed in as its ServiceAccount. */
  identity: MetacontrollerIdentity;
  mcKube: Kube;
  /** The webhook as the applied CompositeController resolves: https://llsd-hook.llsd-hook:8080 */
  url: string;
  proxy: KubeProxy;
  /** A Metacontroller stand-in signed in as its ServiceAccount, reaching the hook through the proxy. */
  metacontroller(): Metacontroller;
  pods(): Promise<PodView[]>;
  /** The suite's kubectl with this cluster's kubeconfig, without blocking the event loop. */
  kubectl(args: string[]): Promise<string>;
  /** Figures of the install: image import, apply → rolled out, per pod start → Ready. */
  timings: { importMs: number; rolloutMs: number; pods: HookPodFigures[] };
  close(): void;
}

/** A CA and the serving certificate it signed for `dnsNames`, as cert-manager's CA Issuer writes them. */
function servingSecret(dnsNames: string[]): Record<string, string> {
  const dir = mkdtempSync(join(tmpdir(), "llsd-hook-serving-"));
  try {
    makeCa(dir, "ca", "/CN=llsd-hook-ca");
    issue(
      dir,
      "ca",
      "tls",
      `/CN=${dnsNames[0] ?? HOOK}`,
      `subjectAltName=${dnsNames.map((n) => `DNS:${n}`).join(",")}\nextendedKeyUsage=serverAuth\n`,
    );
    const pem = (f: string) => readFileSync(join(dir, f)).toString("base64");
    return { "tls.crt": pem("tls.crt"), "tls.key": pem("tls.key"), "ca.crt": pem("ca.crt") };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The hook's Deployment rolled out as its controller reports, and only its current pods left (none terminating). */
export async function hookRolledOut(kube: Kube): Promise<PodView[] | undefined> {
  const d = (await kube.get("apps/v1", "deployments", HOOK_NS, HOOK)) as
    ObservedDeployment | undefined;
  const want = rolledOutReplicas(d);
  if (want === undefined) return undefined;
  const pods = await podsBySelector(kube, HOOK_NS, HOOK_SELECTOR);
  return pods.length === want && pods.every((p) => p.ready && !p.deleting) ? pods : undefined;
}

/** Container start → the hook's "llsd-hook listening" line → Ready, from the pod's log and status. */
async function startFigures(kube: Kube, pod: PodView): Promise<HookPodFigures> {
  const lines = await podLog(kube, HOOK_NS, pod.name);
  const listening = lines.find((l) => l.line.includes('"llsd-hook listening"'));
  if (listening === undefined)
    throw new Error(
      `${pod.name}: no "llsd-hook listening" line:\n${lines.map((l) => l.line).join("\n")}`,
    );
  const listenAt = (JSON.parse(listening.line) as { time: number }).time;
  const started = Date.parse(pod.startedAt ?? "");
  return {
    pod: pod.name,
    listeningMs: listenAt - started,
    readyMs: Date.parse(pod.readyAt ?? "") - listenAt,
  };
}

/**
 * Installs the hook on the node as a user would with examples/https, with
 * Metacontroller in mc-system/mc-controller, and waits until both replicas
 * serve. Leaves the CRD, the hook and the CompositeController installed.
 */
export async function installHook(node: NodeCluster, work: string): Promise<InClusterHook> {
  const kube = node.cp.kube;
  const identity = MC_IDENTITY;
  const image = loadPeers().hookImage?.archive;
  if (image === undefined || !existsSync(image))
    throw new Error(`no hook image (peers.json hookImage.archive: ${image}): run npm run peers`);
  const importMs = await node.importImage(image);

  // What installing Metacontroller elsewhere and cert-manager's CRDs leave.
  await installMetacontroller(kube, [identity]);
  mkdirSync(work, { recursive: true });
  const env = kubectlEnv(work, node.cp.kubeconfig);
  const crds = runLines(thirdPartyCrdLines(), work, env);
  if (crds.status !== 0) throw new Error(`the third-party CRDs:\n${describeRun(crds)}`);

  // The user's part: a copy of the tree, Metacontroller's identity set in its one place,
  // then the HTTPS page's lines as written (the token, the overlay's apply).
  const tree = join(work, "tree");
  copyTree(tree, ["manifests", "metacontroller", "examples/https"]);
  setMetacontrollerIdentity(tree, identity);
  const t0 = Date.now();
  const applied = runLines(
    [
      ...httpsCommands(),
      "kubectl wait --for=condition=Established --timeout=60s crd/llamastackdistributions.llamastack.io",
    ],
    tree,
    env,
  );
  if (applied.status !== 0) throw new Error(`the HTTPS install:\n${describeRun(applied)}`);

  // cert-manager's part: the Secret the serving Certificate names, for its names.
  const certificate = (await kube.get(
    "cert-manager.io/v1",
    "certificates",
    HOOK_NS,
    "llsd-hook-tls",
  )) as (KubeObject & { spec: { secretName: string; dnsNames: string[] } }) | undefined;
  if (certificate === undefined)
    throw new Error("the overlay applied no Certificate llsd-hook-tls");
  await kube.mustCreate("v1", "secrets", {
    apiVersion: "v1",
    kind: "Secret",
    type: "kubernetes.io/tls",
    metadata: { name: certificate.spec.secretName, namespace: HOOK_NS },
    data: servingSecret(certificate.spec.dnsNames),
  });
  const ready = await waitFor(
    "the hook's Deployment to roll out",
    () => hookRolledOut(kube),
    180_000,
    250,
  ).catch(async (err: Error) => {
    const pods = await podsBySelector(kube, HOOK_NS, HOOK_SELECTOR);
    throw new Error(
      `${err.message}\npods: ${JSON.stringify(pods)}\n--- kubelet ---\n${node.logs("kubelet")}`,
    );
  });
  const rolloutMs = Date.now() - t0;
  const pods: HookPodFigures[] = [];
  for (const p of ready) pods.push(await startFigures(kube, p));

  // Metacontroller's part: signed in as its ServiceAccount, it resolves the applied webhook.
  const token = await kube.request<{ status: { token: string } }>({
    method: "POST",
    path: `/api/v1/namespaces/${identity.namespace}/serviceaccounts/${identity.serviceAccount}/token`,
    body: {
      apiVersion: "authentication.k8s.io/v1",
      kind: "TokenRequest",
      spec: { expirationSeconds: 3600 },
    },
  });
  if (token.status !== 201) throw new Error(`TokenRequest: ${JSON.stringify(token.body)}`);
  const mcKube = new Kube(node.cp.server, node.cp.ca, token.body.status.token);
  const webhook = await resolveWebhook(kube, mcKube);
  const proxy = new KubeProxy(
    { server: node.cp.server, ca: node.cp.ca, token: node.cp.token },
    webhook.service,
    { caBundle: webhook.caBundle, timeoutMs: webhook.timeoutMs },
  );
  await proxy.start();
  log(
    `the hook: image imported in ${importMs} ms, applied → 2 replicas rolled out in ${rolloutMs} ms; ${pods
      .map((p) => `${p.pod}: ${describeStart(p)}`)
      .join("; ")}`,
  );
  return {
    identity,
    mcKube,
    url: webhook.url,
    proxy,
    metacontroller: () =>
      new Metacontroller(mcKube, webhook.url, {
        webhook: { authorization: webhook.authorization, transport: proxy.transport() },
      }),
    pods: () => podsBySelector(kube, HOOK_NS, HOOK_SELECTOR),
    kubectl: async (args) =>
      (await execFileAsync(kubectl(), args, { env: { ...env, PATH: env["PATH"] ?? "" } })).stdout,
    timings: { importMs, rolloutMs, pods },
    close: () => proxy.close(),
  };
}

interface Webhook {
  service: { name: string; namespace: string; port?: number; protocol?: string };
  path: string;
  timeout?: string;
  caBundle?: { secretRef?: { name: string; namespace: string; key?: string } };
  authorization?: { type?: string; secretRef: { name: string; namespace: string; key?: string } };
}

/**
 * The applied CompositeController's webhooks as Metacontroller resolves them
 * (webhookURL, hooks.ResolveCABundle, ResolveAuthorization), the Secrets read as
 * its ServiceAccount.
 */
async function resolveWebhook(
  admin: Kube,
  kube: Kube,
): Promise<{
  url: string;
  service: { name: string; namespace: string; port: number };
  caBundle: string;
  authorization: string;
  timeoutMs: number;
}> {
  // Metacontroller's own install lets it read CompositeControllers; ours grants the Secrets.
  const cc = (await admin.get(CC_API, "compositecontrollers", undefined, HOOK)) as
    | (KubeObject & { spec: { hooks: Record<"sync" | "customize", { webhook: Webhook }> } })
    | undefined;
  if (cc === undefined) throw new Error("no CompositeController llsd-hook");
  const secretKey = async (ref: { name: string; namespace: string; key?: string }, key: string) => {
    const s = (await kube.get("v1", "secrets", ref.namespace, ref.name)) as
      (KubeObject & { data?: Record<string, string> }) | undefined;
    const v = s?.data?.[ref.key ?? key];
    if (v === undefined)
      throw new Error(`no key ${ref.key ?? key} in Secret ${ref.namespace}/${ref.name}`);
    return Buffer.from(v, "base64").toString();
  };
  const resolved = [];
  for (const [name, path] of [
    ["sync", "/sync"],
    ["customize", "/customize"],
  ] as const) {
    const w = cc.spec.hooks[name].webhook;
    // The stand-in posts to <url>/sync and <url>/customize.
    if (w.path !== path) throw new Error(`the ${name} hook's path is ${w.path}, not ${path}`);
    const auth = w.authorization;
    if (w.caBundle?.secretRef === undefined || auth === undefined)
      throw new Error(`the ${name} hook has no caBundle or authorization: not the HTTPS overlay`);
    resolved.push({
      url: `${w.service.protocol ?? "http"}://${w.service.name}.${w.service.namespace}:${w.service.port ?? 80}`,
      service: { name: w.service.name, namespace: w.service.namespace, port: w.service.port ?? 80 },
      caBundle: await secretKey(w.caBundle.secretRef, "ca.crt"),
      authorization: `${auth.type ?? "Bearer"} ${(await secretKey(auth.secretRef, "")).trim()}`,
      timeoutMs: Number(/^(\d+)s$/.exec(w.timeout ?? "10s")?.[1] ?? "10") * 1000,
    });
  }
  if (JSON.stringify(resolved[0]) !== JSON.stringify(resolved[1]))
    throw new Error("the sync and customize webhooks differ");
  return resolved[0]!;
}

// ---------------------------------------------------------------- rolling restart

/** What a replaced pod showed: its shutdown from SIGTERM, and the requests it had then and after. */
interface ShutdownFigures {
  pod: string;
  /** From the pod's own log ("shutting down", pino's time) to its process gone from /proc. */
  sigtermToExitMs: number | undefined;
  /** When the proxy stopped sending new connections to it, relative to SIGTERM (negative: before). */
  endpointRemovedMs: number | undefined;
  /** Requests to it that were in flight at SIGTERM, and how many of those completed (HTTP 200). */
  inFlightAtSigterm: number;
  completed: number;
  /** Requests that reached it after SIGTERM (kept-alive connections), and how many were answered 200. */
  afterSigterm: number;
  answeredAfterSigterm: number;
  /** What the hook logged: requests in progress at SIGTERM, answered after it, and its own SIGTERM → stopped. */
  logged: { inProgress?: number; answered?: number; stoppedMs?: number };
  /** Its memory cgroup's peak, last read before it exited (MiB). */
  peakMiB: number | undefined;
  /** Its shutdown log lines. */
  log: string[];
}

export interface RestartFigures {
  syncs: number;
  failedSyncs: number;
  /** The first distinct failure messages. */
  failures: string[];
  hookRequests: number;
  failedRequests: number;
  /** `kubectl rollout restart` → rolled out and the old pods' processes gone. */
  rolloutMs: number;
  replaced: ShutdownFigures[];
  started: HookPodFigures[];
}

/**
 * Syncs each of `parents` back to back (one Metacontroller worker each), runs
 * `kubectl rollout restart` on the hook's Deployment, and keeps syncing until
 * the new pods serve and the old ones have exited, then `settleMs` more.
 */
export async function restartUnderSyncs(
  hook: InClusterHook,
  kube: Kube,
  mc: Metacontroller,
  parents: { namespace: string; name: string }[],
  settleMs = 2_000,
): Promise<RestartFigures> {
  const before = await hook.pods();
  // The old pods' logs, followed until their containers end (the pod object goes soon after).
  const logs = new Map(
    before.map((p) => [
      p.name,
      kube
        .request<string>({
          method: "GET",
          path: `/api/v1/namespaces/${HOOK_NS}/pods/${p.name}/log`,
          query: { follow: "true" },
        })
        .then((r) => (typeof r.body === "string" ? r.body : JSON.stringify(r.body)))
        .catch((e: Error) => `(log: ${e.message})`),
    ]),
  );
  const pids = new Map(before.map((p) => [p.name, podProcesses(p.uid)]));
  const exitedAt = new Map<string, number>();
  const peaks = new Map<string, number>();
  const watchMemory = setInterval(() => {
    for (const p of before)
      if (!exitedAt.has(p.name))
        try {
          peaks.set(p.name, podMemory(p.uid).peakMiB);
        } catch {
          // its cgroup is gone
        }
  }, 250);
  const watchExit = setInterval(() => {
    for (const [pod, list] of pids)
      if (!exitedAt.has(pod) && list.every((pid) => !processRunning(pid)))
        exitedAt.set(pod, Date.now());
  }, 20);

  let stop = false;
  let syncs = 0;
  const failures: string[] = [];
  const worker = async (p: { namespace: string; name: string }) => {
    while (!stop) {
      syncs++;
      try {
        const round = await mc.sync(p.namespace, p.name);
        if (round === undefined) failures.push(`${p.name}: the parent is gone`);
        else if (round.httpStatus !== 200)
          failures.push(
            `${p.name}: /sync answered ${round.httpStatus}: ${JSON.stringify(round.body)}`,
          );
        else if (round.errors.length > 0) failures.push(`${p.name}: ${round.errors.join("; ")}`);
      } catch (err) {
        failures.push(`${p.name}: ${(err as Error).message}`);
      }
    }
  };
  const firstRequest = hook.proxy.requests.length;
  const workers = parents.map(worker);
  await new Promise((r) => setTimeout(r, settleMs));
  const t0 = Date.now();
  await hook.kubectl(["-n", HOOK_NS, "rollout", "restart", `deployment/${HOOK}`]);
  const after = await waitFor(
    "the hook's rolling restart",
    async () => {
      const pods = await hookRolledOut(kube);
      if (pods === undefined || pods.some((p) => before.some((b) => b.name === p.name)))
        return undefined;
      return exitedAt.size === before.length ? pods : undefined;
    },
    180_000,
    100,
  );
  const rolloutMs = Date.now() - t0;
  await new Promise((r) => setTimeout(r, settleMs));
  stop = true;
  await Promise.all(workers);
  clearInterval(watchExit);
  clearInterval(watchMemory);

  const requests = hook.proxy.requests.slice(firstRequest);
  const replaced: ShutdownFigures[] = [];
  for (const p of before) {
    const text = await Promise.race([
      logs.get(p.name)!,
      new Promise<string>((r) =>
        setTimeout(() => r("(log: still streaming 15 s after the exit)"), 15_000),
      ),
    ]);
    const lines = text.split("\n").filter((l) => l.trim() !== "");
    const entries = lines.flatMap((l) => {
      try {
        return [
          JSON.parse(l) as {
            time: number;
            msg: string;
            inProgress?: number;
            answered?: number;
            ms?: number;
          },
        ];
      } catch {
        return [];
      }
    });
    const shutting = entries.find((e) => e.msg === "shutting down");
    const stopped = entries.find((e) => e.msg === "stopped");
    const sigterm = shutting?.time;
    const exit = exitedAt.get(p.name);
    const mine = requests.filter((r) => r.pod === p.name);
    const inFlight =
      sigterm === undefined ? [] : mine.filter((r) => r.start < sigterm && r.end >= sigterm);
    const later = sigterm === undefined ? [] : mine.filter((r) => r.start >= sigterm);
    const removed = hook.proxy.changes.find((c) => c.at >= t0 && !c.ready.includes(p.name))?.at;
    replaced.push({
      pod: p.name,
      sigtermToExitMs: sigterm === undefined || exit === undefined ? undefined : exit - sigterm,
      endpointRemovedMs:
        sigterm === undefined || removed === undefined ? undefined : removed - sigterm,
      inFlightAtSigterm: inFlight.length,
      completed: inFlight.filter((r) => r.status === 200).length,
      afterSigterm: later.length,
      answeredAfterSigterm: later.filter((r) => r.status === 200).length,
      logged: {
        ...(shutting?.inProgress === undefined ? {} : { inProgress: shutting.inProgress }),
        ...(stopped?.answered === undefined ? {} : { answered: stopped.answered }),
        ...(stopped?.ms === undefined ? {} : { stoppedMs: stopped.ms }),
      },
      peakMiB: peaks.get(p.name),
      log:
        sigterm === undefined
          ? lines.slice(-5)
          : entries.filter((e) => e.time >= sigterm).map((e) => JSON.stringify(e)),
    });
  }
  const started: HookPodFigures[] = [];
  for (const p of after) started.push(await startFigures(kube, p));
  return {
    syncs,
    failedSyncs: failures.length,
    failures: [...new Set(failures)].slice(0, 10),
    hookRequests: requests.length,
    failedRequests: requests.filter((r) => r.status !== 200).length,
    rolloutMs,
    replaced,
    started,
  };
}

function processRunning(pid: number): boolean {
  try {
    // A zombie (state Z) has exited; its parent has not reaped it yet.
    return !/^\d+ \(.*\) Z /.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

/** "container start → listening → Ready" of one pod, in seconds. */
export function describeStart(f: HookPodFigures): string {
  return `container start → listening ${(f.listeningMs / 1000).toFixed(1)} s → Ready ${(f.readyMs / 1000).toFixed(1)} s (start and Ready are whole seconds)`;
}

/** One line per replaced pod and the totals, for the test's output and the bench. */
export function describeRestart(f: RestartFigures): string[] {
  const ms = (v: number | undefined) => (v === undefined ? "?" : `${v} ms`);
  const endpoint = (v: number | undefined) =>
    v === undefined
      ? "endpoint still ready?"
      : v < 0
        ? `endpoint not ready ${-v} ms before SIGTERM`
        : `endpoint not ready ${v} ms after SIGTERM`;
  return [
    `rolling restart of the hook under steady syncs: ${f.syncs} syncs, failed syncs: ${f.failedSyncs}; ${f.hookRequests} hook requests, ${f.failedRequests} failed; rolled out in ${(f.rolloutMs / 1000).toFixed(1)} s`,
    ...f.replaced.map(
      (r) =>
        `  ${r.pod}: SIGTERM → exit ${ms(r.sigtermToExitMs)}; ${endpoint(r.endpointRemovedMs)}; in flight at SIGTERM ${r.inFlightAtSigterm}, completed ${r.completed}; sent after SIGTERM ${r.afterSigterm}, answered ${r.answeredAfterSigterm}; the hook logged ${r.logged.inProgress ?? "?"} in progress at SIGTERM, ${r.logged.answered ?? "?"} answered after it, stopped after ${ms(r.logged.stoppedMs)}; memory peak ${r.peakMiB === undefined ? "?" : `${r.peakMiB.toFixed(0)} MiB`}`,
    ),
    ...f.started.map((s) => `  ${s.pod}: ${describeStart(s)}`),
    ...f.failures.map((m) => `  failure: ${m}`),
  ];
}
