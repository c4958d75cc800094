// A real node for the suite (test/node/README.md): a control plane of its own
// (test/k8s/cluster.ts with a node's access, a scheduler), then containerd,
// runc, the CNI bridge plugin and a kubelet on this machine, built by
// test/node/build.sh. Pods get addresses on a bridge made for the test and
// reach only the bridge's address (no kube-proxy, no cluster DNS); the host
// reaches the pods. What the kubelet and containerd change on the machine is
// recorded before they start and put back at stop (host.ts); a lock keeps two
// runs off the fixed host paths.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import {
  chmodSync,
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createServer, connect, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadPeers } from "../peers.js";
import { freePort } from "../net.js";
import { startControlPlane, stopProcess, type ControlPlane } from "../k8s/cluster.js";
import { waitFor } from "../k8s/kube.js";
import { diffHost, restoreHost, snapshotHost, type HostState } from "./host.js";

const NODE_NAME = "llsd-node";
/** The test's bridge: the host's address on it, where pods can reach the host. */
export const BRIDGE = {
  name: "llsdnode0",
  ip: "10.244.0.1",
  cidr: "10.244.0.1/24",
  subnet: "10.244.0.0/24",
  rangeStart: "10.244.0.10",
} as const;
const LOCK = "/run/llsd-hook-node.lock";
/** What a run records beside the lock, so that the next run can undo what a killed one left. */
const STATE = "/run/llsd-hook-node.json";

interface SavedState {
  pid: number;
  run: string;
  bin: string;
  before: HostState;
  /** The control plane's processes (etcd, kube-apiserver, kube-controller-manager). */
  controlPlanePids?: number[];
}

export interface NodeCluster {
  cp: ControlPlane;
  /** The API server as pods reach it: https://<bridge address>:<port> (its certificate names it). */
  apiServerOnBridge: string;
  timings: Record<string, number>;
  /** Imports an OCI archive into the node's image store (once per path). */
  importImage(archive: string): Promise<number>;
  /** A directory on the node for a hostPath PersistentVolume, writable by the pods' user; removed at stop. */
  volumeDir(name: string): string;
  /** The kubelet's log, for a failing test's message. */
  logs(name: "kubelet" | "containerd"): string;
  /** Stops everything and puts the machine back; returns what still differs from before (none: []). */
  stop(): Promise<string[]>;
}

function log(msg: string): void {
  process.stderr.write(`[node] ${msg}\n`);
}

