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
import { msg } from "../messages.js";

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

/**
 * Members an Apply entry may hold in all (a Deployment the hook builds has a
 * few hundred). A forged entry over it is not projected: the record is
 * unreadable, as a forged annotation is.
 */
export const MAX_MANAGED_FIELDS = 10_000;
/** Work a projection may do (members looked up, list items indexed). */
const MAX_PROJECTION_WORK = 1_000_000;

/** Thrown inside a projection that would do more than MAX_PROJECTION_WORK. */
class TooMuchWork extends Error {}

interface Budget {
  left: number;
}

function spend(budget: Budget, units: number): void {
  budget.left -= units;
  if (budget.left < 0) throw new TooMuchWork();
}

/** Members of a FieldsV1 set in all, counted no further than `max` + 1, iteratively. */
function countMembers(set: unknown, max: number): number {
  let count = 0;
  const stack = [set];
  for (let node = stack.pop(); node !== undefined && count <= max; node = stack.pop()) {
    if (!isObject(node)) continue;
    for (const child of Object.values(node)) {
      count++;
      stack.push(child);
    }
  }
  return count;
}

function parseKey(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * A list's items, indexed on demand and once: by their JSON (for `v:`), and
 * by the JSON of the values of each set of key fields (for `k:`). Equal JSON
 * is the equality the members mean: the values are JSON, compared as written.
 */
function listIndex(live: readonly unknown[], budget: Budget) {
  let byValue: Map<string, number[]> | undefined;
  const byKeyFields = new Map<string, Map<string, number[]>>();
  const add = (map: Map<string, number[]>, id: string, i: number) => {
    const hits = map.get(id);
    if (hits === undefined) map.set(id, [i]);
    else hits.push(i);
  };
  return {
    value(id: string): readonly number[] {
      if (byValue === undefined) {
        spend(budget, live.length);
        const map = new Map<string, number[]>();
        live.forEach((item, i) => add(map, JSON.stringify(item), i));
        byValue = map;
      }
      return byValue.get(id) ?? [];
    },
    key(fields: readonly string[], id: string): readonly number[] {
      const signature = JSON.stringify(fields);
      let map = byKeyFields.get(signature);
      if (map === undefined) {
        spend(budget, live.length);
        map = new Map();
        for (let i = 0; i < live.length; i++) {
          const item = live[i];
          if (isObject(item) && fields.every((f) => Object.hasOwn(item, f)))
            add(map, JSON.stringify(fields.map((f) => item[f])), i);
        }
        byKeyFields.set(signature, map);
      }
      return map.get(id) ?? [];
    },
  };
}

/** The items a `k:`, `v:` or `i:` member names, with the id of that lookup. */
function selected(
  member: string,
  live: readonly unknown[],
  index: ReturnType<typeof listIndex>,
): { id: string; items: readonly number[] } | undefined {
  const text = member.slice(2);
  if (member.startsWith("i:")) {
    const i = Number(text);
    return String(i) === text && Number.isInteger(i) && i >= 0 && i < live.length
      ? { id: member, items: [i] }
      : undefined;
  }
  if (member.startsWith("v:")) {
    const value = parseKey(text);
    if (value === undefined) return undefined;
    const id = JSON.stringify(value);
    return { id: `v:${id}`, items: index.value(id) };
  }
  if (!member.startsWith("k:")) return undefined;
  const key = parseKey(text);
  if (!isObject(key)) return undefined;
  const fields = Object.keys(key).sort();
  const id = JSON.stringify(fields.map((f) => key[f]));
  return { id: `k:${JSON.stringify(fields)}${id}`, items: index.key(fields, id) };
}

/**
 * A list projected: each item by the first member (in the set's order) that
 * names it, in the list's order. Linear: the items are indexed once, and each
 * member is one lookup (a member naming the same items as an earlier one
 * adds nothing).
 */
function projectList(
  live: readonly unknown[],
  set: Record<string, unknown>,
  members: readonly string[],
  budget: Budget,
): unknown[] {
  const owner = new Array<string | undefined>(live.length);
  const index = listIndex(live, budget);
  const looked = new Set<string>();
  for (const member of members) {
    spend(budget, 1);
    const hit = selected(member, live, index);
    if (hit === undefined || looked.has(hit.id)) continue;
    looked.add(hit.id);
    for (const i of hit.items) owner[i] ??= member;
  }
  const out: unknown[] = [];
  live.forEach((item, i) => {
    const member = owner[i];
    if (member === undefined) return;
    const value = project(item, set[member], budget);
    if (value !== undefined) out.push(value);
  });
  return out;
}

/** `live` projected onto a FieldsV1 set; undefined where the set does not fit the value. */
function project(live: unknown, set: unknown, budget: Budget): unknown {
  if (!isObject(set)) return undefined;
  const members = Object.keys(set).filter((k) => k !== ".");
  if (members.length === 0) return live; // the whole value is owned
  if (Array.isArray(live)) return projectList(live, set, members, budget);
  if (!isObject(live)) return undefined;
  const out: Record<string, unknown> = {};
  for (const member of members) {
    spend(budget, 1);
    if (!member.startsWith("f:")) continue;
    const name = member.slice(2);
    if (!Object.hasOwn(live, name)) continue;
    const value = project(live[name], set[member], budget);
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

/** Why an Apply entry is not projected, completing "<Kind> <ns>/<name> …". */
export interface TooLarge {
  tooLarge: string;
}

/**
 * The observed child projected onto the fields `fieldManager` applied, without
 * the controller ownerReference and controller-uid label Metacontroller adds;
 * undefined when that manager has no Apply entry on it, TooLarge when its
 * entry holds more than MAX_MANAGED_FIELDS members or would take more work
 * than a projection may do (a forged entry: never a long computation).
 */
export function projectAppliedBounded(
  observed: KubeObject,
  fieldManager: string,
): { object: KubeObject } | TooLarge | undefined {
  const entries = applyEntries(observed).filter((e) => e.manager === fieldManager);
  const entry = entries.find((e) => e.apiVersion === observed.apiVersion) ?? entries[0];
  if (entry === undefined) return undefined;
  const tooLarge = { tooLarge: msg.managedFieldsTooLarge(fieldManager, MAX_MANAGED_FIELDS) };
  if (countMembers(entry.fieldsV1, MAX_MANAGED_FIELDS) > MAX_MANAGED_FIELDS) return tooLarge;
  let projected: unknown;
  try {
    projected = project(observed, entry.fieldsV1, { left: MAX_PROJECTION_WORK });
  } catch (err) {
    if (err instanceof TooMuchWork) return tooLarge;
    throw err;
  }
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
    object: {
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
    },
  };
}

/** projectApplied, undefined also when the entry is too large to project. */
export function projectApplied(observed: KubeObject, fieldManager: string): KubeObject | undefined {
  const projected = projectAppliedBounded(observed, fieldManager);
  return projected !== undefined && "object" in projected ? projected.object : undefined;
}
