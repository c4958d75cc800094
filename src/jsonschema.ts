// Validates JSON values against the JSON schema subset two sources emit:
// pydantic (provider configs, configs/<release>/registry.json) and Kubernetes'
// OpenAPI (embedded core/v1 types, src/api/k8s-schemas.json): type,
// anyOf/oneOf/allOf, $ref into $defs, enum/const, properties, required,
// additionalProperties, items, numeric, length and item bounds, pattern,
// x-kubernetes-int-or-string/preserve-unknown-fields and the uri format.
//
// For provider configs (the default mode), two Llama Stack rules shape it:
//  - a string holding a `${env.X}` placeholder is only known at startup, after
//    substitution turns it into a string, number, boolean or null, so it
//    passes any scalar type here;
//  - pydantic silently drops keys a model does not declare (unless the model
//    allows extras), so an undeclared key is reported: it would have no effect.
import { hasPlaceholder } from "./config/envsubst.js";
import { isObject, own, type Json } from "./config/json.js";

export type JsonSchema = Record<string, unknown>;

export interface SchemaError {
  path: (string | number)[];
  kind: "invalid" | "required" | "unknown";
  message: string;
  /** For an unknown key: the fields that level declares. */
  known?: string[];
}

type Schema = JsonSchema;

function resolveRef(root: Schema, schema: Schema): Schema {
  const ref = schema["$ref"];
  if (typeof ref !== "string") return schema;
  const m = /^#\/\$defs\/(.+)$/.exec(ref);
  const defs = root["$defs"];
  if (m === null || !isObject(defs as Json)) return {};
  const target = own(defs as Record<string, Schema>, m[1] ?? "");
  return target === undefined ? {} : resolveRef(root, target);
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

function isDeferred(value: Json): boolean {
  return typeof value === "string" && hasPlaceholder(value);
}

function describeType(schema: Schema): string {
  const t = schema["type"];
  if (typeof t === "string") return t === "integer" ? "an integer" : `a ${t}`;
  if (Array.isArray(schema["enum"]))
    return `one of ${(schema["enum"] as Json[]).map((v) => JSON.stringify(v)).join(", ")}`;
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
  /** Strings holding `${env.X}` pass any scalar type (Llama Stack configs). */
  envPlaceholders: boolean;
}

const LLAMA_STACK: ValidateOptions = { envPlaceholders: true };

function validateNode(
  root: Schema,
  rawSchema: Schema,
  value: Json,
  path: (string | number)[],
  opts: ValidateOptions,
): SchemaError[] {
  const schema = resolveRef(root, rawSchema);
  if (schema["x-kubernetes-preserve-unknown-fields"] === true && schema["properties"] === undefined)
    return [];
  const alternatives = (schema["anyOf"] ?? schema["oneOf"]) as Schema[] | undefined;
  if (Array.isArray(alternatives)) {
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
  if (Array.isArray(schema["allOf"])) {
    const parts = (schema["allOf"] as Schema[]).flatMap((s) =>
      validateNode(root, s, value, path, opts),
    );
    if (parts.length > 0) return parts;
  }

  if (opts.envPlaceholders && isDeferred(value)) {
    const t = schema["type"];
    // A placeholder becomes a scalar at startup; it cannot become an object or a list.
    if (typeof t === "string" && !SCALARS.has(t))
      return [
        {
          path,
          kind: "invalid",
          message: `must be ${describeType(schema)}, not an env placeholder`,
        },
      ];
    return [];
  }

  if ("const" in schema && JSON.stringify(schema["const"]) !== JSON.stringify(value)) {
    return [{ path, kind: "invalid", message: `must be ${JSON.stringify(schema["const"])}` }];
  }
  if (
    Array.isArray(schema["enum"]) &&
    !(schema["enum"] as Json[]).some((e) => JSON.stringify(e) === JSON.stringify(value))
  ) {
    return [{ path, kind: "invalid", message: `must be ${describeType(schema)}` }];
  }
  const type = schema["type"];
  if (typeof type === "string" && !typeMatches(type, value)) {
    return [{ path, kind: "invalid", message: `must be ${describeType(schema)}` }];
  }

  const errors: SchemaError[] = [];
  if (typeof value === "string") {
    if (typeof schema["minLength"] === "number" && value.length < schema["minLength"])
      errors.push({
        path,
        kind: "invalid",
        message: `must have at least ${schema["minLength"]} characters`,
      });
    if (typeof schema["maxLength"] === "number" && value.length > schema["maxLength"])
      errors.push({
        path,
        kind: "invalid",
        message: `must have at most ${schema["maxLength"]} characters`,
      });
    if (schema["format"] === "uri") {
      const bad = checkUri(value);
      if (bad !== undefined) errors.push({ path, kind: "invalid", message: bad });
    }
  }
  if (typeof value === "number") {
    if (typeof schema["minimum"] === "number" && value < schema["minimum"])
      errors.push({ path, kind: "invalid", message: `must be at least ${schema["minimum"]}` });
    if (typeof schema["maximum"] === "number" && value > schema["maximum"])
      errors.push({ path, kind: "invalid", message: `must be at most ${schema["maximum"]}` });
    if (typeof schema["exclusiveMinimum"] === "number" && value <= schema["exclusiveMinimum"])
      errors.push({
        path,
        kind: "invalid",
        message: `must be greater than ${schema["exclusiveMinimum"]}`,
      });
    if (typeof schema["exclusiveMaximum"] === "number" && value >= schema["exclusiveMaximum"])
      errors.push({
        path,
        kind: "invalid",
        message: `must be less than ${schema["exclusiveMaximum"]}`,
      });
  }
  if (Array.isArray(value) && schema["items"] !== undefined) {
    value.forEach((item, i) =>
      append(errors, validateNode(root, schema["items"] as Schema, item, [...path, i], opts)),
    );
  }
  if (Array.isArray(value)) {
    if (typeof schema["minItems"] === "number" && value.length < schema["minItems"])
      errors.push({
        path,
        kind: "invalid",
        message: `must have at least ${schema["minItems"]} items`,
      });
    if (typeof schema["maxItems"] === "number" && value.length > schema["maxItems"])
      errors.push({
        path,
        kind: "invalid",
        message: `must have at most ${schema["maxItems"]} items`,
      });
  }
  if (
    typeof value === "string" &&
    typeof schema["pattern"] === "string" &&
    !new RegExp(schema["pattern"], "u").test(value)
  ) {
    errors.push({ path, kind: "invalid", message: `must match ${schema["pattern"]}` });
  }
  if (isObject(value)) append(errors, validateObject(root, schema, value, path, opts));
  return errors;
}

function validateObject(
  root: Schema,
  schema: Schema,
  value: Record<string, Json>,
  path: (string | number)[],
  opts: ValidateOptions,
): SchemaError[] {
  const errors: SchemaError[] = [];
  const properties = (schema["properties"] ?? {}) as Record<string, Schema>;
  const additional = schema["additionalProperties"];
  for (const required of (schema["required"] ?? []) as string[]) {
    if (!Object.hasOwn(value, required))
      errors.push({ path: [...path, required], kind: "required", message: "is required" });
  }
  for (const [key, child] of Object.entries(value)) {
    if (errors.length >= MAX_ERRORS) break;
    const propSchema = own(properties, key);
    if (propSchema !== undefined) {
      append(errors, validateNode(root, propSchema, child, [...path, key], opts));
    } else if (isObject(additional as Json)) {
      append(errors, validateNode(root, additional as Schema, child, [...path, key], opts));
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

/** Validates `value` against a pydantic-exported JSON schema. */
export function validateAgainstSchema(
  schema: JsonSchema,
  value: Json,
  opts: ValidateOptions = LLAMA_STACK,
): SchemaError[] {
  return validateNode(schema, schema, value, [], opts);
}

/** The declared top-level fields of a config schema. */
export function fieldsOf(schema: JsonSchema): string[] {
  return Object.keys((schema["properties"] ?? {}) as Record<string, unknown>).sort();
}
