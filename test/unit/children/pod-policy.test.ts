// The confused-deputy rule as a table: one row per class of pod field
// PodSecurity limits (its check IDs, k8s.io/pod-security-admission v0.37.2),
// each put into the Deployment the hook builds: refused (baseline, privilege
// escalation, added capabilities) or warned (the rest of restricted) by
// default, passed when ALLOWED_POD_FIELDS names it, and passed by default in
// the shape PodSecurity allows. Then through sync, for the fields a tenant
// reaches today (workload.overrides' volumes and pod annotations): the message
// at the field, the warning condition, and the env setting's parse.
import { expect } from "chai";
import type { Deployment } from "kubernetes-types/apps/v1.js";
import type { Container, PodSpec } from "kubernetes-types/core/v1.js";
import {
  ALLOWABLE_NAMES,
  parseAllowedPodFields,
  POD_SECURITY_CHECKS,
  VOLUME_TYPES,
} from "../../../src/api/pod-security.js";
import { checkPodPolicy, podSecurityFindings } from "../../../src/children/pod-policy.js";
import { msg } from "../../../src/messages.js";
import { sync } from "../../../src/sync.js";
import { syncContext } from "../../support/harness.js";
import { applyAll, request, syncOk } from "../../support/request.js";
import { BASE, syncUnder, withModels } from "./pod-policy-sync.js";

const base = BASE;

const built = syncOk(request(base)).children.find(
  (c) => c.kind === "Deployment",
) as unknown as Deployment;

interface Pod {
  spec: PodSpec;
  container: Container;
  annotations: Record<string, string>;
}

/** The hook's Deployment with `edit` applied to its pod template. */
function shaped(edit: (pod: Pod) => void): Deployment {
  const d = structuredClone(built);
  const template = d.spec?.template;
  const spec = template?.spec;
  const container = spec?.containers[0];
  if (template === undefined || spec === undefined || container === undefined)
    throw new Error("the hook built no pod");
  template.metadata ??= {};
  template.metadata.annotations ??= {};
  edit({ spec, container, annotations: template.metadata.annotations });
  return d;
}

type Verdict = "refused" | "warned" | "passed";

function verdictOf(d: Deployment, allowed: string[] = []): Verdict {
  const v = checkPodPolicy(d, undefined, new Set(allowed));
  if (v.problems.length > 0) return "refused";
  return v.warnings.length > 0 ? "warned" : "passed";
}

const sc = (c: Container) => (c.securityContext ??= {});
const podSc = (p: PodSpec) => (p.securityContext ??= {});

