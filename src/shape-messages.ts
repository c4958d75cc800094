// Messages for the generic shape errors zod finds in a resource — a missing
// field, a string where an object or a Secret reference goes, an object where
// a list goes, a quoted number, a mistyped field or value, v1alpha1 fields in
// a v1alpha2 spec — each as the field, the shape expected and the fix, instead
// of zod's own text. The right shape is read from the schema that was parsed
// (its fields, which of them are required, what a list holds, a number's
// bounds), never from a list per field. Used by problemsFromZod; imports
// nothing of ours but lib/.
import { z } from "zod";
import { nearestName } from "./lib/nearest.js";

type Issue = z.ZodError["issues"][number];
type Path = readonly PropertyKey[];

/** An issue as a path in the parsed object and what is wrong there, with the fix. */
export interface ShapeIssue {
  path: PropertyKey[];
  detail: string;
}

/** The top-level fields of the retired operator's v1alpha1 spec (src/api/v1alpha1.ts). */
export const V1ALPHA1_SPEC_FIELDS = ["network", "replicas", "server"] as const;

/** `fix`, led by "did you mean X?" when `suggestion` is what the user most likely meant. */
export function orDidYouMean(suggestion: string | undefined, fix: string): string {
  return suggestion === undefined ? fix : `did you mean ${suggestion}? Otherwise ${fix}`;
}

// ---------------------------------------------------------------- the schema, read
// What zod v4 keeps of a schema (its `_zod` internals): enough to follow a path
// and say what goes there.
interface Def {
  type: string;
  shape?: Record<string, Schema>;
  element?: Schema;
  valueType?: Schema;
  innerType?: Schema;
  in?: Schema;
  getter?: () => Schema;
  checks?: readonly Check[];
}
interface Schema {
  _zod: { def: Def; optin?: string };
}
interface Check {
  _zod: { def: { check: string; value?: unknown; inclusive?: boolean; format?: string } };
}

const WRAPPERS = new Set(["optional", "nullable", "default", "prefault", "readonly", "catch"]);

/** The schema under optional, default, pipe and lazy wrappers. */
function unwrap(schema: Schema): Schema {
  let s = schema;
  for (let i = 0; i < 16; i++) {
    const def = s._zod.def;
    const next = WRAPPERS.has(def.type)
      ? def.innerType
      : def.type === "pipe"
        ? def.in
        : def.type === "lazy"
          ? def.getter?.()
          : undefined;
    if (next === undefined) return s;
    s = next;
  }
  return s;
}

function kindOf(schema: Schema | undefined): string | undefined {
  return schema === undefined ? undefined : unwrap(schema)._zod.def.type;
}

function fieldsOf(schema: Schema | undefined): [string, Schema][] {
  const shape = schema === undefined ? undefined : unwrap(schema)._zod.def.shape;
  return shape === undefined ? [] : Object.entries(shape);
}

/** The schema of what `key` holds in a value of `schema`. */
function childOf(schema: Schema, key: PropertyKey): Schema | undefined {
  const def = unwrap(schema)._zod.def;
  if (def.type === "object" && typeof key === "string")
    return def.shape !== undefined && Object.hasOwn(def.shape, key) ? def.shape[key] : undefined;
  if (def.type === "array" && typeof key === "number") return def.element;
  if (def.type === "record" && typeof key === "string") return def.valueType;
  return undefined;
}

function schemaAt(root: Schema | undefined, path: Path): Schema | undefined {
  let s = root;
  for (const key of path) s = s === undefined ? undefined : childOf(s, key);
  return s;
}

const isRequired = (field: Schema) => field._zod.optin === undefined;

/** A Secret reference: an object whose one field is secretKeyRef. */
function isSecretRef(schema: Schema | undefined): boolean {
  const fields = fieldsOf(schema);
  return kindOf(schema) === "object" && fields.length === 1 && fields[0]?.[0] === "secretKeyRef";
}

/** Whether `path` is in a Secret reference, where nothing written is said back. */
function inSecretRef(root: Schema | undefined, path: Path): boolean {
  return path.some((_, n) => isSecretRef(schemaAt(root, path.slice(0, n))));
}

const SCALARS = new Set(["string", "number", "boolean", "enum", "literal"]);
/** What zod itself describes: scalars and the containers whose fields it knows. */
const SHAPED = new Set([...SCALARS, "object", "array", "record"]);

/** How a value of `schema` is written: its required fields, `leaf(name)` for each scalar. */
function sketch(schema: Schema | undefined, leaf: (field: string) => string, field = ""): string {
  const kind = kindOf(schema);
  if (schema === undefined || kind === undefined) return leaf(field);
  if (kind === "array") return `[${sketch(unwrap(schema)._zod.def.element, leaf, field)}]`;
  if (kind === "record") return "{ <field>: … }";
  if (kind !== "object") return leaf(field);
  const required = fieldsOf(schema).filter(([, f]) => isRequired(f));
  if (required.length === 0) return "{ … }";
  return `{ ${required.map(([k, f]) => `${k}: ${sketch(f, leaf, k)}`).join(", ")} }`;
}

