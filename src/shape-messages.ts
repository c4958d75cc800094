// Messages for the generic shape errors zod finds in a resource — a missing
// field, a number where a string goes, an empty list, a secretKeyRef wrapper
// left out, v1alpha1 fields in a v1alpha2 spec — each as the field, the shape
// expected and the fix, instead of zod's own text. Used by problemsFromZod;
// kept apart from messages.ts, which sits above problems.ts (it reads release
// facts), so that this module imports nothing of ours.
import type { z } from "zod";

type Issue = z.ZodError["issues"][number];
type Path = readonly PropertyKey[];

/** An issue as a path in the parsed object and what is wrong there, with the fix. */
export interface ShapeIssue {
  path: PropertyKey[];
  detail: string;
}

/** The top-level fields of the retired operator's v1alpha1 spec (src/api/v1alpha1.ts). */
export const V1ALPHA1_SPEC_FIELDS = ["network", "replicas", "server"] as const;

const UNKNOWN_FIELDS = (keys: readonly string[]) =>
  `unknown field(s) ${keys.join(", ")}; remove them (kubectl explain llamastackdistribution.spec lists the fields)`;

function valueAt(input: unknown, path: Path): unknown {
  let v = input;
  for (const key of path) {
    if (typeof v !== "object" || v === null) return undefined;
    v = (v as Record<PropertyKey, unknown>)[key];
  }
  return v;
}

const SHAPES: Record<string, string> = {
  object: "an object",
  array: "a list",
  string: "a string",
  number: "a number",
  int: "an integer",
  boolean: "true or false",
};

/** The fix for a required field that is missing, by its name. */
function addHint(path: Path): string {
  const last = String(path[path.length - 1] ?? "");
  if (last === "spec")
    return "every LlamaStackDistribution needs one, with at least a distribution: spec: { distribution: { name: starter } }";
  if (last === "distribution")
    return "add distribution: { name: starter } (a shipped distribution; kubectl explain llamastackdistribution.spec.distribution lists the fields), or { image, release, baseConfig } for a custom image";
  return `add ${last}`;
}

function isSpecRoot(path: Path): boolean {
  return path[path.length - 1] === "spec" && path.length <= 2;
}

/** `apiKey: { name, key }` where `{ secretKeyRef: { name, key } }` belongs: one issue, the right fix. */
function secretKeyRefLeftOut(
  issue: Issue,
  all: readonly Issue[],
  input: unknown,
): string | undefined {
  if (issue.code !== "unrecognized_keys") return undefined;
  if (!issue.keys.every((k) => k === "name" || k === "key" || k === "optional")) return undefined;
  const wrapper = all.some(
    (i) =>
      i.code === "invalid_type" &&
      i.path.length === issue.path.length + 1 &&
      i.path[issue.path.length] === "secretKeyRef" &&
      issue.path.every((p, n) => i.path[n] === p),
  );
  if (!wrapper) return undefined;
  const given = valueAt(input, issue.path) as { name?: unknown; key?: unknown } | undefined;
  const name = typeof given?.name === "string" ? given.name : "<secret>";
  const key = typeof given?.key === "string" ? given.key : "<key>";
  const field = String(issue.path[issue.path.length - 1] ?? "");
  return `${issue.keys.join(" and ")} go inside secretKeyRef; write ${field}: { secretKeyRef: { name: ${name}, key: ${key} } }`;
}

/** Whether `issue` is the missing-secretKeyRef half of a secretKeyRefLeftOut pair. */
function isLeftOutWrapper(issue: Issue, all: readonly Issue[], input: unknown): boolean {
  if (issue.code !== "invalid_type" || issue.path[issue.path.length - 1] !== "secretKeyRef")
    return false;
  const parent = issue.path.slice(0, -1);
  return all.some(
    (i) =>
      i.code === "unrecognized_keys" &&
      i.path.length === parent.length &&
      parent.every((p, n) => i.path[n] === p) &&
      secretKeyRefLeftOut(i, all, input) !== undefined,
  );
}

function unknownFields(issue: Issue & { code: "unrecognized_keys" }): string {
  const v1alpha1 = issue.keys.filter((k) =>
    (V1ALPHA1_SPEC_FIELDS as readonly string[]).includes(k),
  );
  if (!isSpecRoot(issue.path) || v1alpha1.length === 0) return UNKNOWN_FIELDS(issue.keys);
  return `unknown field(s) ${issue.keys.join(", ")}: ${v1alpha1.join(", ")} ${v1alpha1.length === 1 ? "is a field" : "are fields"} of llamastack.io/v1alpha1, the retired operator's version; write the spec as v1alpha2 (spec.server.distribution → spec.distribution, spec.replicas → spec.workload.replicas, spec.network → spec.networking; docs/conversion.md maps every field), or apply it with apiVersion llamastack.io/v1alpha1 to a cluster with the v1alpha1 component, which converts it`;
}

function wrongType(issue: Issue & { code: "invalid_type" }, input: unknown): string | undefined {
  const value = valueAt(input, issue.path);
  const shape = SHAPES[issue.expected];
  if (value === undefined && (input !== undefined || issue.message.endsWith("received undefined")))
    return `required${shape === undefined ? "" : ` (${shape})`}; ${addHint(issue.path)}`;
  if (issue.expected === "string" && (typeof value === "number" || typeof value === "boolean")) {
    const last = String(issue.path[issue.path.length - 1] ?? "");
    const fix =
      last === "release"
        ? `quote it, with the release in full: release: "1.5.0"`
        : `quote it: ${last}: "${String(value)}"`;
    return `expected a string, but YAML read ${String(value)} as a ${typeof value}; ${fix}`;
  }
  return undefined;
}

function explain(issue: Issue, all: readonly Issue[], input: unknown): string {
  const leftOut = secretKeyRefLeftOut(issue, all, input);
  if (leftOut !== undefined) return leftOut;
  if (issue.code === "unrecognized_keys") return unknownFields(issue);
  if (issue.code === "invalid_type") return wrongType(issue, input) ?? issue.message;
  if (issue.code === "too_small" && issue.origin === "array" && Number(issue.minimum) === 1) {
    const last = String(issue.path[issue.path.length - 1] ?? "the list");
    return `an empty list is not allowed; remove ${last}, or give it at least one entry`;
  }
  return issue.message;
}

/**
 * zod's issues for `input` (the object that was parsed) as field, shape and
 * fix. Issues that say one thing twice (a secretKeyRef left out) become one.
 */
export function explainIssues(issues: readonly Issue[], input?: unknown): ShapeIssue[] {
  return issues
    .filter((issue) => !isLeftOutWrapper(issue, issues, input))
    .map((issue) => ({ path: [...issue.path], detail: explain(issue, issues, input) }));
}
