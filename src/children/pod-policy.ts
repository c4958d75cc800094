// The confused-deputy rule (docs/adr/0019-confused-deputy-rule.md): the hook
// writes the server's pods with Metacontroller's rights for whoever may write a
// LlamaStackDistribution, who may not be allowed to create pods. So the pod it
// generates never gets what would let that tenant reach beyond the namespace:
// what PodSecurity's baseline level forbids (the node's filesystem and
// namespaces, privileges, unconfined profiles, host ports, unsafe sysctls),
// privilege escalation, or capabilities beyond what its restricted level
// allows. Each is an invalid spec at the field it came from. The rest of what
// the restricted level forbids (nfs and the other volume types beside the
// restricted set, root, no seccomp profile, capabilities not dropped) is a
// RestrictedPodField warning for one release, then refused as well.
//
// The checks are PodSecurity's own, read from k8s.io/pod-security-admission
// v0.37.2 (policy/check_*.go, at the latest version), with their IDs; they run
// over the pod as built, so a tenant's value is caught wherever it enters
// (today: workload.overrides' volumes and pod annotations). Whoever runs the
// hook may allow some by name (ALLOWED_POD_FIELDS, src/api/pod-security.ts):
// a check ID, or a volume type for the two volume checks (`nfs` allows nfs
// volumes and nothing else).
import type { Deployment } from "kubernetes-types/apps/v1.js";
import type {
  Container,
  PodSecurityContext,
  PodSpec,
  Probe,
  SecurityContext,
} from "kubernetes-types/core/v1.js";
import { POD_SECURITY_CHECKS, type CheckId } from "../api/pod-security.js";
import type { Workload } from "../api/workload.js";
import { msg } from "../messages.js";
import { problem, warning, type Problem, type Warning } from "../problems.js";
import { Reason } from "../reasons.js";
import { APPARMOR_CONTAINER, SECCOMP_CONTAINER, SECCOMP_POD } from "./pod-rules.js";

/** Where in the pod a finding is: a volume, a pod annotation, or a field of the pod or a container. */
type Place =
  | { volume: string }
  | { annotation: string }
  | { container: string; field: string }
  | { field: string };

interface Finding {
  check: CheckId;
  place: Place;
  /** What the pod would get, said of the place: "uses volume type hostPath", "is true". */
  what: string;
  /** Refused now; otherwise a RestrictedPodField warning for one release. */
  refused: boolean;
  /** The volume type, for the volume checks: a name ALLOWED_POD_FIELDS may give instead of the check. */
  volumeType?: string;
}

/** A finding, refused when its check is baseline's (or when `refused` says so: privilege escalation, added capabilities). */
const find = (
  check: CheckId,
  place: Place,
  what: string,
  refused = POD_SECURITY_CHECKS[check] === "baseline",
): Finding => ({ check, place, what, refused });

// -------------------------------------------------------------- the checks

/** Inline volume sources the restricted level allows (restrictedVolumes). */
const RESTRICTED_VOLUMES = new Set([
  "configMap",
  "csi",
  "downwardAPI",
  "emptyDir",
  "ephemeral",
  "image",
  "persistentVolumeClaim",
  "projected",
  "secret",
]);

function volumeFindings(pod: PodSpec): Finding[] {
  return (pod.volumes ?? []).flatMap((v) =>
    Object.keys(v)
      .filter((type) => type !== "name" && !RESTRICTED_VOLUMES.has(type))
      .flatMap((type) => {
        const place = { volume: v.name };
        const what = msg.podVolumeType(type);
        return [
          ...(type === "hostPath" ? [find("hostPathVolumes", place, what)] : []),
          find("restrictedVolumes", place, what),
        ].map((f) => ({ ...f, volumeType: type }));
      }),
  );
}

function hostFindings(pod: PodSpec): Finding[] {
  return (["hostNetwork", "hostPID", "hostIPC"] as const)
    .filter((field) => pod[field] === true)
    .map((field) => find("hostNamespaces", { field }, msg.podIsTrue()));
}

