// The confused-deputy rule's lists are Pod Security's own: read here from the
// source of k8s.io/pod-security-admission at the version test/k8s/go.mod pins
// (the module the suite's kube-apiserver is built with), so that a Kubernetes
// bump that changes a check fails here until src/api/pod-security.ts and
// src/children/pod-policy.ts follow. Compared: every check's ID and level, and
// through the rule itself (podSecurityFindings) the volume types restricted
// allows, the capabilities baseline allows, the safe sysctls and the SELinux
// types of the latest version, each with a value outside the list beside it.
import { expect } from "chai";
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Deployment } from "kubernetes-types/apps/v1.js";
import type { PodSpec } from "kubernetes-types/core/v1.js";
import { POD_SECURITY_CHECKS, VOLUME_TYPES } from "../../src/api/pod-security.js";
import { podSecurityFindings } from "../../src/children/pod-policy.js";
import { syncUnder, BASE } from "../unit/children/pod-policy-sync.js";

const dir = import.meta.dirname;
const MODULE = "k8s.io/pod-security-admission";

/** The version go.mod's replace directive pins the module to. */
function pinnedVersion(): string {
  const goMod = readFileSync(join(dir, "go.mod"), "utf8");
  const pinned = new RegExp(`^\\s*${MODULE.replaceAll(".", "\\.")} => \\S+ (v\\S+)\\s*$`, "m").exec(
    goMod,
  );
  if (pinned === null) throw new Error(`test/k8s/go.mod has no replace for ${MODULE}`);
  return pinned[1]!;
}

/** The module's policy/ folder, from Go's module cache (downloaded through the proxy when absent). */
function policyDir(version: string): string {
  const out = execFileSync("go", ["mod", "download", "-json", `${MODULE}@${version}`], {
    cwd: dir,
    env: { ...process.env, GOTOOLCHAIN: "local", GOFLAGS: "-mod=mod" },
    encoding: "utf8",
  });
  return join((JSON.parse(out) as { Dir: string }).Dir, "policy");
}

/** The quoted strings between `start` and the next line that is only `end`. */
function quotedAfter(source: string, start: string, end: RegExp): string[] {
  const from = source.indexOf(start);
  if (from === -1) throw new Error(`not found in Pod Security's source: ${start}`);
  const rest = source.slice(from + start.length);
  const block = rest.slice(0, rest.search(end));
  return [...block.matchAll(/"([^"]*)"/g)].map((m) => m[1]!);
}

/** A Go field name as its JSON name: CSI → csi, DownwardAPI → downwardAPI. */
const jsonName = (field: string) =>
  field === field.toUpperCase() ? field.toLowerCase() : field[0]!.toLowerCase() + field.slice(1);

const built = syncUnder(BASE).children.find(
  (c) => c.kind === "Deployment",
) as unknown as Deployment;

/** The check IDs the rule finds on the pod the hook builds, with `edit` applied. */
function checksOn(edit: (pod: PodSpec) => void): string[] {
  const pod = structuredClone(built.spec?.template.spec);
  if (pod === undefined) throw new Error("the hook built no pod template");
  edit(pod);
  return podSecurityFindings(pod, {}).map((f) => f.check);
}