/** Why a node cannot start on this machine, or undefined when it can. */
export function nodeUnavailable(): string | undefined {
  if (process.getuid?.() !== 0) return "the node needs root (containers, mounts, a bridge)";
  if (!readFileSync("/proc/filesystems", "utf8").includes("overlay"))
    return "the kernel has no overlayfs (containerd's snapshotter)";
  if (!existsSync("/sys/fs/cgroup/memory") && !existsSync("/sys/fs/cgroup/cgroup.controllers"))
    return "no cgroup hierarchy with the memory controller";
  try {
    execFileSync("ip", ["-V"], { stdio: "ignore" });
  } catch {
    return "no `ip` command (iproute2) to make the test bridge";
  }
  if (loadPeers().node === undefined)
    return "the node was not built (test/node/build.sh via npm run peers)";
  return undefined;
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** How long a run waits for another run's node to stop before it gives up. */
export const LOCK_WAIT_MS = 30 * 60_000;

/**
 * Takes the machine's one node lock, waiting (up to LOCK_WAIT_MS, saying so)
 * while another live run holds it. A lock whose process is gone is taken
 * over after undoing what that run left (its processes, mounts, cgroups,
 * links, paths and tunables, from the state it saved).
 */
async function acquireLock(): Promise<void> {
  const deadline = Date.now() + LOCK_WAIT_MS;
  let said = false;
  for (;;) {
    try {
      writeFileSync(LOCK, String(process.pid), { flag: "wx" });
      return;
    } catch {
      const holder = Number(readFileSync(LOCK, "utf8").trim());
      if (!(Number.isInteger(holder) && holder > 0 && pidAlive(holder))) {
        recoverStale();
        writeFileSync(LOCK, String(process.pid));
        return;
      }
      if (Date.now() > deadline)
        throw new Error(
          `another test run (pid ${holder}) kept a node on this machine (${LOCK}) for ${LOCK_WAIT_MS / 60_000} minutes; the kubelet's fixed paths allow one at a time`,
        );
      if (!said)
        log(
          `another test run (pid ${holder}) has a node on this machine (${LOCK}); waiting for it`,
        );
      said = true;
      await new Promise((resolve) => setTimeout(resolve, 2_000));
    }
  }
}

function recoverStale(): void {
  let saved: SavedState;
  try {
    saved = JSON.parse(readFileSync(STATE, "utf8")) as SavedState;
  } catch {
    log(`a stale ${LOCK} without ${STATE}: nothing recorded to undo`);
    return;
  }
  log(`undoing what the killed run (pid ${saved.pid}, ${saved.run}) left on the machine`);
  // Only if the pid is still one of the control plane's binaries (pids are reused).
  const peersBin = loadPeers().k8sBinDir;
  for (const pid of saved.controlPlanePids ?? [])
    if (processesFrom(peersBin).includes(pid)) safeKill(pid);
  killNodeProcesses(saved.bin);
  restoreHost(saved.before, saved.run);
  rmSync(saved.run, { recursive: true, force: true });
  rmSync(STATE, { force: true });
  const left = diffHost(saved.before);
  if (left.length > 0) log(`still differs after recovery: ${left.join("; ")}`);
}

function killNodeProcesses(bin: string): void {
  for (const pid of [...containerProcesses(), ...processesFrom(bin)]) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // gone
    }
  }
}

function safeKill(pid: number): void {
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // gone
  }
}