/** The pod's containers of every kind, as PodSecurity visits them. */
function containersOf(pod: PodSpec): Container[] {
  return [...(pod.initContainers ?? []), ...pod.containers];
}

const probeHosts = (probe: Probe | undefined): string[] =>
  [probe?.httpGet?.host, probe?.tcpSocket?.host].filter((h): h is string => (h ?? "") !== "");

/** Every check of one container but its security context's. */
function containerFindings(c: Container): Finding[] {
  const at = (field: string) => ({ container: c.name, field });
  const ports = (c.ports ?? []).flatMap((p, i) =>
    (p.hostPort ?? 0) !== 0
      ? [find("hostPorts", at(`ports[${i}].hostPort`), msg.podIsValue(String(p.hostPort)))]
      : [],
  );
  const probes = (["livenessProbe", "readinessProbe", "startupProbe"] as const).flatMap((name) =>
    probeHosts(c[name]).map((host) =>
      find("hostProbesAndHostLifecycle", at(`${name}.host`), msg.podIsValue(host)),
    ),
  );
  const hooks = (["postStart", "preStop"] as const).flatMap((name) => {
    const handler = c.lifecycle?.[name];
    return [handler?.httpGet?.host, handler?.tcpSocket?.host]
      .filter((h): h is string => (h ?? "") !== "")
      .map((host) =>
        find("hostProbesAndHostLifecycle", at(`lifecycle.${name}.host`), msg.podIsValue(host)),
      );
  });
  return [...ports, ...probes, ...hooks];
}

/** Capabilities the baseline level lets a container add (capabilities_baseline). */
const BASELINE_CAPABILITIES = new Set([
  ...["AUDIT_WRITE", "CHOWN", "DAC_OVERRIDE", "FOWNER", "FSETID", "KILL", "MKNOD"],
  ...["NET_BIND_SERVICE", "SETFCAP", "SETGID", "SETPCAP", "SETUID", "SYS_CHROOT"],
]);
const SELINUX_TYPES = new Set([
  "",
  "container_t",
  "container_init_t",
  "container_kvm_t",
  "container_engine_t",
]);
/** Safe sysctls at the latest version (1.37). */
const SAFE_SYSCTLS = new Set([
  "kernel.shm_rmid_forced",
  "net.ipv4.ip_local_port_range",
  "net.ipv4.tcp_syncookies",
  "net.ipv4.ping_group_range",
  "net.ipv4.ip_unprivileged_port_start",
  "net.ipv4.ip_local_reserved_ports",
  "net.ipv4.tcp_keepalive_time",
  "net.ipv4.tcp_fin_timeout",
  "net.ipv4.tcp_keepalive_intvl",
  "net.ipv4.tcp_keepalive_probes",
  "net.ipv4.tcp_rmem",
  "net.ipv4.tcp_wmem",
  "net.ipv4.tcp_slow_start_after_idle",
  "net.ipv4.tcp_notsent_lowat",
]);
const SECCOMP_TYPES = new Set(["RuntimeDefault", "Localhost"]);
const APPARMOR_TYPES = new Set(["RuntimeDefault", "Localhost"]);

