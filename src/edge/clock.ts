// The clock as the core takes it: UTC to the second, the form of Kubernetes'
// metav1.Time (a condition's lastTransitionTime).

/** `2026-11-01T12:00:00Z`: ISO 8601 without fractions of a second. */
export function isoSeconds(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, "Z");
}
