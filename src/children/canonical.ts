// Children in one fixed form (cdk8s style): apiVersion, kind, metadata first,
// every other key sorted, list order kept. Identical input gives identical
// bytes, whatever the key order of the user's objects (env, nodeSelector, ...).
import { deepFreeze, orderKeys } from "../lib/json.js";

const HEAD = ["apiVersion", "kind", "metadata"];
const METADATA_HEAD = ["name", "namespace"];
const NO_HEAD: readonly string[] = [];

/** The canonical form of each frozen child met (a memoized plan's: server/memo.ts), itself frozen. */
const canonicalForms = new WeakMap<object, object>();

/**
 * The same object with its keys in canonical order (a reordering keeps its
 * type). A frozen object cannot change, so its form is worked out once and
 * kept for as long as the object lives.
 */
export function canonicalObject<T extends object>(obj: T): T {
  const frozen = Object.isFrozen(obj);
  const kept = frozen ? canonicalForms.get(obj) : undefined;
  // orderKeys gives an object for an object (its result's type is unknown only for other input).
  const form = (kept ??
    orderKeys(obj, HEAD, (key) => (key === "metadata" ? METADATA_HEAD : NO_HEAD))) as T;
  if (frozen && kept === undefined) canonicalForms.set(obj, deepFreeze(form));
  return form;
}
