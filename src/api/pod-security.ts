// PodSecurity's checks as the confused-deputy rule names them
// (src/children/pod-policy.ts, docs/adr/0019-confused-deputy-rule.md), and
// ALLOWED_POD_FIELDS, the setting that allows some of them: the check IDs and
// levels of k8s.io/pod-security-admission v0.37.2 (policy/check_*.go), read
// from its source, and the volume types of the pinned release.
import { compareStrings } from "../lib/json.js";
import { msg } from "../messages.js";
import schemas from "./k8s-schemas.json" with { type: "json" };

/** PodSecurity's check IDs (pod-security-admission v0.37.2), and its level of each. */
export const POD_SECURITY_CHECKS = {
  windowsHostProcess: "baseline",
  hostNamespaces: "baseline",
  privileged: "baseline",
  capabilities_baseline: "baseline",
  hostPathVolumes: "baseline",
  hostPorts: "baseline",
  appArmorProfile: "baseline",
  seLinuxOptions: "baseline",
  procMount: "baseline",
  seccompProfile_baseline: "baseline",
  sysctls: "baseline",
  hostProbesAndHostLifecycle: "baseline",
  restrictedVolumes: "restricted",
  allowPrivilegeEscalation: "restricted",
  runAsNonRoot: "restricted",
  runAsUser: "restricted",
  seccompProfile_restricted: "restricted",
  capabilities_restricted: "restricted",
  procMount_restricted: "restricted",
} as const;
export type CheckId = keyof typeof POD_SECURITY_CHECKS;

/** Every volume type the pinned release knows. */
export const VOLUME_TYPES: readonly string[] = Object.keys(schemas.types.Volume.properties).filter(
  (f) => f !== "name",
);

/** The names ALLOWED_POD_FIELDS may hold: PodSecurity's check IDs and the volume types. */
export const ALLOWABLE_NAMES: readonly string[] = [
  ...Object.keys(POD_SECURITY_CHECKS),
  ...VOLUME_TYPES,
].sort(compareStrings);

/**
 * ALLOWED_POD_FIELDS: names separated by commas (or spaces); unset or empty
 * allows nothing. An unknown name is an error naming it, so a typo never
 * silently leaves a class refused.
 */
export function parseAllowedPodFields(
  text: string | undefined,
): { ok: true; value: ReadonlySet<string> } | { ok: false; error: string } {
  const names = (text ?? "").split(/[\s,]+/).filter((n) => n !== "");
  const unknown = names.filter((n) => !ALLOWABLE_NAMES.includes(n));
  if (unknown.length > 0)
    return { ok: false, error: msg.unknownAllowedPodFields(unknown, ALLOWABLE_NAMES) };
  return { ok: true, value: new Set(names) };
}
