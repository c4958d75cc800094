// What a kubelet and containerd change on the machine whatever their own
// directories are (test/node/README.md "What the node changes on the machine"):
// kernel tunables, fixed host paths, mounts, cgroups, network links, firewall
// tables. `snapshotHost` records them before the node starts, `restoreHost`
// puts back what the node changed, and `diffHost` says what still differs, so
// a test can check that the machine is as it was.
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/**
 * Set by the kubelet at start (setupKernelTunables), and the two the CNI bridge
 * plugin may set; written back at stop.
 */
const SYSCTLS = [
  "vm/overcommit_memory",
  "vm/panic_on_oom",
  "kernel/panic",
  "kernel/panic_on_oops",
  "kernel/keys/root_maxkeys",
  "kernel/keys/root_maxbytes",
  "net/ipv4/ip_forward",
] as const;

/**
 * Paths the kubelet, containerd, its shims and libcni use whatever their
 * configuration says (or by default, when a setting was missed).
 */
const FIXED_PATHS = [
  "/var/lib/kubelet",
  "/var/log/containers",
  "/var/log/pods",
  "/run/containerd",
  "/var/lib/containerd",
  "/var/lib/cni",
  "/etc/cni",
  "/opt/cni",
  "/opt/containerd",
  "/usr/libexec/kubernetes",
  "/run/netns",
  "/etc/kubernetes",
  "/run/kubernetes",
] as const;

export interface HostState {
  sysctls: Record<string, string>;
  /** Fixed paths that exist. */
  paths: string[];
  mounts: string[];
  /** `<hierarchy>/<top-level dir>` in every cgroup hierarchy. */
  cgroups: string[];
  links: string[];
  /** `nft list tables`, or "" without nft. */
  firewall: string;
}

function sysctlPath(name: string): string {
  return join("/proc/sys", name);
}

function readSysctls(): Record<string, string> {
  return Object.fromEntries(
    SYSCTLS.filter((n) => existsSync(sysctlPath(n))).map((n) => [
      n.replaceAll("/", "."),
      readFileSync(sysctlPath(n), "utf8").trim(),
    ]),
  );
}

function mountPoints(): string[] {
  return readFileSync("/proc/self/mountinfo", "utf8")
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => l.split(" ")[4] ?? "")
    .map((p) => p.replace(/\\040/g, " "));
}

/**
 * The cgroups of the image test's runc containers (test/install/image.test.ts
 * names its containers so): that test runs beside the node's (test/run-suite.sh)
 * and removes its own, so they are not the node's change to the machine.
 */
export const IMAGE_TEST_CONTAINERS = "llsd-hook-image-";

function cgroupDirs(): string[] {
  const root = "/sys/fs/cgroup";
  if (!existsSync(root)) return [];
  return readdirSync(root).flatMap((h) => {
    try {
      return readdirSync(join(root, h), { withFileTypes: true })
        .filter((e) => e.isDirectory() && !e.name.startsWith(IMAGE_TEST_CONTAINERS))
        .map((e) => `${h}/${e.name}`);
    } catch {
      return [];
    }
  });
}

function firewall(): string {
  try {
    return execFileSync("nft", ["list", "tables"], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    });
  } catch {
    return "";
  }
}

export function snapshotHost(): HostState {
  return {
    sysctls: readSysctls(),
    paths: FIXED_PATHS.filter((p) => existsSync(p)),
    mounts: [...new Set(mountPoints())].sort(),
    cgroups: cgroupDirs().sort(),
    links: readdirSync("/sys/class/net").sort(),
    firewall: firewall(),
  };
}

/** What differs from `before`, one line each; [] when the machine is as it was. */
export function diffHost(before: HostState, after: HostState = snapshotHost()): string[] {
  const out: string[] = [];
  for (const [k, v] of Object.entries(before.sysctls))
    if (after.sysctls[k] !== v) out.push(`sysctl ${k}: ${v} before, ${after.sysctls[k]} now`);
  const sets: [string, string[], string[]][] = [
    ["path", before.paths, after.paths],
    ["mount", before.mounts, after.mounts],
    ["cgroup", before.cgroups, after.cgroups],
    ["link", before.links, after.links],
  ];
  for (const [what, a, b] of sets) {
    for (const x of b) if (!a.includes(x)) out.push(`${what} ${x}: added`);
    for (const x of a) if (!b.includes(x)) out.push(`${what} ${x}: removed`);
  }
  if (before.firewall !== after.firewall)
    out.push(
      `firewall tables: ${JSON.stringify(before.firewall)} before, ${JSON.stringify(after.firewall)} now`,
    );
  return out;
}

/** Removes a cgroup directory tree, deepest first (rmdir only: the kernel frees cgroups, not rm). */
function removeCgroup(dir: string): void {
  for (const e of readdirSync(dir, { withFileTypes: true }))
    if (e.isDirectory()) removeCgroup(join(dir, e.name));
  try {
    execFileSync("rmdir", [dir], { stdio: "ignore" });
  } catch {
    // still has a process; reported by diffHost
  }
}

/**
 * Puts back what the node changed since `before`: unmounts what was mounted
 * under `runDir` or in a fixed path, removes new cgroups, links and fixed
 * paths, writes the sysctls back. Processes must be gone already.
 */
export function restoreHost(before: HostState, runDir: string): void {
  const owned = (p: string) =>
    p.startsWith(`${runDir}/`) ||
    p === runDir ||
    FIXED_PATHS.some((f) => !before.paths.includes(f) && (p === f || p.startsWith(`${f}/`)));
  const added = [...new Set(mountPoints())]
    .filter((m) => !before.mounts.includes(m) && owned(m))
    .sort((a, b) => b.length - a.length);
  for (const m of added) {
    try {
      execFileSync("umount", ["-l", m], { stdio: "ignore" });
    } catch {
      // already gone with its parent
    }
  }
  for (const c of cgroupDirs())
    if (!before.cgroups.includes(c)) removeCgroup(join("/sys/fs/cgroup", c));
  for (const l of readdirSync("/sys/class/net"))
    if (!before.links.includes(l)) {
      try {
        execFileSync("ip", ["link", "delete", l], { stdio: "ignore" });
      } catch {
        // a veth goes with its peer
      }
    }
  for (const p of FIXED_PATHS)
    if (!before.paths.includes(p) && existsSync(p)) rmSync(p, { recursive: true, force: true });
  for (const [k, v] of Object.entries(before.sysctls)) {
    const path = sysctlPath(k.replaceAll(".", "/"));
    if (readFileSync(path, "utf8").trim() !== v) writeFileSync(path, `${v}\n`);
  }
}