// [class (the check), the shape PodSecurity forbids, its verdict, what ALLOWED_POD_FIELDS names to pass it, the allowed shape]
type Row = [string, (pod: Pod) => void, Verdict, string[], (pod: Pod) => void];
const ROWS: Row[] = [
  [
    "hostPathVolumes",
    ({ spec }) =>
      (spec.volumes = [...(spec.volumes ?? []), { name: "h", hostPath: { path: "/" } }]),
    "refused",
    ["hostPath"],
    ({ spec }) => (spec.volumes = [...(spec.volumes ?? []), { name: "h", emptyDir: {} }]),
  ],
  [
    "restrictedVolumes",
    ({ spec }) =>
      (spec.volumes = [...(spec.volumes ?? []), { name: "n", nfs: { server: "s", path: "/" } }]),
    "warned",
    ["nfs"],
    ({ spec }) =>
      (spec.volumes = [
        ...(spec.volumes ?? []),
        { name: "n", persistentVolumeClaim: { claimName: "models" } },
      ]),
  ],
  ...(["hostNetwork", "hostPID", "hostIPC"] as const).map((field): Row => [
    `hostNamespaces (${field})`,
    ({ spec }) => (spec[field] = true),
    "refused",
    ["hostNamespaces"],
    ({ spec }) => (spec[field] = false),
  ]),
  [
    "hostPorts",
    ({ container }) => (container.ports = [{ containerPort: 8321, hostPort: 8321 }]),
    "refused",
    ["hostPorts"],
    ({ container }) => (container.ports = [{ containerPort: 8321, hostPort: 0 }]),
  ],
  [
    "privileged",
    ({ container }) => (sc(container).privileged = true),
    "refused",
    ["privileged"],
    ({ container }) => (sc(container).privileged = false),
  ],
  [
    "capabilities_baseline and _restricted: an added capability",
    ({ container }) => (sc(container).capabilities = { drop: ["ALL"], add: ["SYS_ADMIN"] }),
    "refused",
    ["capabilities_baseline", "capabilities_restricted"],
    ({ container }) => (sc(container).capabilities = { drop: ["ALL"], add: ["NET_BIND_SERVICE"] }),
  ],
  [
    "capabilities_restricted: one baseline allows",
    ({ container }) => (sc(container).capabilities = { drop: ["ALL"], add: ["CHOWN"] }),
    "refused",
    ["capabilities_restricted"],
    ({ container }) => (sc(container).capabilities = { drop: ["ALL"] }),
  ],
  [
    "capabilities_restricted: ALL not dropped",
    ({ container }) => (sc(container).capabilities = { drop: ["NET_RAW"] }),
    "warned",
    ["capabilities_restricted"],
    ({ container }) => (sc(container).capabilities = { drop: ["ALL", "NET_RAW"] }),
  ],
  [
    "allowPrivilegeEscalation",
    ({ container }) => delete sc(container).allowPrivilegeEscalation,
    "refused",
    ["allowPrivilegeEscalation"],
    ({ container }) => (sc(container).allowPrivilegeEscalation = false),
  ],
  [
    "appArmorProfile (field)",
    ({ container }) => (sc(container).appArmorProfile = { type: "Unconfined" }),
    "refused",
    ["appArmorProfile"],
    ({ container }) => (sc(container).appArmorProfile = { type: "RuntimeDefault" }),
  ],
  [
    "appArmorProfile (annotation)",
    ({ annotations }) =>
      (annotations["container.apparmor.security.beta.kubernetes.io/llama-stack"] = "unconfined"),
    "refused",
    ["appArmorProfile"],
    ({ annotations }) =>
      (annotations["container.apparmor.security.beta.kubernetes.io/llama-stack"] =
        "localhost/k8s-llama"),
  ],
  [
    "seccompProfile_baseline (field)",
    ({ spec }) => (podSc(spec).seccompProfile = { type: "Unconfined" }),
    "refused",
    ["seccompProfile_baseline", "seccompProfile_restricted"],
    ({ spec }) => (podSc(spec).seccompProfile = { type: "Localhost", localhostProfile: "p.json" }),
  ],
  [
    "seccompProfile_baseline (annotation)",
    ({ annotations }) =>
      (annotations["container.seccomp.security.alpha.kubernetes.io/llama-stack"] = "unconfined"),
    "refused",
    ["seccompProfile_baseline"],
    ({ annotations }) =>
      (annotations["container.seccomp.security.alpha.kubernetes.io/llama-stack"] =
        "runtime/default"),
  ],
  [
    "seccompProfile_restricted: no profile",
    ({ spec }) => delete podSc(spec).seccompProfile,
    "warned",
    ["seccompProfile_restricted"],
    ({ container }) => (sc(container).seccompProfile = { type: "RuntimeDefault" }),
  ],
  [
    "seLinuxOptions",
    ({ spec }) => (podSc(spec).seLinuxOptions = { type: "spc_t" }),
    "refused",
    ["seLinuxOptions"],
    ({ spec }) => (podSc(spec).seLinuxOptions = { type: "container_t", level: "s0:c1,c2" }),
  ],
  [
    "seLinuxOptions (user)",
    ({ container }) => (sc(container).seLinuxOptions = { user: "system_u" }),
    "refused",
    ["seLinuxOptions"],
    ({ container }) => (sc(container).seLinuxOptions = {}),
  ],
  [
    "procMount",
    ({ container }) => (sc(container).procMount = "Unmasked"),
    "refused",
    ["procMount", "procMount_restricted"],
    ({ container }) => (sc(container).procMount = "Default"),
  ],
  [
    "procMount_restricted: in a user namespace",
    ({ spec, container }) => {
      spec.hostUsers = false;
      sc(container).procMount = "Unmasked";
    },
    "warned",
    ["procMount_restricted"],
    ({ spec }) => (spec.hostUsers = false),
  ],
  [
    "sysctls",
    ({ spec }) => (podSc(spec).sysctls = [{ name: "kernel.msgmax", value: "1" }]),
    "refused",
    ["sysctls"],
    ({ spec }) => (podSc(spec).sysctls = [{ name: "net.ipv4.tcp_notsent_lowat", value: "1" }]),
  ],
  [
    "hostProbesAndHostLifecycle",
    ({ container }) =>
      (container.livenessProbe = { httpGet: { host: "169.254.169.254", port: 80 } }),
    "refused",
    ["hostProbesAndHostLifecycle"],
    ({ container }) => (container.livenessProbe = { httpGet: { port: 8321 } }),
  ],
  [
    "hostProbesAndHostLifecycle (lifecycle)",
    ({ container }) =>
      (container.lifecycle = { preStop: { tcpSocket: { host: "10.0.0.1", port: 22 } } }),
    "refused",
    ["hostProbesAndHostLifecycle"],
    ({ container }) => (container.lifecycle = { preStop: { sleep: { seconds: 5 } } }),
  ],
  [
    "windowsHostProcess",
    ({ spec }) => (podSc(spec).windowsOptions = { hostProcess: true }),
    "refused",
    ["windowsHostProcess"],
    ({ spec }) => (podSc(spec).windowsOptions = { hostProcess: false }),
  ],
  [
    "runAsNonRoot",
    ({ spec, container }) => {
      podSc(spec).runAsNonRoot = false;
      delete sc(container).runAsNonRoot;
    },
    "warned",
    ["runAsNonRoot"],
    ({ spec, container }) => {
      delete podSc(spec).runAsNonRoot;
      sc(container).runAsNonRoot = true;
    },
  ],
  [
    "runAsUser",
    ({ spec }) => (podSc(spec).runAsUser = 0),
    "warned",
    ["runAsUser"],
    ({ spec }) => (podSc(spec).runAsUser = 0o1750),
  ],
  [
    "runAsUser, in a user namespace",
    ({ spec }) => {
      spec.hostUsers = false;
      podSc(spec).runAsUser = 0;
    },
    "passed",
    [],
    ({ spec }) => (spec.hostUsers = true),
  ],
  [
    "an init container is checked as the server's is",
    ({ spec }) => (spec.initContainers = [{ name: "init", image: "busybox" }]),
    "refused",
    ["allowPrivilegeEscalation", "capabilities_restricted", "runAsNonRoot"],
    ({ spec }) =>
      (spec.initContainers = [
        {
          name: "init",
          image: "busybox",
          securityContext: {
            allowPrivilegeEscalation: false,
            capabilities: { drop: ["ALL"] },
            runAsNonRoot: true,
          },
        },
      ]),
  ],
];