describe("the confused-deputy rule's lists are Pod Security's source", function () {
  this.timeout(120_000);
  const version = pinnedVersion();
  let policy: string;
  const read = (file: string) => readFileSync(join(policy, file), "utf8");

  before(() => {
    policy = policyDir(version);
  });

  it("the module is the suite's Kubernetes release (v1.x.y ↔ v0.x.y)", () => {
    const release = readFileSync(join(dir, "KUBERNETES_VERSION"), "utf8").trim();
    expect(version).to.equal(release.replace(/^v1\./, "v0."));
  });

  it("every check's ID and level", () => {
    const found: Record<string, string> = {};
    for (const file of readdirSync(policy).filter(
      (f) => f.startsWith("check_") && !f.endsWith("_test.go"),
    )) {
      const source = read(file);
      const constants = new Map(
        [...source.matchAll(/(\w+)\s+CheckID\s*=\s*"(\w+)"/g)].map((m) => [m[1]!, m[2]!]),
      );
      const check = /ID:\s+("?)(\w+)\1,\s*\n\s*Level:\s+api\.Level(\w+),/.exec(source);
      if (check === null) throw new Error(`${file}: no check found`);
      const id = check[1] === '"' ? check[2]! : constants.get(check[2]!);
      if (id === undefined) throw new Error(`${file}: ${check[2]} is not a CheckID constant`);
      found[id] = check[3]!.toLowerCase();
    }
    expect(found).to.deep.equal({ ...POD_SECURITY_CHECKS });
  });

  it("the volume types restricted allows (every other type a finding of restrictedVolumes)", () => {
    const source = read("check_restrictedVolumes.go");
    const allowedBlock = source.slice(
      source.indexOf("case volume."),
      source.indexOf("continue", source.indexOf("case volume.")),
    );
    const allowed = [...allowedBlock.matchAll(/volume\.(\w+) != nil/g)].map((m) => jsonName(m[1]!));
    expect(allowed).to.include.members(["configMap", "csi", "emptyDir", "persistentVolumeClaim"]);
    for (const type of VOLUME_TYPES) {
      const checks = checksOn((pod) => (pod.volumes ??= []).push({ name: "probe", [type]: {} }));
      expect(checks.includes("restrictedVolumes"), type).to.equal(!allowed.includes(type));
    }
  });

  it("the capabilities baseline allows a container to add", () => {
    const allowed = quotedAfter(
      read("check_capabilities_baseline.go"),
      "capabilities_allowed_1_0 = sets.NewString(",
      /^\s*\)\s*$/m,
    );
    expect(allowed).to.include("NET_BIND_SERVICE");
    const add = (cap: string) =>
      checksOn((pod) => {
        const sc = (pod.containers[0]!.securityContext ??= {});
        sc.capabilities = { ...sc.capabilities, add: [cap] };
      });
    for (const cap of allowed) expect(add(cap), cap).to.not.include("capabilities_baseline");
    for (const cap of ["SYS_ADMIN", "NET_ADMIN", "NET_RAW", "SYS_PTRACE"])
      expect(add(cap), cap).to.include("capabilities_baseline");
  });

  it("the safe sysctls of the latest version", () => {
    const safe = quotedAfter(read("check_sysctls.go"), "sysctlsAllowedV1Dot0 = ", /^\)\s*$/m);
    expect(safe).to.include("kernel.shm_rmid_forced");
    const set = (name: string) =>
      checksOn(
        (pod) =>
          (pod.securityContext = { ...pod.securityContext, sysctls: [{ name, value: "1" }] }),
      );
    for (const name of safe) expect(set(name), name).to.not.include("sysctls");
    for (const name of ["kernel.msgmax", "net.core.somaxconn", "vm.swappiness"])
      expect(set(name), name).to.include("sysctls");
  });

  it("the SELinux types of the latest version", () => {
    const source = read("check_seLinuxOptions.go");
    const latest = [
      ...source.matchAll(/^\s*(selinuxAllowedTypes\w+)\s*=\s*sets\.New\((.*)\)\s*$/gm),
    ]
      .map((m) => [...m[2]!.matchAll(/"([^"]*)"/g)].map((q) => q[1]!))
      .at(-1);
    if (latest === undefined) throw new Error("no SELinux types found");
    expect(latest).to.include("container_t");
    const type = (t: string) =>
      checksOn(
        (pod) => (pod.securityContext = { ...pod.securityContext, seLinuxOptions: { type: t } }),
      );
    for (const t of latest) expect(type(t), t).to.not.include("seLinuxOptions");
    for (const t of ["spc_t", "unconfined_t"]) expect(type(t), t).to.include("seLinuxOptions");
  });
});