/** The checks of one security context, the pod's or a container's (`container`: its name). */
function contextFindings(
  sc: (SecurityContext & PodSecurityContext) | undefined,
  container: string | undefined,
  userNamespace: boolean,
): Finding[] {
  const at = (name: string): Place => {
    const field = `securityContext.${name}`;
    return container === undefined ? { field } : { container, field };
  };
  const out: Finding[] = [];
  if (sc?.windowsOptions?.hostProcess === true)
    out.push(find("windowsHostProcess", at("windowsOptions.hostProcess"), msg.podIsTrue()));
  const selinux = sc?.seLinuxOptions;
  if (selinux !== undefined) {
    const wrong = [
      ...(SELINUX_TYPES.has(selinux.type ?? "") ? [] : [`type ${selinux.type ?? ""}`]),
      ...((selinux.user ?? "") !== "" ? ["user"] : []),
      ...((selinux.role ?? "") !== "" ? ["role"] : []),
    ];
    if (wrong.length > 0)
      out.push(find("seLinuxOptions", at("seLinuxOptions"), msg.podIsValue(wrong.join(", "))));
  }
  const seccomp = sc?.seccompProfile?.type;
  if (seccomp !== undefined && !SECCOMP_TYPES.has(seccomp)) {
    out.push(find("seccompProfile_baseline", at("seccompProfile.type"), msg.podIsValue(seccomp)));
  }
  const apparmor = sc?.appArmorProfile?.type;
  if (apparmor !== undefined && !APPARMOR_TYPES.has(apparmor))
    out.push(find("appArmorProfile", at("appArmorProfile.type"), msg.podIsValue(apparmor)));
  if (!userNamespace && sc?.runAsUser === 0)
    out.push(find("runAsUser", at("runAsUser"), msg.podIsValue("0")));
  if (container === undefined) {
    sc?.sysctls
      ?.filter((s) => !SAFE_SYSCTLS.has(s.name))
      .forEach((s) => out.push(find("sysctls", at("sysctls"), msg.podIsValue(s.name))));
    return out;
  }
  if (sc?.privileged === true) out.push(find("privileged", at("privileged"), msg.podIsTrue()));
  const procMount = sc?.procMount ?? "Default";
  if (procMount !== "Default") {
    const what = msg.podIsValue(procMount);
    if (!userNamespace) out.push(find("procMount", at("procMount"), what));
    out.push(find("procMount_restricted", at("procMount"), what));
  }
  if (sc?.allowPrivilegeEscalation !== false)
    out.push(
      find("allowPrivilegeEscalation", at("allowPrivilegeEscalation"), msg.podNotFalse(), true),
    );
  for (const cap of sc?.capabilities?.add ?? []) {
    const what = msg.podAddsCapability(cap);
    if (!BASELINE_CAPABILITIES.has(cap))
      out.push(find("capabilities_baseline", at("capabilities.add"), what));
    if (cap !== "NET_BIND_SERVICE")
      out.push(find("capabilities_restricted", at("capabilities.add"), what, true));
  }
  if (!(sc?.capabilities?.drop ?? []).includes("ALL"))
    out.push(find("capabilities_restricted", at("capabilities.drop"), msg.podDropsNotAll()));
  return out;
}

/** runAsNonRoot and seccompProfile_restricted: set on the pod, or on every container. */
function inheritedFindings(pod: PodSpec, userNamespace: boolean): Finding[] {
  const podSc = pod.securityContext;
  const out: Finding[] = [];
  if (!userNamespace && podSc?.runAsNonRoot === false)
    out.push(find("runAsNonRoot", { field: "securityContext.runAsNonRoot" }, msg.podNotTrue()));
  for (const c of containersOf(pod)) {
    const own = c.securityContext;
    const nonRoot = own?.runAsNonRoot ?? (podSc?.runAsNonRoot === true ? true : undefined);
    if (!userNamespace && nonRoot !== true)
      out.push(
        find(
          "runAsNonRoot",
          { container: c.name, field: "securityContext.runAsNonRoot" },
          msg.podNotTrue(),
        ),
      );
    const seccomp = own?.seccompProfile?.type ?? podSc?.seccompProfile?.type;
    if (seccomp === undefined || !SECCOMP_TYPES.has(seccomp))
      out.push(
        find(
          "seccompProfile_restricted",
          { container: c.name, field: "securityContext.seccompProfile.type" },
          msg.podIsValue(seccomp ?? "nothing"),
        ),
      );
  }
  return out;
}