const ellipsis = () => "…";

// ---------------------------------------------------------------- values, said back
/** What a value is, in YAML's words. */
function describe(value: unknown): string {
  if (value === null) return "empty";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "an object";
  if (typeof value === "boolean") return "true or false";
  return `a ${typeof value}`;
}

/**
 * A value the user wrote, said back in a fix only when it is plainly a name
 * (a distribution, a model, a shield): no URL, no connection string, nothing
 * that may hold a credential.
 */
function echoable(value: unknown): value is string {
  return (
    typeof value === "string" &&
    value.length <= 128 &&
    /^[A-Za-z0-9][A-Za-z0-9._/-]*$/.test(value) &&
    !/^[-+.\d]/.test(value) &&
    !/^(true|false|yes|no|on|off|null|~)$/i.test(value)
  );
}

/** The field of the object `schema` that takes `value` as it is, when one does. */
function fieldTaking(schema: Schema | undefined, value: unknown): string | undefined {
  if (!echoable(value)) return undefined;
  for (const [key, field] of fieldsOf(schema)) {
    if (!SCALARS.has(kindOf(field) ?? "")) continue;
    if (z.safeParse(field as unknown as z.ZodType, value).success) return key;
  }
  return undefined;
}

/** `value` written as a value of `schema`: `{ name: starter }` for an object that takes it, else itself. */
function writtenAs(schema: Schema | undefined, value: unknown): string | undefined {
  const kind = kindOf(schema);
  if (kind !== undefined && SCALARS.has(kind))
    return echoable(value) && z.safeParse(schema as unknown as z.ZodType, value).success
      ? value
      : undefined;
  const key = fieldTaking(schema, value);
  if (key === undefined) return undefined;
  const fields = fieldsOf(schema).filter(([k, f]) => k === key || isRequired(f));
  return `{ ${fields.map(([k]) => `${k}: ${k === key ? String(value) : "…"}`).join(", ")} }`;
}

// ---------------------------------------------------------------- the messages
function lastKey(path: Path): string {
  return String(path[path.length - 1] ?? "");
}

/** `field: value`, or `the entry as value` for a list entry. */
function write(path: Path, written: string): string {
  const last = path[path.length - 1];
  return typeof last === "number" ? `the entry as ${written}` : `${String(last)}: ${written}`;
}

/** `llamastackdistribution.spec.providers.inference`: what kubectl explain takes for the object at `path`. */
function explainPath(path: Path): string {
  return ["llamastackdistribution", ...path.filter((k) => typeof k === "string")].join(".");
}

/** The fix for a required field that is missing, by its name. */
function addHint(path: Path): string {
  const last = lastKey(path);
  if (last === "spec")
    return "every LlamaStackDistribution needs one, with at least a distribution: spec: { distribution: { name: starter } }";
  if (last === "distribution")
    return "add distribution: { name: starter } (a shipped distribution; kubectl explain llamastackdistribution.spec.distribution lists the fields), or { image, release, baseConfig } for a custom image";
  return `add ${last}`;
}

function isSpecRoot(path: Path): boolean {
  return path[path.length - 1] === "spec" && path.length <= 2;
}

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
  record: "an object",
  array: "a list",
  string: "a string",
  number: "a number",
  int: "a whole number",
  boolean: "true or false",
};

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
  const field = lastKey(issue.path);
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

function unknownFields(
  issue: Issue & { code: "unrecognized_keys" },
  schema: Schema | undefined,
  input: unknown,
): string {
  const v1alpha1 = issue.keys.filter((k) =>
    (V1ALPHA1_SPEC_FIELDS as readonly string[]).includes(k),
  );
  if (isSpecRoot(issue.path) && v1alpha1.length > 0)
    return `unknown field(s) ${issue.keys.join(", ")}: ${v1alpha1.join(", ")} ${v1alpha1.length === 1 ? "is a field" : "are fields"} of llamastack.io/v1alpha1, the retired operator's version; write the spec as v1alpha2 (spec.server.distribution → spec.distribution, spec.replicas → spec.workload.replicas, spec.network → spec.networking; docs/conversion.md maps every field), or apply it with apiVersion llamastack.io/v1alpha1 to a cluster with the v1alpha1 component, which converts it`;
  // The fields a key may have meant: the object's own, less those already written.
  const given = valueAt(input, issue.path);
  const taken = typeof given === "object" && given !== null ? Object.keys(given) : [];
  const free = fieldsOf(schemaAt(schema, issue.path))
    .map(([k]) => k)
    .filter((k) => !taken.includes(k));
  const named = issue.keys.map((k) => {
    const meant = nearestName(k, free);
    return { text: meant === undefined ? k : `${k} (did you mean ${meant}?)`, meant };
  });
  const fix = named.some((n) => n.meant !== undefined) ? "rename or remove them" : "remove them";
  return `unknown field(s) ${named.map((n) => n.text).join(", ")}; ${fix} (kubectl explain ${explainPath(issue.path)} lists the fields)`;
}

