// What a server-side apply recorded. Under Metacontroller's
// --apply-strategy=server-side-apply a child carries no last-applied
// annotation; the API server records in metadata.managedFields which fields
// each manager set, as a FieldsV1 set: `f:<name>` for a field, `k:{…}` for a
// list item by its key fields, `v:<json>` for a set item, `i:<n>` by index,
// and `.` for the node itself. The projection of the live object onto the
// set of Metacontroller's Apply entry is what it applied, with the values as
// the API server stores them (quantities canonical). Anyone with update
// rights can rewrite managedFields, but a projection takes every value from
// the live object, so it can never change the child's kind, namespace or name.
import { LAST_APPLIED_ANNOTATION, type KubeObject } from "../api/hook.js";
import { isObject } from "../lib/json.js";
import { CONTROLLER_UID_LABEL } from "./labels.js";

/** Metacontroller's default --apply-strategy-ssa-field-manager. */
export const DEFAULT_FIELD_MANAGER = "metacontroller";

interface ManagedFieldsEntry {
  manager?: unknown;
  operation?: unknown;
  subresource?: unknown;
  apiVersion?: unknown;
  fieldsV1?: unknown;
}

function entriesOf(obj: KubeObject): ManagedFieldsEntry[] {
  const entries = obj.metadata["managedFields"];
  return Array.isArray(entries) ? entries.filter(isObject) : [];
}

/** The main resource's Apply entries (not a subresource such as status). */
function applyEntries(obj: KubeObject): ManagedFieldsEntry[] {
  return entriesOf(obj).filter(
    (e) => e.operation === "Apply" && (e.subresource === undefined || e.subresource === ""),
  );
}

/**
 * Managers with an Apply entry, for a message: what helps fix a mismatched
 * field manager. managedFields are user-writable, so only names shaped like a
 * manager name are shown, at most five.
 */
export function applyManagers(obj: KubeObject): string[] {
  const names = applyEntries(obj)
    .map((e) => e.manager)
    .filter((m): m is string => typeof m === "string" && /^[-._:/a-zA-Z0-9]{1,64}$/.test(m));
  return [...new Set(names)].sort().slice(0, 5);
}

function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  return JSON.stringify(a) === JSON.stringify(b);
}

function parseKey(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Whether a list item is the one a `k:`, `v:` or `i:` member names. */
function selects(member: string, item: unknown, index: number): boolean {
  if (member.startsWith("i:")) return member.slice(2) === String(index);
  if (member.startsWith("v:")) return sameValue(parseKey(member.slice(2)), item);
  if (!member.startsWith("k:") || !isObject(item)) return false;
  const key = parseKey(member.slice(2));
  return (
    isObject(key) &&
    Object.entries(key).every(([k, v]) => Object.hasOwn(item, k) && sameValue(item[k], v))
  );
}

/** `live` projected onto a FieldsV1 set; undefined where the set does not fit the value. */
function project(live: unknown, set: unknown): unknown {
  if (!isObject(set)) return undefined;
  const members = Object.keys(set).filter((k) => k !== ".");
  if (members.length === 0) return live; // the whole value is owned
  if (Array.isArray(live)) {
    const out: unknown[] = [];
    live.forEach((item, index) => {
      const member = members.find((m) => selects(m, item, index));
      if (member === undefined) return;
      const value = project(item, set[member]);
      if (value !== undefined) out.push(value);
    });
    return out;
  }
  if (!isObject(live)) return undefined;
  const out: Record<string, unknown> = {};
  for (const member of members) {
    if (!member.startsWith("f:")) continue;
    const name = member.slice(2);
    if (!Object.hasOwn(live, name)) continue;
    const value = project(live[name], set[member]);
    if (value !== undefined) out[name] = value;
  }
  return out;
}

/** Labels and annotations Metacontroller adds or removes itself, never ours. */
const NOT_OURS = {
  labels: [CONTROLLER_UID_LABEL],
  annotations: [LAST_APPLIED_ANNOTATION],
};

/**
 * A projected label or annotation map without `keys`. Its values come from the
 * live object, whose labels and annotations are strings (hook.ts parses them).
 */
function withoutKeys(value: unknown, keys: readonly string[]): Record<string, string> | undefined {
  if (!isObject(value)) return undefined;
  const rest = Object.fromEntries(
    Object.entries(value).filter(
      (entry): entry is [string, string] =>
        !keys.includes(entry[0]) && typeof entry[1] === "string",
    ),
  );
  return Object.keys(rest).length === 0 ? undefined : rest;
}

/**
 * The observed child projected onto the fields `fieldManager` applied, without
 * the controller ownerReference and controller-uid label Metacontroller adds;
 * undefined when that manager has no Apply entry on it.
 */
export function projectApplied(observed: KubeObject, fieldManager: string): KubeObject | undefined {
  const entries = applyEntries(observed).filter((e) => e.manager === fieldManager);
  const entry = entries.find((e) => e.apiVersion === observed.apiVersion) ?? entries[0];
  if (entry === undefined) return undefined;
  const projected = project(observed, entry.fieldsV1);
  if (!isObject(projected)) return undefined;
  const { apiVersion: _a, kind: _k, metadata: rawMetadata, ...rest } = projected;
  void _a;
  void _k;
  const metadata = isObject(rawMetadata) ? rawMetadata : {};
  const labels = withoutKeys(metadata["labels"], NOT_OURS.labels);
  const annotations = withoutKeys(metadata["annotations"], NOT_OURS.annotations);
  const { ownerReferences: _o, labels: _l, annotations: _n, ...otherMetadata } = metadata;
  void _o;
  void _l;
  void _n;
  return {
    apiVersion: observed.apiVersion,
    kind: observed.kind,
    metadata: {
      ...otherMetadata,
      name: observed.metadata.name,
      ...(observed.metadata.namespace === undefined
        ? {}
        : { namespace: observed.metadata.namespace }),
      ...(labels === undefined ? {} : { labels }),
      ...(annotations === undefined ? {} : { annotations }),
    },
    ...rest,
  };
}
