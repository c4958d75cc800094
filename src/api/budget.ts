// Sizes the API server would refuse, found before it does. Under
// Metacontroller's default (dynamic) apply every child is copied whole, as JSON,
// into its metacontroller.k8s.io/last-applied-configuration annotation, and
// Kubernetes caps all annotations of an object at 256 KiB together. That bound
// is far tighter than the 1 MiB of a ConfigMap's data or etcd's 1.5 MiB per
// object, so it is the one checked; it is checked in either apply mode, since
// the hook cannot tell which one Metacontroller runs.
import type { KubeObject } from "./hook.js";
import { rewritten } from "../lib/json.js";
import { msg } from "../messages.js";
import { problem, type Problem } from "../problems.js";
import { Reason } from "../reasons.js";

/** Kubernetes' cap on all annotations of one object (TotalAnnotationSizeLimitB). */
export const ANNOTATIONS_LIMIT = 256 * 1024;
/** What a child may take, leaving room for other annotations (ours, kubectl's, users'). */
export const CHILD_BUDGET = ANNOTATIONS_LIMIT - 24 * 1024;

/**
 * Bytes of `value` as Go's encoding/json writes it (Metacontroller is Go):
 * UTF-8, with <, > and & escaped as \u003c… (six bytes instead of one) and
 * U+2028, U+2029 as \u2028 (six bytes instead of three).
 */
export function goJsonBytes(value: unknown): number {
  return goBytesOf(JSON.stringify(value) ?? "");
}

/** goJsonBytes of JSON text already written. */
function goBytesOf(text: string): number {
  const html = text.match(/[<>&]/g)?.length ?? 0;
  const separators = text.match(/[\u2028\u2029]/g)?.length ?? 0;
  return Buffer.byteLength(text, "utf8") + 5 * html + 3 * separators;
}

/** The most bytes one UTF-16 code unit of JSON text takes in Go's encoding: an escape such as \u003c. */
const MAX_GO_BYTES_PER_UNIT = 6;

const kib = (bytes: number) => Math.ceil(bytes / 1024);

/**
 * Where the bytes are: follows the biggest entry down while it holds most of
 * its parent, then names that part with its size and its three largest entries.
 */
export function largestParts(value: unknown): string {
  let node = value;
  let path = "";
  let bytes = goJsonBytes(value);
  for (;;) {
    const sized = entriesOf(node)
      .map(([key, child]) => ({ key, child, bytes: goJsonBytes(child) }))
      .sort((a, b) => b.bytes - a.bytes);
    const top = sized[0];
    if (top === undefined) return `${path || "the whole object"} (${kib(bytes)} KiB)`;
    if (top.bytes * 2 < bytes) {
      const largest = sized
        .slice(0, 3)
        .map((e) => `${join("", e.key)} ${kib(e.bytes)} KiB`)
        .join(", ");
      return `${path || "the whole object"} (${kib(bytes)} KiB in ${sized.length} entries; largest ${largest})`;
    }
    node = top.child;
    path = join(path, top.key);
    bytes = top.bytes;
  }
}

function entriesOf(value: unknown): [string | number, unknown][] {
  if (Array.isArray(value)) return value.map((v, i) => [i, v]);
  if (typeof value === "object" && value !== null) return Object.entries(value);
  return [];
}

function join(path: string, key: string | number): string {
  if (typeof key === "number") return `${path}[${key}]`;
  return path === "" ? key : `${path}.${key}`;
}

/** What a ConfigMap adds around its config.yaml (metadata, labels), generously. */
const CONFIG_MAP_OVERHEAD = 1024;

/** The config's ConfigMap must fit too: checked where the config's parts are still known. */
export function checkConfigSize(configYaml: string, config: unknown): Problem | undefined {
  const bytes = goJsonBytes(configYaml) + CONFIG_MAP_OVERHEAD;
  if (bytes <= CHILD_BUDGET) return undefined;
  return problem(
    Reason.ChildTooLarge,
    "spec",
    msg.childTooLarge(
      "The generated config's ConfigMap",
      kib(bytes),
      kib(CHILD_BUDGET),
      `in config.yaml, ${largestParts(config)}`,
    ),
  );
}

/**
 * A bound on the bytes of `value` as Go writes it (never fewer), counted
 * without writing it; Infinity past `limit`, and for a value JSON.stringify
 * would write otherwise than its members (toJSON, a boxed primitive, a
 * bigint). Each UTF-16 code unit of a string or key counts the most it can
 * take (MAX_GO_BYTES_PER_UNIT); a member JSON leaves out counts as if written.
 */
export function goJsonBytesAtMost(value: unknown, limit: number): number {
  let total = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    if (total > limit) return Infinity;
    const next = stack.pop();
    switch (typeof next) {
      case "string":
        total += 2 + MAX_GO_BYTES_PER_UNIT * next.length;
        continue;
      case "number":
        total += Number.isFinite(next) ? String(next).length : 4;
        continue;
      case "boolean":
      case "undefined":
      case "function":
      case "symbol":
        // true, false, or null where JSON writes one for an item (a member is left out).
        total += 5;
        continue;
      case "object":
        break;
      default:
        // A bigint.
        return Infinity;
    }
    if (next === null) {
      total += 4;
      continue;
    }
    if (rewritten(next)) return Infinity;
    if (Array.isArray(next)) {
      // Brackets, and a comma after each item.
      total += 2 + next.length;
      for (const item of next) stack.push(item);
      continue;
    }
    if (Object.getPrototypeOf(next) !== Object.prototype && Object.getPrototypeOf(next) !== null)
      return Infinity;
    total += 2;
    for (const key of Object.keys(next)) {
      // The key, its colon and a comma.
      total += 4 + MAX_GO_BYTES_PER_UNIT * key.length;
      stack.push(Reflect.get(next, key));
    }
  }
  return total > limit ? Infinity : total;
}

/** A problem for each child over the budget. */
export function checkSizes(children: readonly KubeObject[]): Problem[] {
  const problems: Problem[] = [];
  for (const child of children) {
    // Most children are far below the budget: a bound counted without writing them says so.
    if (goJsonBytesAtMost(child, CHILD_BUDGET) <= CHILD_BUDGET) continue;
    const text = JSON.stringify(child);
    const bytes = goBytesOf(text);
    if (bytes <= CHILD_BUDGET) continue;
    problems.push(
      problem(
        Reason.ChildTooLarge,
        "spec.workload",
        msg.childTooLarge(
          `${child.kind} ${child.metadata.name}`,
          kib(bytes),
          kib(CHILD_BUDGET),
          largestParts(child),
        ),
      ),
    );
  }
  return problems;
}
