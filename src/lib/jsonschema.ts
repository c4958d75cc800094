// Validates JSON values against the JSON schema subset two sources emit:
// pydantic (provider configs, configs/<release>/registry.json) and Kubernetes'
// OpenAPI (embedded core/v1 types, src/api/k8s-schemas.json): type,
// anyOf/oneOf/allOf, $ref into $defs, enum/const, properties, required,
// additionalProperties, items, numeric, length and item bounds, pattern,
// x-kubernetes-int-or-string/preserve-unknown-fields and the uri format.
//
// For provider configs two Llama Stack rules shape it:
//  - a string holding a `${env.X}` placeholder is only known at startup, after
//    substitution turns it into a string, number, boolean or null, so it
//    passes any scalar type here (the caller says which strings are deferred:
//    the `isDeferred` option, LLAMA_STACK_VALUES in src/config/envsubst.ts);
//  - pydantic silently drops keys a model does not declare (unless the model
//    allows extras), so an undeclared key is reported: it would have no effect.
import { isObject, own, type Json } from "./json.js";

export type JsonSchema = Record<string, unknown>;

export interface SchemaError {
  path: (string | number)[];
  kind: "invalid" | "required" | "unknown";
  message: string;
  /** For an unknown key: the fields that level declares. */
  known?: string[];
}

/** The subschemas of anyOf, oneOf or allOf; undefined when `value` is not a list. */
function schemaList(value: unknown): JsonSchema[] | undefined {
  return Array.isArray(value) ? value.filter(isObject) : undefined;
}

/** A keyword's subschema (items, additionalProperties) or property map, when it is an object. */
function schemaAt(schema: JsonSchema, keyword: string): JsonSchema | undefined {
  const value = schema[keyword];
  return isObject(value) ? value : undefined;
}

function resolveRef(root: JsonSchema, schema: JsonSchema): JsonSchema {
  const ref = schema["$ref"];
  if (typeof ref !== "string") return schema;
  const m = /^#\/\$defs\/(.+)$/.exec(ref);
  const defs = schemaAt(root, "$defs");
  if (m === null || defs === undefined) return {};
  const target = own(defs, m[1] ?? "");
  return isObject(target) ? resolveRef(root, target) : {};
}

function typeOfValue(value: Json): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

function typeMatches(expected: string, value: Json): boolean {
  const actual = typeOfValue(value);
  if (expected === actual) return true;
  if (expected === "number" && actual === "integer") return true;
  return false;
}

const SCALARS = new Set(["string", "integer", "number", "boolean", "null"]);

/** Errors kept per object: enough to act on, and bounded for a value with many keys. */
const MAX_ERRORS = 50;

/** `out.push(...more)` without spreading, which overflows the stack for a long `more`. */
function append(out: SchemaError[], more: readonly SchemaError[]): void {
  for (const e of more) {
    if (out.length >= MAX_ERRORS) return;
    out.push(e);
  }
}

function describeType(schema: JsonSchema): string {
  const t = schema["type"];
  if (typeof t === "string") return `${/^[aeiou]/.test(t) ? "an" : "a"} ${t}`;
  const values: unknown = schema["enum"];
  if (Array.isArray(values)) return `one of ${values.map((v) => JSON.stringify(v)).join(", ")}`;
  return "a valid value";
}

function checkUri(value: string): string | undefined {
  try {
    const url = new URL(value);
    if (url.host === "") return "must be a URL with a host, such as http://vllm:8000/v1";
    return undefined;
  } catch {
    return "must be an absolute URL with a scheme, such as http://vllm:8000/v1";
  }
}

export interface ValidateOptions {
  /** A string known only at startup, which then becomes any scalar (a Llama Stack `${env.X}`). */
  isDeferred?: (value: string) => boolean;
}

/** anyOf / oneOf: valid if one alternative is; else the errors of the one whose type fits. */
function validateAlternatives(
  root: JsonSchema,
  alternatives: readonly JsonSchema[],
  value: Json,
  path: (string | number)[],
  opts: ValidateOptions,
): SchemaError[] {
  const results = alternatives.map((alt) => validateNode(root, alt, value, path, opts));
  if (results.some((r) => r.length === 0)) return [];
  // Report the alternative whose type fits, if one does; else a type error.
  const fitting = alternatives.findIndex((alt) => {
    const t = resolveRef(root, alt)["type"];
    return typeof t === "string" && typeMatches(t, value);
  });
  if (fitting >= 0) return results[fitting] ?? [];
  const kinds = alternatives
    .map((a) => describeType(resolveRef(root, a)))
    .filter((d) => d !== "a null");
  return [{ path, kind: "invalid", message: `must be ${[...new Set(kinds)].join(" or ")}` }];
}

/** const, enum and type: what the value must be, if it is not. */
function kindMessage(schema: JsonSchema, value: Json): string | undefined {
  if ("const" in schema && JSON.stringify(schema["const"]) !== JSON.stringify(value))
    return `must be ${JSON.stringify(schema["const"])}`;
  const values: unknown = schema["enum"];
  if (Array.isArray(values) && !values.some((e) => JSON.stringify(e) === JSON.stringify(value)))
    return `must be ${describeType(schema)}`;
  const type = schema["type"];
  if (typeof type === "string" && !typeMatches(type, value))
    return `must be ${describeType(schema)}`;
  return undefined;
}

function bound(schema: JsonSchema, keyword: string): number | undefined {
  const value = schema[keyword];
  return typeof value === "number" ? value : undefined;
}