/** A number's checks as its schema sets them: whole or not, and its bounds. */
function numberOf(schema: Schema | undefined): { whole: boolean; min?: number; max?: number } {
  const checks = schema === undefined ? [] : (unwrap(schema)._zod.def.checks ?? []);
  const out: { whole: boolean; min?: number; max?: number } = { whole: false };
  for (const { _zod } of checks) {
    const c = _zod.def;
    // int32 and safe-integer bounds say nothing a user needs.
    const bound =
      typeof c.value === "number" && Math.abs(c.value) < 2 ** 31 - 1 ? c.value : undefined;
    if (c.check === "number_format") out.whole = c.format === "safeint" || c.format === "int32";
    if (c.check === "greater_than" && bound !== undefined)
      out.min = c.inclusive === false ? bound + 1 : bound;
    if (c.check === "less_than" && bound !== undefined)
      out.max = c.inclusive === false ? bound - 1 : bound;
  }
  return out;
}

/** "a whole number from 1024 to 65535" */
function numberWanted(schema: Schema | undefined, int: boolean): string {
  const n = numberOf(schema);
  const what = n.whole || int ? "a whole number" : "a number";
  if (n.min !== undefined && n.max !== undefined) return `${what} from ${n.min} to ${n.max}`;
  if (n.min !== undefined) return `${what} of at least ${n.min}`;
  if (n.max !== undefined) return `${what} of at most ${n.max}`;
  return what;
}

const BOOLEAN_WORDS: Record<string, boolean> = { true: true, false: false, yes: true, no: false };

/** A value of the wrong kind: what was expected, what was found, and the value written right. */
function wrongType(
  issue: Issue & { code: "invalid_type" },
  input: unknown,
  schema: Schema | undefined,
): string | undefined {
  const value = valueAt(input, issue.path);
  const expected: string = issue.expected;
  const shape = SHAPES[expected];
  const at = schemaAt(schema, issue.path);
  const field = lastKey(issue.path);
  if (value === undefined && (input !== undefined || issue.message.endsWith("received undefined")))
    return `required${shape === undefined ? "" : ` (${shape})`}; ${addHint(issue.path)}`;
  if (value === undefined) return undefined;
  if (isSecretRef(at))
    return `takes a reference to a key of a Secret, never the value itself (anyone who can read the resource could read it); put the value in a Secret (kubectl create secret generic <name> --from-literal=<key>=<value>) and write ${write(
      issue.path,
      sketch(at, (k) => `<${k}>`),
    )}`;
  if (value === null)
    return `is empty; write ${write(issue.path, sketch(at, ellipsis))}, or remove ${field === "" ? "it" : field}`;
  if (expected === "string" && (typeof value === "number" || typeof value === "boolean")) {
    const fix =
      field === "release"
        ? `quote it, with the release in full: release: "1.5.0"`
        : `quote it: ${field}: "${String(value)}"`;
    return `expected a string, but YAML read ${String(value)} as a ${typeof value}; ${fix}`;
  }
  if (expected === "number" || expected === "int") {
    const wanted = numberWanted(at, expected === "int");
    if (typeof value === "string" && /^-?\d+(\.\d+)?$/.test(value.trim()))
      return `expected ${wanted}, but the quotes make "${value.trim()}" a string; write it without quotes: ${write(issue.path, value.trim())}`;
    if (typeof value === "number") return `expected ${wanted}, not ${String(value)}; round it`;
    return `expected ${wanted}, not ${describe(value)}; write ${write(issue.path, "<number>")}`;
  }
  if (expected === "boolean") {
    const word = typeof value === "string" ? BOOLEAN_WORDS[value.trim().toLowerCase()] : undefined;
    if (word !== undefined)
      return `expected true or false, but the quotes make "${String(value).trim()}" a string; write it without quotes: ${write(issue.path, String(word))}`;
    return `expected true or false, not ${describe(value)}; write ${write(issue.path, "true")} or false`;
  }
  const echo = !inSecretRef(schema, issue.path);
  if (expected === "array") return wrongForList(issue.path, value, at, echo);
  if (expected === "object" || expected === "record")
    return wrongForObject(issue.path, value, at, echo);
  if (expected === "string")
    return `expected a string, not ${describe(value)}; write the value itself as text`;
  return undefined;
}