describe("the confused-deputy rule (pod-policy.ts)", () => {
  it("the pod the hook builds passes every check", () => {
    expect(checkPodPolicy(built, undefined, new Set())).to.deep.equal({
      problems: [],
      warnings: [],
    });
  });

  for (const [name, forbid, verdict, allow, fine] of ROWS) {
    it(`${name}: ${verdict} by default, passed when allowed, and the allowed shape passes`, () => {
      const forbidden = shaped(forbid);
      expect(verdictOf(forbidden), "by default").to.equal(verdict);
      expect(verdictOf(forbidden, allow), `allowing ${allow.join(", ")}`).to.equal("passed");
      expect(verdictOf(shaped(fine)), "the allowed shape").to.equal("passed");
    });
  }

  it("the rows reach every check of PodSecurity", () => {
    const reached = new Set(
      ROWS.flatMap(([, forbid]) => {
        const d = shaped(forbid);
        const template = d.spec?.template;
        if (template?.spec === undefined) return [];
        return podSecurityFindings(template.spec, template.metadata?.annotations ?? {});
      }).map((f) => f.check),
    );
    expect([...reached].sort()).to.deep.equal(Object.keys(POD_SECURITY_CHECKS).sort());
  });

  it("allowing one check leaves the other refused: hostPathVolumes alone still warns (restrictedVolumes)", () => {
    const d = shaped(
      ({ spec }) =>
        (spec.volumes = [...(spec.volumes ?? []), { name: "h", hostPath: { path: "/" } }]),
    );
    expect(verdictOf(d, ["hostPathVolumes"])).to.equal("warned");
    expect(verdictOf(d, ["nfs"])).to.equal("refused");
    expect(verdictOf(d, ["restrictedVolumes"])).to.equal("refused");
  });
});

describe("ALLOWED_POD_FIELDS", () => {
  const rows: [text: string | undefined, result: string[] | string][] = [
    [undefined, []],
    ["", []],
    [" , ", []],
    ["nfs", ["nfs"]],
    ["nfs, hostPath,hostNamespaces", ["hostNamespaces", "hostPath", "nfs"]],
    ["nfs cephfs", ["cephfs", "nfs"]],
    ["NFS", msg.unknownAllowedPodFields(["NFS"], ALLOWABLE_NAMES)],
    ["privileged,hostpath", msg.unknownAllowedPodFields(["hostpath"], ALLOWABLE_NAMES)],
  ];
  for (const [text, result] of rows)
    it(`${JSON.stringify(text)}`, () => {
      const parsed = parseAllowedPodFields(text);
      expect(parsed.ok ? [...parsed.value].sort() : parsed.error).to.deep.equal(result);
    });

  it("names every check ID and every volume type of the pinned release", () => {
    expect(ALLOWABLE_NAMES).to.include.members([
      ...Object.keys(POD_SECURITY_CHECKS),
      ...VOLUME_TYPES,
    ]);
    expect(VOLUME_TYPES).to.include.members(["hostPath", "nfs", "emptyDir", "image"]);
    expect(VOLUME_TYPES).to.not.include("name");
  });
});