function sh(cmd: string, args: string[]): string {
  return execFileSync(cmd, args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

function tail(file: string, lines = 60): string {
  try {
    return readFileSync(file, "utf8").split("\n").slice(-lines).join("\n");
  } catch {
    return "(no log)";
  }
}

/** Every process whose executable is in `dir` (the shims outlive containerd). */
function processesFrom(dir: string): number[] {
  return readdirSync("/proc")
    .filter((p) => /^\d+$/.test(p))
    .map(Number)
    .filter((pid) => {
      try {
        return readlinkSync(`/proc/${pid}/exe`).startsWith(`${dir}/`);
      } catch {
        return false;
      }
    });
}

/** Every process in a kubepods cgroup (the containers' own). */
function containerProcesses(): number[] {
  return readdirSync("/proc")
    .filter((p) => /^\d+$/.test(p))
    .map(Number)
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cgroup`, "utf8").includes("/kubepods");
      } catch {
        return false;
      }
    });
}

function containerdConfig(run: string, bin: string): string {
  return `version = 3
root = "${run}/containerd/root"
state = "${run}/containerd/state"
[grpc]
  address = "${run}/containerd/containerd.sock"
[ttrpc]
  address = "${run}/containerd/containerd.sock.ttrpc"
[plugins."io.containerd.cri.v1.images"]
  snapshotter = "overlayfs"
  [plugins."io.containerd.cri.v1.images".pinned_images]
    sandbox = "registry.k8s.io/pause:3.10.2"
[plugins."io.containerd.cri.v1.runtime"]
  netns_mounts_under_state_dir = true
  # No CAP_SYS_RESOURCE here: the sandbox's oom_score_adj -998 cannot be set.
  restrict_oom_score_adj = true
  [plugins."io.containerd.cri.v1.runtime".containerd]
    default_runtime_name = "runc"
    [plugins."io.containerd.cri.v1.runtime".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.cri.v1.runtime".containerd.runtimes.runc.options]
        BinaryName = "${bin}/runc"
        SystemdCgroup = false
        Root = "${run}/containerd/runc"
  [plugins."io.containerd.cri.v1.runtime".cni]
    bin_dirs = ["${bin}/cni"]
    conf_dir = "${run}/cni/net.d"
[plugins."io.containerd.internal.v1.opt"]
  path = "${run}/containerd/opt"
[plugins."io.containerd.grpc.v1.cri"]
  stream_server_address = "127.0.0.1"
  stream_server_port = "0"
`;
}

function cniConfig(run: string): string {
  return JSON.stringify({
    cniVersion: "1.0.0",
    name: "llsd-node",
    plugins: [
      {
        type: "bridge",
        bridge: BRIDGE.name,
        // No gateway, no masquerade: pods reach the bridge address only, and
        // ip_forward stays as it is.
        isGateway: false,
        ipMasq: false,
        hairpinMode: true,
        ipam: {
          type: "host-local",
          ranges: [[{ subnet: BRIDGE.subnet, rangeStart: BRIDGE.rangeStart, gateway: BRIDGE.ip }]],
          dataDir: `${run}/cni/ipam`,
        },
      },
    ],
  });
}

function kubeletConfig(run: string, cp: ControlPlane, port: number, healthzPort: number): string {
  return `apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
failCgroupV1: false
cgroupDriver: cgroupfs
containerRuntimeEndpoint: unix://${run}/containerd/containerd.sock
address: ${BRIDGE.ip}
port: ${port}
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
healthzPort: ${healthzPort}
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: false}
  x509: {clientCAFile: ${join(cp.dir, "ca.crt")}}
authorization: {mode: AlwaysAllow}
podLogsDir: ${run}/pod-logs
resolvConf: ${run}/kubelet/resolv.conf
failSwapOn: false
protectKernelDefaults: false
makeIPTablesUtilChains: false
volumePluginDir: ${run}/kubelet/volume-plugins
evictionHard: {memory.available: 200Mi, nodefs.available: "2%", imagefs.available: "2%", nodefs.inodesFree: "2%"}
imageGCHighThresholdPercent: 99
imageGCLowThresholdPercent: 98
serializeImagePulls: false
`;
}

function nodeKubeconfig(cp: ControlPlane): string {
  return [
    "apiVersion: v1",
    "kind: Config",
    "clusters:",
    "  - name: llsd-test",
    "    cluster:",
    `      server: ${cp.server}`,
    `      certificate-authority: ${join(cp.dir, "ca.crt")}`,
    "users:",
    "  - name: node",
    "    user:",
    `      token: ${cp.nodeToken ?? ""}`,
    "contexts:",
    "  - name: llsd-test",
    "    context: { cluster: llsd-test, user: node }",
    "current-context: llsd-test",
    "",
  ].join("\n");
}

/** A TCP relay from the bridge address to the API server on loopback, for pods. */
async function relayApiServer(cp: ControlPlane): Promise<{ url: string; server: Server }> {
  const target = new URL(cp.server);
  const port = await freePort();
  const server = createServer((client) => {
    const upstream = connect(Number(target.port), target.hostname);
    client.pipe(upstream).pipe(client);
    const close = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on("error", close);
    upstream.on("error", close);
  });
  await new Promise<void>((resolve) => server.listen(port, BRIDGE.ip, resolve));
  return { url: `https://${BRIDGE.ip}:${port}`, server };
}

interface NodeDone {
  /** Undoes everything at once when the test process is interrupted, then exits. */
  onSignal: (signal: NodeJS.Signals) => void;
  cp?: ControlPlane;
  relay?: Server;
  procs: { name: string; proc: ChildProcess }[];
  run: string;
  bin: string;
  before: HostState;
}

async function teardown(state: NodeDone): Promise<string[]> {
  const t = Date.now();
  const byName = (n: string) => state.procs.find((p) => p.name === n)?.proc;
  // The kubelet first, so it restarts nothing; then the containers, their
  // shims and containerd; then what they left on the machine.
  const kubelet = byName("kubelet");
  if (kubelet !== undefined) await stopProcess(kubelet, 5_000);
  for (const pid of containerProcesses()) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // gone
    }
  }
  for (const { name, proc } of [...state.procs].reverse())
    if (name !== "kubelet") await stopProcess(proc, 5_000);
  killNodeProcesses(state.bin);
  await waitFor(
    "the node's processes to exit",
    async () =>
      processesFrom(state.bin).length === 0 && containerProcesses().length === 0 ? true : undefined,
    20_000,
    200,
  ).catch(() => undefined);
  await new Promise((resolve) => state.relay?.close(resolve) ?? resolve(undefined));
  await state.cp?.stop();
  restoreHost(state.before, state.run);
  rmSync(state.run, { recursive: true, force: true });
  rmSync(STATE, { force: true });
  rmSync(LOCK, { force: true });
  process.removeListener("SIGINT", state.onSignal);
  process.removeListener("SIGTERM", state.onSignal);
  const left = diffHost(state.before);
  log(
    `stopped in ${Date.now() - t} ms${left.length === 0 ? "; the machine is as it was" : `; left: ${left.join("; ")}`}`,
  );
  return left;
}