function stringMessages(schema: JsonSchema, value: string): string[] {
  const out: string[] = [];
  const [min, max] = [bound(schema, "minLength"), bound(schema, "maxLength")];
  if (min !== undefined && value.length < min) out.push(`must have at least ${min} characters`);
  if (max !== undefined && value.length > max) out.push(`must have at most ${max} characters`);
  const bad = schema["format"] === "uri" ? checkUri(value) : undefined;
  if (bad !== undefined) out.push(bad);
  const pattern = schema["pattern"];
  if (typeof pattern === "string" && !new RegExp(pattern, "u").test(value))
    out.push(`must match ${pattern}`);
  return out;
}

function numberMessages(schema: JsonSchema, value: number): string[] {
  const out: string[] = [];
  const min = bound(schema, "minimum");
  const max = bound(schema, "maximum");
  const above = bound(schema, "exclusiveMinimum");
  const below = bound(schema, "exclusiveMaximum");
  if (min !== undefined && value < min) out.push(`must be at least ${min}`);
  if (max !== undefined && value > max) out.push(`must be at most ${max}`);
  if (above !== undefined && value <= above) out.push(`must be greater than ${above}`);
  if (below !== undefined && value >= below) out.push(`must be less than ${below}`);
  return out;
}

function arrayMessages(schema: JsonSchema, value: readonly Json[]): string[] {
  const out: string[] = [];
  const [min, max] = [bound(schema, "minItems"), bound(schema, "maxItems")];
  if (min !== undefined && value.length < min) out.push(`must have at least ${min} items`);
  if (max !== undefined && value.length > max) out.push(`must have at most ${max} items`);
  return out;
}

function validateNode(
  root: JsonSchema,
  rawSchema: JsonSchema,
  value: Json,
  path: (string | number)[],
  opts: ValidateOptions,
): SchemaError[] {
  const schema = resolveRef(root, rawSchema);
  if (schema["x-kubernetes-preserve-unknown-fields"] === true && schema["properties"] === undefined)
    return [];
  const alternatives = schemaList(schema["anyOf"] ?? schema["oneOf"]);
  if (alternatives !== undefined)
    return validateAlternatives(root, alternatives, value, path, opts);
  const allOf = schemaList(schema["allOf"]);
  if (allOf !== undefined) {
    const parts = allOf.flatMap((s) => validateNode(root, s, value, path, opts));
    if (parts.length > 0) return parts;
  }
  if (typeof value === "string" && opts.isDeferred?.(value) === true) {
    const t = schema["type"];
    // A placeholder becomes a scalar at startup; it cannot become an object or a list.
    if (typeof t !== "string" || SCALARS.has(t)) return [];
    const message = `must be ${describeType(schema)}, not an env placeholder`;
    return [{ path, kind: "invalid", message }];
  }
  const wrongKind = kindMessage(schema, value);
  if (wrongKind !== undefined) return [{ path, kind: "invalid", message: wrongKind }];

  const errors: SchemaError[] = [];
  const invalid = (messages: string[]) => {
    for (const message of messages) errors.push({ path, kind: "invalid", message });
  };
  if (typeof value === "string") invalid(stringMessages(schema, value));
  else if (typeof value === "number") invalid(numberMessages(schema, value));
  else if (Array.isArray(value)) {
    const items = schemaAt(schema, "items");
    if (items !== undefined)
      value.forEach((item, i) =>
        append(errors, validateNode(root, items, item, [...path, i], opts)),
      );
    invalid(arrayMessages(schema, value));
  } else if (isObject(value)) append(errors, validateObject(root, schema, value, path, opts));
  return errors;
}

function validateObject(
  root: JsonSchema,
  schema: JsonSchema,
  value: Record<string, Json>,
  path: (string | number)[],
  opts: ValidateOptions,
): SchemaError[] {
  const errors: SchemaError[] = [];
  const properties = schemaAt(schema, "properties") ?? {};
  const additional = schema["additionalProperties"];
  const required: unknown = schema["required"];
  for (const name of Array.isArray(required) ? required : []) {
    if (typeof name === "string" && !Object.hasOwn(value, name))
      errors.push({ path: [...path, name], kind: "required", message: "is required" });
  }
  for (const [key, child] of Object.entries(value)) {
    if (errors.length >= MAX_ERRORS) break;
    const propSchema = own(properties, key);
    if (propSchema !== undefined) {
      append(
        errors,
        validateNode(root, isObject(propSchema) ? propSchema : {}, child, [...path, key], opts),
      );
    } else if (isObject(additional)) {
      append(errors, validateNode(root, additional, child, [...path, key], opts));
    } else if (
      additional !== true &&
      (schema["properties"] !== undefined || additional === false)
    ) {
      const known = Object.keys(properties).sort();
      errors.push({
        path: [...path, key],
        kind: "unknown",
        message: "is not a declared field",
        known,
      });
    }
  }
  return errors;
}

/** Validates `value` against a pydantic-exported or OpenAPI JSON schema. */
export function validateAgainstSchema(
  schema: JsonSchema,
  value: Json,
  opts: ValidateOptions = {},
): SchemaError[] {
  return validateNode(schema, schema, value, [], opts);
}

/** The declared top-level fields of a config schema. */
export function fieldsOf(schema: JsonSchema): string[] {
  return Object.keys(schemaAt(schema, "properties") ?? {}).sort();
}