describe("the rule through sync", () => {
  const AT = "spec.workload.overrides";
  const models = (source: Record<string, unknown>) => withModels(source).workload.overrides;
  const conditionsOf = syncUnder;
  const condition = (spec: unknown, type: string, allowed?: string[]) =>
    conditionsOf(spec, allowed).conditions.find((c) => c.type === type);

  it("a hostPath volume is an invalid spec at the volume; nothing is created", () => {
    const spec = { ...base, workload: { overrides: models({ hostPath: { path: "/var/lib" } }) } };
    const out = conditionsOf(spec);
    expect(out.conditions.find((c) => c.type === "ValidationSucceeded")).to.include({
      status: "False",
      message: `${AT}.volumes[1]: ${msg.podFieldRefused(
        "volume models uses volume type hostPath",
        "baseline",
        "hostPathVolumes",
        msg.podFixVolume(),
        "hostPath",
      )}`,
    });
    expect(out.children).to.deep.equal([]);
  });

  it("an nfs volume is a RestrictedPodField warning at the volume; the Deployment mounts it", () => {
    const spec = {
      ...base,
      workload: { overrides: models({ nfs: { server: "nas", path: "/m" } }) },
    };
    const out = conditionsOf(spec);
    expect(out.conditions.find((c) => c.type === "ValidationSucceeded")?.status).to.equal("True");
    expect(out.conditions.find((c) => c.type === "RestrictedPodField")).to.include({
      status: "True",
      message: `${AT}.volumes[1]: ${msg.podFieldWarned(
        "volume models uses volume type nfs",
        "restrictedVolumes",
        msg.podFixVolume(),
        "nfs",
      )}`,
    });
    const deployment = out.children.find((c) => c.kind === "Deployment") as unknown as Deployment;
    expect(deployment.spec?.template.spec?.volumes?.map((v) => v.name)).to.include("models");
  });

  it("allowed by ALLOWED_POD_FIELDS: hostPath and nfs pass with no warning", () => {
    for (const [source, name] of [
      [{ hostPath: { path: "/var/lib" } }, "hostPath"],
      [{ nfs: { server: "nas", path: "/m" } }, "nfs"],
    ] as const) {
      const spec = { ...base, workload: { overrides: models(source) } };
      const out = conditionsOf(spec, [name]);
      expect(out.conditions.find((c) => c.type === "ValidationSucceeded")?.status).to.equal("True");
      expect(out.conditions.map((c) => c.type)).to.not.include("RestrictedPodField");
    }
  });

  it("an unconfined AppArmor or seccomp annotation is refused at the pod annotations", () => {
    for (const [key, check] of [
      ["container.apparmor.security.beta.kubernetes.io/llama-stack", "appArmorProfile"],
      ["container.seccomp.security.alpha.kubernetes.io/llama-stack", "seccompProfile_baseline"],
    ] as const) {
      const spec = {
        ...base,
        workload: { overrides: { podAnnotations: { [key]: "unconfined" } } },
      };
      expect(condition(spec, "ValidationSucceeded")?.message).to.equal(
        `${AT}.podAnnotations: ${msg.podFieldRefused(`annotation ${key} is unconfined`, "baseline", check, msg.podFixRemove(), check)}`,
      );
      expect(condition(spec, "ValidationSucceeded", [check])?.status).to.equal("True");
    }
  });

  it("a running resource edited to a refused field keeps its children as they are", () => {
    const running = applyAll(syncOk(request(base)));
    const spec = { ...base, workload: { overrides: models({ hostPath: { path: "/" } }) } };
    const out = sync(
      request(spec, { children: running, generation: 2 }),
      "2026-11-01T12:00:00Z",
      syncContext(),
    );
    if (out.kind !== "ok") throw new Error(out.message);
    const ids = (list: { kind: string; metadata: { name: string } }[]) =>
      list.map((c) => `${c.kind}/${c.metadata.name}`).sort();
    expect(ids(out.response.children)).to.deep.equal(ids(running));
  });
});