/**
 * The deprecated profile annotations: unconfined. (PodSecurity reads the
 * seccomp ones only before 1.19, allowing the default and a node's file; any
 * other value but unconfined the API server refuses itself: pod-rules.ts.)
 */
function annotationFindings(annotations: Readonly<Record<string, string>>): Finding[] {
  return Object.entries(annotations).flatMap(([key, value]) => {
    if (value !== "unconfined") return [];
    const place = { annotation: key };
    if (key === SECCOMP_POD || key.startsWith(SECCOMP_CONTAINER))
      return [find("seccompProfile_baseline", place, msg.podIsValue(value))];
    return key.startsWith(APPARMOR_CONTAINER)
      ? [find("appArmorProfile", place, msg.podIsValue(value))]
      : [];
  });
}

/** Every finding of PodSecurity's checks on a pod template, in a fixed order. */
export function podSecurityFindings(
  pod: PodSpec,
  annotations: Readonly<Record<string, string>>,
): Finding[] {
  const userNamespace = pod.hostUsers === false;
  return [
    ...volumeFindings(pod),
    ...hostFindings(pod),
    ...contextFindings(pod.securityContext, undefined, userNamespace),
    ...inheritedFindings(pod, userNamespace),
    ...containersOf(pod).flatMap((c) => [
      ...containerFindings(c),
      ...contextFindings(c.securityContext, c.name, userNamespace),
    ]),
    ...annotationFindings(annotations),
  ];
}

// -------------------------------------------------------------- the rule

const AT = "spec.workload";

/** The spec field a finding came from, and how the message names its place. */
function sourceOf(place: Place, workload: Workload | undefined): { path: string; subject: string } {
  if ("volume" in place) {
    const index = (workload?.overrides?.volumes ?? []).findIndex((v) => v.name === place.volume);
    const path = index === -1 ? AT : `${AT}.overrides.volumes[${index}]`;
    return { path, subject: msg.podVolume(place.volume) };
  }
  if ("annotation" in place)
    return { path: `${AT}.overrides.podAnnotations`, subject: msg.podAnnotation(place.annotation) };
  if ("container" in place)
    return { path: AT, subject: msg.podContainerField(place.container, place.field) };
  return { path: AT, subject: msg.podField(place.field) };
}

export interface PolicyVerdict {
  problems: Problem[];
  warnings: Warning[];
}

/**
 * The confused-deputy rule on the Deployment as built: a problem for each
 * refused finding, a warning for each other one, except what `allowed` names
 * (by check ID, or by volume type for a volume). A finding said twice (one
 * field breaking two checks of the same action) is said once.
 */
export function checkPodPolicy(
  deployment: Deployment,
  workload: Workload | undefined,
  allowed: ReadonlySet<string>,
): PolicyVerdict {
  const template = deployment.spec?.template;
  const pod = template?.spec;
  if (pod === undefined) return { problems: [], warnings: [] };
  const verdict: PolicyVerdict = { problems: [], warnings: [] };
  const seen = new Set<string>();
  for (const f of podSecurityFindings(pod, template?.metadata?.annotations ?? {})) {
    if (allowed.has(f.check) || (f.volumeType !== undefined && allowed.has(f.volumeType))) continue;
    const { path, subject } = sourceOf(f.place, workload);
    const name = f.volumeType ?? f.check;
    const level = POD_SECURITY_CHECKS[f.check];
    const fix = "volume" in f.place ? msg.podFixVolume() : msg.podFixRemove();
    const detail = f.refused
      ? msg.podFieldRefused(`${subject} ${f.what}`, level, f.check, fix, name)
      : msg.podFieldWarned(`${subject} ${f.what}`, f.check, fix, name);
    const key = `${f.refused}\0${path}\0${detail}`;
    if (seen.has(key)) continue;
    seen.add(key);
    if (f.refused) verdict.problems.push(problem(Reason.InvalidSpec, path, detail));
    else verdict.warnings.push(warning(Reason.RestrictedPodField, path, detail));
  }
  return verdict;
}
