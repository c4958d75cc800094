// A real control plane on loopback for the test suite: etcd, kube-apiserver
// and kube-controller-manager (garbage collection, namespaces, service
// accounts, Deployments and ReplicaSets), built from source by build.sh
// (paths from test/prepare-peers.sh). Certificates, service-account keys and
// tokens are made per run in a temp dir; every process is stopped and the dir
// removed afterwards, also when startup fails halfway.
import { spawn, type ChildProcess } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { loadPeers } from "../peers.js";
import { Kube } from "./kube.js";
import { freePort } from "../net.js";
import { issue, keyPair, makeCa } from "../pki.js";

/** What a control plane needs for a real node (test/node/node.ts) to join it. */
export interface NodeAccess {
  /** The node's name and address (the address goes into the serving certificate too). */
  nodeName: string;
  nodeIp: string;
}

export interface ControlPlane {
  server: string;
  /** With NodeAccess: the node's bearer token (user system:node:<name>, group system:nodes). */
  nodeToken?: string;
  /** etcd's client URL (plain HTTP on loopback), for tests that read what is stored. */
  etcd: string;
  ca: Buffer;
  token: string;
  kubeconfig: string;
  /** The kubectl of the control plane's release. */
  kubectl: string;
  dir: string;
  pids: Record<string, number>;
  timings: Record<string, number>;
  kube: Kube;
  stop(): Promise<void>;
}

function log(msg: string, label = ""): void {
  process.stderr.write(`[k8s${label === "" ? "" : ` ${label}`}] ${msg}\n`);
}

function makePki(dir: string, node: NodeAccess | undefined): void {
  makeCa(dir, "ca", "/CN=llsd-test-ca");
  issue(
    dir,
    "ca",
    "serving",
    "/CN=kube-apiserver",
    `subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:kubernetes.default.svc${node === undefined ? "" : `,IP:${node.nodeIp}`}\nextendedKeyUsage=serverAuth\n`,
  );
  // The API server's client certificate towards the kubelet (logs, exec, port-forward).
  if (node !== undefined)
    issue(
      dir,
      "ca",
      "kubelet-client",
      "/CN=kube-apiserver-kubelet-client/O=system:masters",
      "extendedKeyUsage=clientAuth\n",
    );
  keyPair(dir, "sa");
}

function kubeconfigText(server: string, caFile: string, token: string): string {
  return [
    "apiVersion: v1",
    "kind: Config",
    "clusters:",
    "  - name: llsd-test",
    "    cluster:",
    `      server: ${server}`,
    `      certificate-authority: ${caFile}`,
    "users:",
    "  - name: admin",
    "    user:",
    `      token: ${token}`,
    "contexts:",
    "  - name: llsd-test",
    "    context: { cluster: llsd-test, user: admin }",
    "current-context: llsd-test",
    "",
  ].join("\n");
}

function tail(file: string, lines = 40): string {
  try {
    return readFileSync(file, "utf8").split("\n").slice(-lines).join("\n");
  } catch {
    return "(no log)";
  }
}