export async function startNode(): Promise<NodeCluster> {
  const peers = loadPeers();
  const bin = peers.node?.binDir;
  if (bin === undefined) throw new Error("the node was not built (npm run peers)");
  await acquireLock();
  const before = snapshotHost();
  const run = mkdtempSync(join(tmpdir(), "llsd-node-"));
  writeFileSync(STATE, JSON.stringify({ pid: process.pid, run, bin, before } satisfies SavedState));
  const onSignal = (signal: NodeJS.Signals): void => {
    // Synchronous: the process is about to go, and the kubelet and containerd would outlive it.
    for (const { proc } of state.procs) proc.kill("SIGKILL");
    if (state.cp !== undefined) for (const pid of Object.values(state.cp.pids)) safeKill(pid);
    killNodeProcesses(bin);
    restoreHost(before, run);
    rmSync(run, { recursive: true, force: true });
    rmSync(STATE, { force: true });
    rmSync(LOCK, { force: true });
    process.exit(signal === "SIGINT" ? 130 : 143);
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  const state: NodeDone = { procs: [], run, bin, before, onSignal };
  const timings: Record<string, number> = {};
  const started = Date.now();
  const launch = (name: string, file: string, args: string[]): ChildProcess => {
    const logFile = join(run, `${name}.log`);
    const fd = openSync(logFile, "a");
    const proc = spawn(file, args, { stdio: ["ignore", fd, fd] });
    closeSync(fd);
    state.procs.push({ name, proc });
    return proc;
  };
  try {
    let t = Date.now();
    state.cp = await startControlPlane({ nodeName: NODE_NAME, nodeIp: BRIDGE.ip });
    const cp = state.cp;
    const saved: SavedState = {
      pid: process.pid,
      run,
      bin,
      before,
      controlPlanePids: Object.values(cp.pids),
    };
    writeFileSync(STATE, JSON.stringify(saved));
    timings["controlPlane"] = Date.now() - t;

    t = Date.now();
    sh("ip", ["link", "add", BRIDGE.name, "type", "bridge"]);
    sh("ip", ["addr", "add", BRIDGE.cidr, "dev", BRIDGE.name]);
    sh("ip", ["link", "set", BRIDGE.name, "up"]);
    const relay = await relayApiServer(cp);
    state.relay = relay.server;

    const schedulerPort = await freePort();
    launch("kube-scheduler", join(bin, "kube-scheduler"), [
      `--kubeconfig=${cp.kubeconfig}`,
      `--authentication-kubeconfig=${cp.kubeconfig}`,
      `--authorization-kubeconfig=${cp.kubeconfig}`,
      "--leader-elect=false",
      "--bind-address=127.0.0.1",
      `--secure-port=${schedulerPort}`,
    ]);

    for (const d of ["containerd", "cni/net.d", "kubelet", "pod-logs"])
      mkdirSync(join(run, d), { recursive: true });
    writeFileSync(join(run, "containerd", "config.toml"), containerdConfig(run, bin));
    writeFileSync(join(run, "cni", "net.d", "10-llsd-node.conflist"), cniConfig(run));
    const containerd = launch("containerd", join(bin, "containerd"), [
      "--config",
      join(run, "containerd", "config.toml"),
    ]);
    const sock = join(run, "containerd", "containerd.sock");
    await waitFor(
      "containerd's socket",
      async () => {
        if (containerd.exitCode !== null)
          throw new Error(`containerd exited:\n${tail(join(run, "containerd.log"))}`);
        return existsSync(sock) ? true : undefined;
      },
      30_000,
      100,
    );
    timings["containerd"] = Date.now() - t;

    t = Date.now();
    const ctr = (args: string[]) =>
      sh(join(bin, "ctr"), ["--address", sock, "-n", "k8s.io", ...args]);
    ctr(["images", "import", peers.node?.pauseImage ?? ""]);
    timings["pauseImage"] = Date.now() - t;

    t = Date.now();
    const [kubeletPort, healthzPort] = [await freePort(), await freePort()];
    writeFileSync(
      join(run, "kubelet", "config.yaml"),
      kubeletConfig(run, cp, kubeletPort, healthzPort),
    );
    writeFileSync(join(run, "kubelet", "kubeconfig"), nodeKubeconfig(cp));
    // No cluster DNS: names resolve nowhere, at once.
    writeFileSync(join(run, "kubelet", "resolv.conf"), "nameserver 127.0.0.1\n");
    const kubelet = launch("kubelet", join(bin, "kubelet"), [
      `--config=${join(run, "kubelet", "config.yaml")}`,
      `--kubeconfig=${join(run, "kubelet", "kubeconfig")}`,
      `--root-dir=${join(run, "kubelet", "root")}`,
      `--cert-dir=${join(run, "kubelet", "pki")}`,
      `--hostname-override=${NODE_NAME}`,
      `--node-ip=${BRIDGE.ip}`,
    ]);
    await waitFor(
      `the Node ${NODE_NAME} to be Ready and schedulable`,
      async () => {
        if (kubelet.exitCode !== null)
          throw new Error(`the kubelet exited:\n${tail(join(run, "kubelet.log"))}`);
        const node = (await cp.kube.get("v1", "nodes", undefined, NODE_NAME)) as
          | {
              spec?: { taints?: { key: string }[] };
              status?: { conditions?: { type: string; status: string }[] };
            }
          | undefined;
        const ready = node?.status?.conditions?.some(
          (c) => c.type === "Ready" && c.status === "True",
        );
        const tainted = (node?.spec?.taints ?? []).length > 0;
        return ready === true && !tainted ? true : undefined;
      },
      90_000,
      250,
    );
    timings["kubelet"] = Date.now() - t;
    timings["total"] = Date.now() - started;
    log(
      `node ${NODE_NAME} Ready in ${timings["total"]} ms (control plane ${timings["controlPlane"]}, containerd ${timings["containerd"]}, kubelet ${timings["kubelet"]}; logs in ${run})`,
    );

    const imported = new Set<string>();
    let stopped: Promise<string[]> | undefined;
    return {
      cp,
      apiServerOnBridge: relay.url,
      timings,
      importImage: async (archive) => {
        if (imported.has(archive)) return 0;
        const t0 = Date.now();
        ctr(["images", "import", archive]);
        imported.add(archive);
        const ms = Date.now() - t0;
        log(`imported ${archive} in ${ms} ms`);
        return ms;
      },
      volumeDir: (name) => {
        const dir = join(run, "volumes", name);
        mkdirSync(dir, { recursive: true, mode: 0o777 });
        chmodSync(dir, 0o777);
        return dir;
      },
      logs: (name) => tail(join(run, `${name}.log`), 80),
      stop: () => (stopped ??= teardown(state)),
    };
  } catch (err) {
    const left = await teardown(state);
    if (left.length > 0) log(`after a failed start the machine still differs: ${left.join("; ")}`);
    throw err;
  }
}
