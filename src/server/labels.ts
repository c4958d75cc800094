// What may be a label value on /metrics (./metrics.ts, ./condition-metrics.ts):
// a value from the code's fixed sets, or a parent's namespace and name when
// Kubernetes would accept them. A request's sender writes whatever it likes
// there, so any other text becomes one fixed value, never a label.
import { DNS1123_LABEL, DNS1123_SUBDOMAIN } from "../api/names.js";
import { ALL_REASONS } from "../reasons.js";

/** The reason label for anything outside the fixed sets. */
const OTHER_REASON = "other";

const KNOWN_REASONS: ReadonlySet<string> = new Set(ALL_REASONS);

/** A reason as a label value: one of the code's fixed reasons (src/reasons.ts), else "other". */
export function boundedReason(reason: unknown): string {
  return typeof reason === "string" && KNOWN_REASONS.has(reason) ? reason : OTHER_REASON;
}

/** Whether `value` is a namespace's name Kubernetes accepts (a DNS-1123 label). */
export function isNamespaceName(value: string): boolean {
  return value.length <= 63 && DNS1123_LABEL.test(value);
}

/** Whether `value` is an object's name Kubernetes accepts (a DNS-1123 subdomain). */
export function isObjectName(value: string): boolean {
  return value.length <= 253 && DNS1123_SUBDOMAIN.test(value);
}
