// Children in one fixed form (cdk8s style): apiVersion, kind, metadata first,
// every other key sorted, list order kept. Identical input gives identical
// bytes, whatever the key order of the user's objects (env, nodeSelector, ...).
import { isObject, type Json, type JsonObject } from "../config/json.js";

const HEAD = ["apiVersion", "kind", "metadata"];
const METADATA_HEAD = ["name", "namespace"];

function sortedKeys(keys: string[], head: readonly string[]): string[] {
  return [...head.filter((k) => keys.includes(k)), ...keys.filter((k) => !head.includes(k)).sort()];
}

function canonical(value: Json, head: readonly string[]): Json {
  if (Array.isArray(value)) return value.map((v) => canonical(v, []));
  if (!isObject(value)) return value;
  const out: JsonObject = {};
  for (const key of sortedKeys(Object.keys(value), head)) {
    const child = value[key];
    if (child === undefined) continue;
    out[key] = canonical(child, key === "metadata" ? METADATA_HEAD : []);
  }
  return out;
}

export function canonicalObject<T>(obj: T): T {
  return canonical(obj as unknown as Json, HEAD) as unknown as T;
}
