// Sizes the API server would refuse, found before it does. Under
// Metacontroller's default (dynamic) apply every child is copied whole, as JSON,
// into its metacontroller.k8s.io/last-applied-configuration annotation, and
// Kubernetes caps all annotations of an object at 256 KiB together. That bound
// is far tighter than the 1 MiB of a ConfigMap's data or etcd's 1.5 MiB per
// object, so it is the one checked; it is checked in either apply mode, since
// the hook cannot tell which one Metacontroller runs.
import { parse } from "yaml";
import type { KubeObject } from "../api/hook.js";
import { CONFIG_FILE } from "../config/runtime.js";
import { msg } from "../messages.js";
import { problem, Reason, type Problem } from "../problems.js";

/** Kubernetes' cap on all annotations of one object (TotalAnnotationSizeLimitB). */
export const ANNOTATIONS_LIMIT = 256 * 1024;
/** What a child may take, leaving room for other annotations (ours, kubectl's, users'). */
export const CHILD_BUDGET = ANNOTATIONS_LIMIT - 24 * 1024;

/**
 * Bytes of `value` as Go's encoding/json writes it (Metacontroller is Go):
 * UTF-8, with <, > and & escaped as \u003c… (six bytes instead of one).
 */
export function goJsonBytes(value: unknown): number {
  const text = JSON.stringify(value) ?? "";
  let escaped = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x3c || c === 0x3e || c === 0x26 || c === 0x2028 || c === 0x2029) escaped += 5;
  }
  return Buffer.byteLength(text, "utf8") + escaped;
}

const kib = (bytes: number) => Math.ceil(bytes / 1024);

/** "path (n KiB)" for the biggest parts: follow the biggest entry down while it dominates. */
export function largestParts(value: unknown, prefix: string): string {
  let node = value;
  let path = prefix;
  for (;;) {
    const entries = entriesOf(node);
    if (entries.length === 0) break;
    const sized = entries.map(([k, v]) => [k, goJsonBytes(v), v] as const);
    sized.sort((a, b) => b[1] - a[1]);
    const [key, bytes, child] = sized[0] as (typeof sized)[number];
    if (bytes * 2 < goJsonBytes(node) || entriesOf(child).length === 0) {
      return sized
        .slice(0, 3)
        .map(([k, b]) => `${join(path, k)} (${kib(b)} KiB)`)
        .join(", ");
    }
    node = child;
    path = join(path, key);
  }
  return `${path} (${kib(goJsonBytes(node))} KiB)`;
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

/** A problem for each child over the budget; the config is reported by its own parts. */
export function checkSizes(children: readonly KubeObject[]): Problem[] {
  const problems: Problem[] = [];
  for (const child of children) {
    const bytes = goJsonBytes(child);
    if (bytes <= CHILD_BUDGET) continue;
    const name = `${child.kind} ${child.metadata.name}`;
    const configYaml = (child as { data?: Record<string, string> }).data?.[CONFIG_FILE];
    const parts =
      child.kind === "ConfigMap" && configYaml !== undefined
        ? `in config.yaml, ${largestParts(parse(configYaml) as unknown, "")}`
        : largestParts(child, "");
    problems.push(
      problem(
        Reason.ChildTooLarge,
        child.kind === "ConfigMap" ? "spec" : "spec.workload",
        msg.childTooLarge(name, kib(bytes), kib(CHILD_BUDGET), parts),
      ),
    );
  }
  return problems;
}
