// Pod-spec rules the API server applies to a Deployment (core/v1 validation)
// that the CRD's schema does not express, for the fields spec.workload passes
// through: a Deployment that breaks one is refused with a 422 after the hook
// has reported DeploymentUpdated=True. Checked here instead, each a problem at
// its field with the fix, so the running children are kept (docs/adr/0002).
// Covered: an env name with "=", an Exists toleration with a value, maxSkew
// below 1, a negative resource quantity, a request above its limit, a resource
// name that is neither standard nor qualified, a mount of a volume the pod does
// not declare, a node selector or pod label value that is no label value, a
// node-affinity requirement without at least one term, a match expression
// whose values do not fit its operator; and (issue 34) a Bidirectional mount
// propagation in the unprivileged container, a volume without exactly one
// source, an env var with value and valueFrom (or valueFrom without exactly one
// source), a toleration effect the API server does not know, a seccomp
// annotation that contradicts the pod's profile, an AppArmor annotation naming
// no container or no profile. (What PodSecurity refuses is the confused-deputy
// rule's, src/children/pod-policy.ts.)
import type { Deployment } from "kubernetes-types/apps/v1.js";
import type { Workload } from "../api/workload.js";
import { compareStrings } from "../lib/json.js";
import { msg } from "../messages.js";
import { problem, type Problem } from "../problems.js";
import { Reason } from "../reasons.js";
import { quantityMilli } from "./quantity.js";

const AT = "spec.workload";

function checkEnvNames(workload: Workload): Problem[] {
  return (workload.overrides?.env ?? []).flatMap((e, i) =>
    e.name.includes("=")
      ? [problem(Reason.InvalidSpec, `${AT}.overrides.env[${i}].name`, msg.envNameWithEquals())]
      : [],
  );
}

/** A variable's value comes from one place: value, or exactly one source of valueFrom. */
function checkEnvSources(workload: Workload): Problem[] {
  return (workload.overrides?.env ?? []).flatMap((e, i) => {
    if (e.valueFrom === undefined) return [];
    const at = `${AT}.overrides.env[${i}]`;
    if ((e.value ?? "") !== "")
      return [problem(Reason.InvalidSpec, `${at}.valueFrom`, msg.envValueAndValueFrom())];
    const sources = Object.keys(e.valueFrom).sort();
    return sources.length === 1
      ? []
      : [problem(Reason.InvalidSpec, `${at}.valueFrom`, msg.envValueFromSources(sources))];
  });
}

const TAINT_EFFECTS = new Set(["NoSchedule", "PreferNoSchedule", "NoExecute"]);

function checkTolerations(workload: Workload): Problem[] {
  return (workload.overrides?.tolerations ?? []).flatMap((t, i) => {
    const at = `${AT}.overrides.tolerations[${i}]`;
    const effect = t.effect ?? "";
    return [
      ...(t.operator === "Exists" && (t.value ?? "") !== ""
        ? [problem(Reason.InvalidSpec, `${at}.value`, msg.existsTolerationWithValue())]
        : []),
      ...(effect !== "" && !TAINT_EFFECTS.has(effect)
        ? [problem(Reason.InvalidSpec, `${at}.effect`, msg.tolerationEffect(effect))]
        : t.tolerationSeconds !== undefined && effect !== "NoExecute"
          ? [problem(Reason.InvalidSpec, `${at}.effect`, msg.tolerationSecondsEffect())]
          : []),
    ];
  });
}

function checkMaxSkew(workload: Workload): Problem[] {
  return (workload.topologySpreadConstraints ?? []).flatMap((c, i) =>
    c.maxSkew < 1
      ? [
          problem(
            Reason.InvalidSpec,
            `${AT}.topologySpreadConstraints[${i}].maxSkew`,
            msg.maxSkewBelowOne(c.maxSkew),
          ),
        ]
      : [],
  );
}

type Quantities = Readonly<Record<string, unknown>> | undefined;

function checkResources(workload: Workload): Problem[] {
  const requests: Quantities = workload.resources?.requests;
  const limits: Quantities = workload.resources?.limits;
  const negative = (list: Quantities, which: string) =>
    Object.entries(list ?? {}).flatMap(([name, value]) =>
      (quantityMilli(String(value)) ?? 0n) < 0n
        ? [
            problem(
              Reason.InvalidSpec,
              `${AT}.resources.${which}.${name}`,
              msg.negativeQuantity(String(value)),
            ),
          ]
        : [],
    );
  const above = Object.entries(requests ?? {}).flatMap(([name, value]) => {
    const limit = limits?.[name];
    const request = quantityMilli(String(value));
    const max = limit === undefined ? undefined : quantityMilli(String(limit));
    return request !== undefined && max !== undefined && request > max
      ? [
          problem(
            Reason.InvalidSpec,
            `${AT}.resources.requests.${name}`,
            msg.requestAboveLimit(name, String(value), String(limit)),
          ),
        ]
      : [];
  });
  return [...negative(requests, "requests"), ...negative(limits, "limits"), ...above];
}

