// Reads the fields the mapping needs, typed by the field table's kinds. A
// field of the wrong type is a problem naming its path (never its value); a
// missing one is simply absent.
import { isObject, own, formatPath, type Json, type JsonObject } from "../lib/json.js";
import { msg } from "../messages.js";
import { problem, type Problem } from "../problems.js";
import { Reason } from "../reasons.js";
import { pathOf } from "./json-path.js";
import type { Kind } from "./table.js";

export interface Reader {
  root: JsonObject;
  /** The version being read, for the fix in messages. */
  apiVersion: string;
  problems: Map<string, Problem>;
}

export function reader(root: JsonObject, apiVersion: string): Reader {
  return { root, apiVersion, problems: new Map() };
}

const KIND_TEXT: Record<Kind, string> = {
  integer: "an integer",
  string: "a string",
  boolean: "true or false",
  list: "a list",
  object: "an object",
  intOrString: "an integer or a string such as 50%",
  quantity: "a quantity such as 10Gi",
};

/** What a value is, without its content (which may be a secret). */
export function describe(value: Json): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "an object";
  if (typeof value === "boolean") return "true or false";
  if (typeof value === "number") return Number.isInteger(value) ? "an integer" : "a number";
  return "a string";
}

function isKind(value: Json, kind: Kind): boolean {
  switch (kind) {
    case "integer":
      return Number.isSafeInteger(value);
    case "string":
      return typeof value === "string";
    case "boolean":
      return typeof value === "boolean";
    case "list":
      return Array.isArray(value);
    case "object":
      return isObject(value);
    case "intOrString":
      return typeof value === "string" || Number.isSafeInteger(value);
    case "quantity":
      return typeof value === "string" || (typeof value === "number" && Number.isFinite(value));
  }
}

/** Go's zero values, which v1alpha1 fields with `omitempty` treat as "not set". */
export function isZero(value: Json): boolean {
  if (Array.isArray(value)) return value.length === 0;
  if (isObject(value)) return Object.keys(value).length === 0;
  return value === 0 || value === "" || value === false;
}

function report(r: Reader, path: readonly string[], kind: Kind, found: Json): void {
  const at = formatPath(path);
  if (r.problems.has(at)) return;
  r.problems.set(
    at,
    problem(
      Reason.InvalidSpec,
      at,
      msg.convertWrongType(KIND_TEXT[kind], describe(found), r.apiVersion),
    ),
  );
}

/** The field at `dotted` if it has the kind; a problem if it (or an object on the way) has another. */
export function read(r: Reader, dotted: string, kind: Kind): Json | undefined {
  const path = pathOf(dotted);
  let node: JsonObject = r.root;
  for (let i = 0; i < path.length; i++) {
    const value = own(node, path[i] ?? "");
    if (value === undefined) return undefined;
    if (i === path.length - 1) {
      if (isKind(value, kind)) return value;
      report(r, path, kind, value);
      return undefined;
    }
    if (!isObject(value)) {
      report(r, path.slice(0, i + 1), "object", value);
      return undefined;
    }
    node = value;
  }
  return undefined;
}

export function readString(r: Reader, dotted: string): string | undefined {
  const value = read(r, dotted, "string");
  return typeof value === "string" ? value : undefined;
}

export function readInteger(r: Reader, dotted: string): number | undefined {
  const value = read(r, dotted, "integer");
  return typeof value === "number" ? value : undefined;
}

/** metadata.namespace, when the object has one. */
export function namespaceOf(root: JsonObject): string | undefined {
  const metadata = own(root, "metadata");
  const namespace = isObject(metadata) ? own(metadata, "namespace") : undefined;
  return typeof namespace === "string" && namespace !== "" ? namespace : undefined;
}