async function poll(
  what: string,
  probe: () => Promise<boolean>,
  timeoutMs: number,
  proc: ChildProcess,
  logFile: string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (proc.exitCode !== null || proc.signalCode !== null)
      throw new Error(`${what} exited (${proc.exitCode ?? proc.signalCode}):\n${tail(logFile)}`);
    if (await probe().catch(() => false)) return;
    if (Date.now() > deadline)
      throw new Error(`${what} not ready after ${timeoutMs / 1000}s:\n${tail(logFile)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** SIGTERM, then SIGKILL after `graceMs`; resolves once the process is gone. */
export async function stopProcess(proc: ChildProcess, graceMs = 10_000): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => proc.once("exit", () => resolve()));
  proc.kill("SIGTERM");
  const timer = setTimeout(() => proc.kill("SIGKILL"), graceMs);
  await exited;
  clearTimeout(timer);
}

/** kube-controller-manager's controllers: what the suite needs, and what a node needs besides. */
const CONTROLLERS = [
  "garbage-collector-controller",
  "namespace-controller",
  "serviceaccount-controller",
  "deployment-controller",
  "replicaset-controller",
  "disruption-controller",
  "persistentvolume-protection-controller",
  "persistentvolumeclaim-protection-controller",
];
const NODE_CONTROLLERS = [
  // Removes the not-ready taint the API server puts on every new Node.
  "node-lifecycle-controller",
  "endpointslice-controller",
  "persistentvolume-binder-controller",
];

/**
 * Where a control plane's binaries are: kube-apiserver, kube-controller-manager
 * and kubectl in `kube`, etcd in `etcd` (the oldest release reuses the suite's).
 */
export interface Binaries {
  kube: string;
  etcd: string;
  /** Names the control plane in its log lines when several run. */
  label?: string;
}

export async function startControlPlane(
  node?: NodeAccess,
  binaries: Binaries = { kube: loadPeers().k8sBinDir, etcd: loadPeers().k8sBinDir },
): Promise<ControlPlane> {
  const bin = binaries.kube;
  const dir = mkdtempSync(join(tmpdir(), "llsd-k8s-"));
  const procs: ChildProcess[] = [];
  const timings: Record<string, number> = {};
  const started = Date.now();
  const stop = async () => {
    for (const p of [...procs].reverse()) await stopProcess(p);
    rmSync(dir, { recursive: true, force: true });
  };
  const launch = (name: string, args: string[]): { proc: ChildProcess; logFile: string } => {
    const logFile = join(dir, `${name}.log`);
    const fd = openSync(logFile, "a");
    const proc = spawn(join(name === "etcd" ? binaries.etcd : bin, name), args, {
      stdio: ["ignore", fd, fd],
    });
    closeSync(fd);
    procs.push(proc);
    return { proc, logFile };
  };
  try {
    let t = Date.now();
    makePki(dir, node);
    const token = randomBytes(24).toString("hex");
    const nodeToken = node === undefined ? undefined : randomBytes(24).toString("hex");
    writeFileSync(
      join(dir, "tokens.csv"),
      `${token},admin,admin-uid,"system:masters"\n` +
        (node === undefined
          ? ""
          : `${nodeToken},system:node:${node.nodeName},node-uid,"system:nodes"\n`),
    );
    timings["pki"] = Date.now() - t;

    t = Date.now();
    const [etcdClient, etcdPeer, apiPort, cmPort] = [
      await freePort(),
      await freePort(),
      await freePort(),
      await freePort(),
    ];
    const etcd = launch("etcd", [
      "--name=default",
      `--data-dir=${join(dir, "etcd")}`,
      `--listen-client-urls=http://127.0.0.1:${etcdClient}`,
      `--advertise-client-urls=http://127.0.0.1:${etcdClient}`,
      `--listen-peer-urls=http://127.0.0.1:${etcdPeer}`,
      `--initial-advertise-peer-urls=http://127.0.0.1:${etcdPeer}`,
      `--initial-cluster=default=http://127.0.0.1:${etcdPeer}`,
      "--unsafe-no-fsync",
    ]);
    await poll(
      "etcd",
      async () => (await fetch(`http://127.0.0.1:${etcdClient}/health`)).ok,
      30_000,
      etcd.proc,
      etcd.logFile,
    );
    timings["etcd"] = Date.now() - t;
    log(`etcd ready in ${timings["etcd"]} ms`, binaries.label);

    t = Date.now();
    const server = `https://127.0.0.1:${apiPort}`;
    const ca = readFileSync(join(dir, "ca.crt"));
    const api = launch("kube-apiserver", [
      `--etcd-servers=http://127.0.0.1:${etcdClient}`,
      "--bind-address=127.0.0.1",
      "--advertise-address=127.0.0.1",
      // No kubernetes Service endpoints for a loopback address (1.37 refuses them otherwise).
      "--endpoint-reconciler-type=none",
      `--secure-port=${apiPort}`,
      `--tls-cert-file=${join(dir, "serving.crt")}`,
      `--tls-private-key-file=${join(dir, "serving.key")}`,
      `--client-ca-file=${join(dir, "ca.crt")}`,
      `--token-auth-file=${join(dir, "tokens.csv")}`,
      "--authorization-mode=Node,RBAC",
      "--service-account-issuer=https://kubernetes.default.svc",
      `--service-account-key-file=${join(dir, "sa.pub")}`,
      `--service-account-signing-key-file=${join(dir, "sa.key")}`,
      // Room for a fleet: one ClusterIP per parent (a /24 holds 253 Services).
      "--service-cluster-ip-range=10.0.0.0/16",
      `--cert-dir=${join(dir, "apiserver-certs")}`,
      "--profiling=false",
      ...(node === undefined
        ? []
        : [
            `--kubelet-client-certificate=${join(dir, "kubelet-client.crt")}`,
            `--kubelet-client-key=${join(dir, "kubelet-client.key")}`,
            // The node's name is not resolvable here; its address is.
            "--kubelet-preferred-address-types=InternalIP",
            "--enable-admission-plugins=NodeRestriction",
          ]),
    ]);
    const kube = new Kube(server, ca, token);
    await poll(
      "kube-apiserver",
      async () => (await kube.request({ method: "GET", path: "/readyz" })).status === 200,
      90_000,
      api.proc,
      api.logFile,
    );
    timings["apiserver"] = Date.now() - t;
    log(`kube-apiserver ready in ${timings["apiserver"]} ms`, binaries.label);

    t = Date.now();
    const kubeconfig = join(dir, "kubeconfig");
    writeFileSync(kubeconfig, kubeconfigText(server, join(dir, "ca.crt"), token));
    const cm = launch("kube-controller-manager", [
      `--kubeconfig=${kubeconfig}`,
      `--authentication-kubeconfig=${kubeconfig}`,
      `--authorization-kubeconfig=${kubeconfig}`,
      "--leader-elect=false",
      "--use-service-account-credentials=false",
      `--controllers=${[...CONTROLLERS, ...(node === undefined ? [] : NODE_CONTROLLERS)].join(",")}`,
      "--bind-address=127.0.0.1",
      `--secure-port=${cmPort}`,
      `--cert-dir=${join(dir, "cm-certs")}`,
      `--root-ca-file=${join(dir, "ca.crt")}`,
      `--service-account-private-key-file=${join(dir, "sa.key")}`,
      "--concurrent-gc-syncs=5",
    ]);
    await poll(
      "kube-controller-manager",
      () => Kube.insecureGet(`https://127.0.0.1:${cmPort}/healthz`),
      60_000,
      cm.proc,
      cm.logFile,
    );
    timings["controllerManager"] = Date.now() - t;
    timings["total"] = Date.now() - started;
    log(
      `kube-controller-manager ready in ${timings["controllerManager"]} ms; control plane up in ${timings["total"]} ms (logs in ${dir})`,
      binaries.label,
    );
    const pids = {
      etcd: etcd.proc.pid ?? 0,
      "kube-apiserver": api.proc.pid ?? 0,
      "kube-controller-manager": cm.proc.pid ?? 0,
    };
    return {
      server,
      ...(nodeToken === undefined ? {} : { nodeToken }),
      etcd: `http://127.0.0.1:${etcdClient}`,
      ca,
      token,
      kubeconfig,
      kubectl: join(bin, "kubectl"),
      dir,
      pids,
      timings,
      kube,
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** VmRSS of a process in MiB, from /proc. */
export function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m === null ? NaN : Math.round(Number(m[1]) / 1024);
}