/** cpu, memory, ephemeral-storage, hugepages-<size>, or a domain-qualified (extended) name. */
function isResourceName(name: string): boolean {
  return (
    ["cpu", "memory", "ephemeral-storage"].includes(name) ||
    name.startsWith("hugepages-") ||
    /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?\/[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/.test(name)
  );
}

function checkResourceNames(workload: Workload): Problem[] {
  const { requests, limits } = workload.resources ?? {};
  return [
    ["requests", requests],
    ["limits", limits],
  ].flatMap(([which, list]) =>
    Object.keys((list ?? {}) as object)
      .filter((name) => !isResourceName(name))
      .map((name) =>
        problem(
          Reason.InvalidSpec,
          `${AT}.resources.${String(which)}.${name}`,
          msg.unknownResourceName(name),
        ),
      ),
  );
}

/** A label value: at most 63 characters, alphanumerics at the ends, -_. inside. */
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

function checkLabelValues(workload: Workload): Problem[] {
  const maps: [string, Readonly<Record<string, string>> | undefined][] = [
    ["nodeSelector", workload.overrides?.nodeSelector],
    ["podLabels", workload.overrides?.podLabels],
  ];
  return maps.flatMap(([field, map]) =>
    Object.entries(map ?? {})
      .filter(([, value]) => value.length > 63 || !LABEL_VALUE.test(value))
      .map(([key]) =>
        problem(Reason.InvalidSpec, `${AT}.overrides.${field}`, msg.notALabelValue(key)),
      ),
  );
}

interface Requirement {
  key?: string;
  operator?: string;
  values?: string[];
}

/** What the operator needs of values, or undefined when they fit it. */
function valuesProblem(r: Requirement, node: boolean): string | undefined {
  const count = r.values?.length ?? 0;
  const op = r.operator ?? "";
  if ((op === "In" || op === "NotIn") && count === 0) return msg.operatorNeedsValues(op);
  if ((op === "Exists" || op === "DoesNotExist") && count > 0) return msg.operatorTakesNoValues(op);
  if (node && (op === "Gt" || op === "Lt") && (count !== 1 || !/^-?\d+$/.test(r.values?.[0] ?? "")))
    return msg.operatorTakesOneInteger(op);
  return undefined;
}

function checkRequirements(list: Requirement[] | undefined, at: string, node: boolean): Problem[] {
  return (list ?? []).flatMap((r, i) => {
    const why = valuesProblem(r, node);
    return why === undefined ? [] : [problem(Reason.InvalidSpec, `${at}[${i}].values`, why)];
  });
}

/** Node affinity's terms and expressions, and the pod (anti-)affinity terms' label selectors. */
function checkAffinity(workload: Workload): Problem[] {
  const affinity = workload.overrides?.affinity;
  if (affinity === undefined) return [];
  const at = `${AT}.overrides.affinity`;
  const problems: Problem[] = [];
  const required = affinity.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
  const requiredAt = `${at}.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms`;
  if (required !== undefined && required.nodeSelectorTerms.length === 0)
    problems.push(problem(Reason.InvalidSpec, requiredAt, msg.noNodeSelectorTerms()));
  required?.nodeSelectorTerms.forEach((term, t) => {
    problems.push(
      ...checkRequirements(term.matchExpressions, `${requiredAt}[${t}].matchExpressions`, true),
    );
    problems.push(...checkRequirements(term.matchFields, `${requiredAt}[${t}].matchFields`, true));
  });
  const preferredAt = `${at}.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution`;
  affinity.nodeAffinity?.preferredDuringSchedulingIgnoredDuringExecution?.forEach((p, i) => {
    const term = `${preferredAt}[${i}].preference`;
    problems.push(
      ...checkRequirements(p.preference.matchExpressions, `${term}.matchExpressions`, true),
    );
    problems.push(...checkRequirements(p.preference.matchFields, `${term}.matchFields`, true));
  });
  for (const kind of ["podAffinity", "podAntiAffinity"] as const) {
    const pods = affinity[kind];
    pods?.requiredDuringSchedulingIgnoredDuringExecution?.forEach((term, i) => {
      const expressions = term.labelSelector?.matchExpressions;
      const termAt = `${at}.${kind}.requiredDuringSchedulingIgnoredDuringExecution[${i}].labelSelector.matchExpressions`;
      problems.push(...checkRequirements(expressions, termAt, false));
    });
    pods?.preferredDuringSchedulingIgnoredDuringExecution?.forEach((weighted, i) => {
      const expressions = weighted.podAffinityTerm.labelSelector?.matchExpressions;
      const termAt = `${at}.${kind}.preferredDuringSchedulingIgnoredDuringExecution[${i}].podAffinityTerm.labelSelector.matchExpressions`;
      problems.push(...checkRequirements(expressions, termAt, false));
    });
  }
  return problems;
}

/** Each of the user's mounts names a volume of the pod as built (the hook's or the user's). */
function checkMounts(workload: Workload, deployment: Deployment): Problem[] {
  const volumes = new Set((deployment.spec?.template.spec?.volumes ?? []).map((v) => v.name));
  return (workload.overrides?.volumeMounts ?? []).flatMap((m, i) =>
    volumes.has(m.name)
      ? []
      : [
          problem(
            Reason.InvalidSpec,
            `${AT}.overrides.volumeMounts[${i}].name`,
            msg.undeclaredVolume(m.name, [...volumes].sort()),
          ),
        ],
  );
}

/** Each of the user's volumes has exactly one source (every field but name is one). */
function checkVolumeSources(workload: Workload): Problem[] {
  return (workload.overrides?.volumes ?? []).flatMap((v, i) => {
    const sources = Object.keys(v)
      .filter((k) => k !== "name")
      .sort();
    return sources.length === 1
      ? []
      : [problem(Reason.InvalidSpec, `${AT}.overrides.volumes[${i}]`, msg.volumeSources(sources))];
  });
}

/**
 * The API server's propagation modes; Bidirectional only in a privileged
 * container, which the server's never is (deployment.ts).
 */
function checkMountPropagation(workload: Workload): Problem[] {
  return (workload.overrides?.volumeMounts ?? []).flatMap((m, i) => {
    const at = `${AT}.overrides.volumeMounts[${i}].mountPropagation`;
    const mode = m.mountPropagation;
    if (mode === undefined || mode === "None" || mode === "HostToContainer") return [];
    const why =
      mode === "Bidirectional" ? msg.bidirectionalPropagation() : msg.unknownPropagation(mode);
    return [problem(Reason.InvalidSpec, at, why)];
  });
}

/** The deprecated profile annotations (pod-policy.ts reads them too). */
export const SECCOMP_POD = "seccomp.security.alpha.kubernetes.io/pod";
export const SECCOMP_CONTAINER = "container.seccomp.security.alpha.kubernetes.io/";
export const APPARMOR_CONTAINER = "container.apparmor.security.beta.kubernetes.io/";

/** A seccomp annotation's profile as the API server reads it (ValidateSeccompProfile). */
function isSeccompProfile(value: string): boolean {
  if (["runtime/default", "docker/default", "unconfined"].includes(value)) return true;
  const file = value.startsWith("localhost/") ? value.slice("localhost/".length) : undefined;
  return (
    file !== undefined && file !== "" && !file.startsWith("/") && !file.split("/").includes("..")
  );
}

/** Whether the pod annotation names the pod's own profile (the API server requires they match). */
function matchesPodSeccomp(value: string, deployment: Deployment): boolean {
  const profile = deployment.spec?.template.spec?.securityContext?.seccompProfile;
  if (profile === undefined) return isSeccompProfile(value);
  if (profile.type === "RuntimeDefault")
    return value === "runtime/default" || value === "docker/default";
  if (profile.type === "Unconfined") return value === "unconfined";
  return value === `localhost/${profile.localhostProfile ?? ""}`;
}

/** The deprecated seccomp and AppArmor annotations the API server checks against the pod. */
function checkProfileAnnotations(workload: Workload, deployment: Deployment): Problem[] {
  const at = `${AT}.overrides.podAnnotations`;
  const pod = deployment.spec?.template.spec;
  const containers = (pod?.containers ?? []).map((c) => c.name);
  const seccomp = pod?.securityContext?.seccompProfile?.type ?? "unset";
  return Object.entries(workload.overrides?.podAnnotations ?? {})
    .sort(([a], [b]) => compareStrings(a, b))
    .flatMap(([key, value]) => {
      if (key === SECCOMP_POD && !matchesPodSeccomp(value, deployment))
        return [problem(Reason.InvalidSpec, at, msg.seccompAnnotation(key, seccomp))];
      if (key.startsWith(SECCOMP_CONTAINER) && !isSeccompProfile(value))
        return [problem(Reason.InvalidSpec, at, msg.seccompAnnotation(key, seccomp))];
      if (!key.startsWith(APPARMOR_CONTAINER)) return [];
      const container = key.slice(APPARMOR_CONTAINER.length);
      const problems: Problem[] = [];
      if (!containers.includes(container))
        problems.push(
          problem(
            Reason.InvalidSpec,
            at,
            msg.appArmorAnnotationContainer(key, containers.join(", ")),
          ),
        );
      const known = ["", "runtime/default", "unconfined"].includes(value);
      if (!known && !value.startsWith("localhost/"))
        problems.push(problem(Reason.InvalidSpec, at, msg.appArmorAnnotationProfile(key)));
      return problems;
    });
}

/** Every pod-spec problem of spec.workload the API server would refuse the Deployment for. */
export function checkPodRules(workload: Workload | undefined, deployment: Deployment): Problem[] {
  if (workload === undefined) return [];
  return [
    ...checkEnvNames(workload),
    ...checkEnvSources(workload),
    ...checkVolumeSources(workload),
    ...checkMounts(workload, deployment),
    ...checkMountPropagation(workload),
    ...checkLabelValues(workload),
    ...checkProfileAnnotations(workload, deployment),
    ...checkTolerations(workload),
    ...checkAffinity(workload),
    ...checkResourceNames(workload),
    ...checkResources(workload),
    ...checkMaxSkew(workload),
  ];
}
