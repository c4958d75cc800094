// Pod-spec rules the API server applies to a Deployment (core/v1 validation)
// that the CRD's schema does not express, for the fields spec.workload passes
// through: a Deployment that breaks one is refused with a 422 after the hook
// has reported DeploymentUpdated=True. Checked here instead, each a problem at
// its field with the fix, so the running children are kept (docs/adr/0002).
// Covered: an env name with "=", an Exists toleration with a value, maxSkew
// below 1, a negative resource quantity, a request above its limit, and a
// mount of a volume the pod does not declare.
import type { Deployment } from "kubernetes-types/apps/v1.js";
import type { Workload } from "../api/workload.js";
import { msg } from "../messages.js";
import { problem, Reason, type Problem } from "../problems.js";
import { quantityMilli } from "./quantity.js";

const AT = "spec.workload";

function checkEnvNames(workload: Workload): Problem[] {
  return (workload.overrides?.env ?? []).flatMap((e, i) =>
    e.name.includes("=")
      ? [problem(Reason.InvalidSpec, `${AT}.overrides.env[${i}].name`, msg.envNameWithEquals())]
      : [],
  );
}

function checkTolerations(workload: Workload): Problem[] {
  return (workload.overrides?.tolerations ?? []).flatMap((t, i) =>
    t.operator === "Exists" && (t.value ?? "") !== ""
      ? [
          problem(
            Reason.InvalidSpec,
            `${AT}.overrides.tolerations[${i}].value`,
            msg.existsTolerationWithValue(),
          ),
        ]
      : [],
  );
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

/** Every pod-spec problem of spec.workload the API server would refuse the Deployment for. */
export function checkPodRules(workload: Workload | undefined, deployment: Deployment): Problem[] {
  if (workload === undefined) return [];
  return [
    ...checkEnvNames(workload),
    ...checkMounts(workload, deployment),
    ...checkTolerations(workload),
    ...checkResources(workload),
    ...checkMaxSkew(workload),
  ];
}
