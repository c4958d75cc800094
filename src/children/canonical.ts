// Children in one fixed form (cdk8s style): apiVersion, kind, metadata first,
// every other key sorted, list order kept. Identical input gives identical
// bytes, whatever the key order of the user's objects (env, nodeSelector, ...).
import { orderKeys } from "../lib/json.js";

const HEAD = ["apiVersion", "kind", "metadata"];
const METADATA_HEAD = ["name", "namespace"];
const NO_HEAD: readonly string[] = [];

/** The same object with its keys in canonical order (a reordering keeps its type). */
export function canonicalObject<T extends object>(obj: T): T {
  return orderKeys(obj, HEAD, (key) => (key === "metadata" ? METADATA_HEAD : NO_HEAD)) as T;
}