/** An object, a string or a number where a list goes. */
function wrongForList(path: Path, value: unknown, at: Schema | undefined, echo: boolean): string {
  const element = at === undefined ? undefined : unwrap(at)._zod.def.element;
  if (typeof value === "object" && value !== null && kindOf(element) === "object") {
    const own = fieldsOf(element).map(([k]) => k);
    const keys = Object.keys(value).filter((k) => own.includes(k));
    const entry =
      keys.length === 0
        ? sketch(element, ellipsis)
        : `{ ${keys.map((k) => `${k}: …`).join(", ")} }`;
    return `expected a list, not an object; make it a list of one entry, ${write(path, `[${entry}]`)} (in block style, "- " before the entry's first field)`;
  }
  const one = echo ? writtenAs(element, value) : undefined;
  // An embedded Kubernetes type (an EnvVar, a Volume) is checked by its own schema, not zod's.
  const opaque = one === undefined && !SHAPED.has(kindOf(element) ?? "");
  return `expected a list, not ${describe(value)}; write ${write(path, `[${one ?? sketch(element, ellipsis)}]`)}${opaque ? ` (kubectl explain ${explainPath(path)} lists its fields)` : ""}`;
}

/** A string, a number or a list where an object goes. */
function wrongForObject(path: Path, value: unknown, at: Schema | undefined, echo: boolean): string {
  const explain = `kubectl explain ${explainPath(path)} lists its fields`;
  if (Array.isArray(value))
    return value.length === 1 && typeof value[0] === "object" && value[0] !== null
      ? `expected an object, not a list; remove the "- " before its first field (${explain})`
      : `expected an object, not a list; write ${write(path, sketch(at, ellipsis))} (${explain})`;
  const written = echo ? writtenAs(at, value) : undefined;
  return `expected an object, not ${describe(value)}; write ${write(path, written ?? sketch(at, ellipsis))}${written === undefined ? ` (${explain})` : ""}`;
}

/** A value that is none of the few a field takes. */
function notAnOption(issue: Issue & { code: "invalid_value" }, input: unknown): string {
  const options = issue.values.map(String);
  const value = valueAt(input, issue.path);
  const meant = typeof value === "string" ? nearestName(value, options) : undefined;
  const what =
    options.length === 1 ? `must be ${options[0]}` : `must be one of ${options.join(", ")}`;
  return meant === undefined ? what : `${what}; did you mean ${meant}?`;
}

/** A number, a string or a list past its bounds. */
function outOfBounds(issue: Issue & { code: "too_small" | "too_big" }): string | undefined {
  const small = issue.code === "too_small";
  const bound = Number(small ? issue.minimum : issue.maximum);
  const last = lastKey(issue.path) || "the list";
  if (issue.origin === "number") {
    const strict = issue.inclusive === false;
    return small
      ? `must be ${strict ? "more than" : "at least"} ${bound}; raise it`
      : `must be ${strict ? "less than" : "at most"} ${bound}; lower it`;
  }
  if (issue.origin === "string")
    return small
      ? bound === 1
        ? `must not be empty; give it a value, or remove ${last}`
        : `must be at least ${bound} characters long`
      : `is longer than ${bound} characters; shorten it`;
  if (issue.origin === "array")
    return small
      ? bound === 1
        ? `an empty list is not allowed; remove ${last}, or give it at least one entry`
        : `needs at least ${bound} entries`
      : `has more than ${bound} entries; shorten it`;
  return undefined;
}

/** zod's own wording, which says nothing of the fix; a schema's own message is kept as it is. */
const ZOD_WORDING = /^(Invalid input|Invalid option|Too small|Too big)\b/;

function explain(issue: Issue, all: readonly Issue[], input: unknown, schema?: Schema): string {
  const leftOut = secretKeyRefLeftOut(issue, all, input);
  if (leftOut !== undefined) return leftOut;
  if (issue.code !== "unrecognized_keys" && !ZOD_WORDING.test(issue.message)) return issue.message;
  switch (issue.code) {
    case "unrecognized_keys":
      return unknownFields(issue, schema, input);
    case "invalid_type":
      return wrongType(issue, input, schema) ?? issue.message;
    case "invalid_value":
      return notAnOption(issue, input);
    case "too_small":
    case "too_big":
      return outOfBounds(issue) ?? issue.message;
    default:
      return issue.message;
  }
}

/**
 * zod's issues for `input` (the object that was parsed, by `schema`) as field,
 * shape and fix. Issues that say one thing twice (a secretKeyRef left out)
 * become one.
 */
export function explainIssues(
  issues: readonly Issue[],
  input?: unknown,
  schema?: z.ZodType,
): ShapeIssue[] {
  const read = schema as unknown as Schema | undefined;
  return issues
    .filter((issue) => !isLeftOutWrapper(issue, issues, input))
    .map((issue) => ({ path: [...issue.path], detail: explain(issue, issues, input, read) }));
}
