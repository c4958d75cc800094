// The chart's objects as annotated trees. An object starts as kustomize renders
// the base (manifests/); each feature (the HTTPS overlay, a component of
// manifests/components/) is kustomize's render with it diffed against the
// render it goes on top of, and what it adds or changes is merged in, tagged
// with the features it needs; what another feature added alike already is
// that part, there with either feature. Values then replace parts of the trees
// (placements), and emit.ts writes each tree as a template.
import { isDeepStrictEqual } from "node:util";

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
/** Features a part of an object needs, every one of them (sorted, no repeats). */
export type Needs = readonly string[];

/** A part of an object: as rendered, or set by a value (expr, yaml). */
export type Node =
  | { t: "scalar"; value: Json; choice?: { needs: Needs; value: Json } }
  | { t: "map"; entries: Entry[] }
  | { t: "list"; items: Item[] }
  /** A scalar the template computes: `{{ expr }}`. */
  | { t: "expr"; expr: string }
  /** A subtree written from a value by toYaml; when `when` is given, only then, else `otherwise`. */
  | { t: "yaml"; value: string; when?: string; otherwise?: Node };

/**
 * Where a part is: with every feature of `needs` on, or of one set of `or`,
 * the other features that add the very same part (two components opening one
 * port: the render with both has it once).
 */
export interface Part {
  needs: Needs;
  or?: Needs[];
}
interface Entry extends Part {
  key: string;
  node: Node;
}
export interface Item extends Part {
  node: Node;
}

export const isMap = (v: Json | undefined): v is { [k: string]: Json } =>
  typeof v === "object" && v !== null && !Array.isArray(v);

export function fromJson(v: Json): Node {
  if (Array.isArray(v))
    return { t: "list", items: v.map((i) => ({ needs: [], node: fromJson(i) })) };
  if (isMap(v))
    return {
      t: "map",
      entries: Object.entries(v).map(([key, value]) => ({ key, needs: [], node: fromJson(value) })),
    };
  return { t: "scalar", value: v };
}

/** Whether a part that needs `needs` is there when the features `on` are. */
const within = (needs: Needs, on: ReadonlySet<string>) => needs.every((n) => on.has(n));

/** Whether the part is there when the features `on` are. */
const present = (part: Part, on: ReadonlySet<string>) =>
  within(part.needs, on) || (part.or ?? []).some((n) => within(n, on));

/**
 * A part not there with `on` that renders as `value` with its own features:
 * what a feature adds that another added already. It gets `needs` as one more
 * set of features that put it there.
 */
function joinTwin<T extends Part & { node: Node }>(
  parts: T[],
  value: Json,
  needs: Needs,
  on: ReadonlySet<string>,
): T | undefined {
  const twin = parts.find(
    (p) => !present(p, on) && isDeepStrictEqual(project(p.node, new Set(p.needs)), value),
  );
  if (twin !== undefined) twin.or = [...(twin.or ?? []), needs];
  return twin;
}

export function union(a: Needs, b: Needs): Needs {
  return [...new Set([...a, ...b])].sort();
}

/** What the tree renders with the features `on` (before any value is placed). */
export function project(node: Node, on: ReadonlySet<string>): Json {
  switch (node.t) {
    case "scalar":
      return node.choice !== undefined && within(node.choice.needs, on)
        ? node.choice.value
        : node.value;
    case "map":
      return Object.fromEntries(
        node.entries.filter((e) => present(e, on)).map((e) => [e.key, project(e.node, on)]),
      );
    case "list":
      return node.items.filter((i) => present(i, on)).map((i) => project(i.node, on));
    default:
      throw new Error(`a value is placed already: ${JSON.stringify(node)}`);
  }
}

/** How list items are matched between two renders: by name where they have one, else whole. */
function identity(v: Json): string {
  return isMap(v) && typeof v["name"] === "string" ? `name:${v["name"]}` : JSON.stringify(v);
}

function unsupported(at: string, what: string, needs: Needs): Error {
  return new Error(
    `${at}: ${what} with ${needs.join(" + ")}, which the chart's generator does not express; make the feature add or change fields only`,
  );
}

/**
 * Merges into `node` (whose render with the features `on` is `before`) what
 * `after`, the render with `needs` on, adds or changes, tagged with `needs`.
 */
export function merge(
  node: Node,
  before: Json,
  after: Json,
  needs: Needs,
  on: ReadonlySet<string>,
  at: string,
): void {
  if (isDeepStrictEqual(before, after)) return;
  if (node.t === "map" && isMap(before) && isMap(after))
    return mergeMap(node, before, after, needs, on, at);
  if (node.t === "list" && Array.isArray(before) && Array.isArray(after))
    return mergeList(node, before, after, needs, on, at);
  if (node.t === "scalar" && !isMap(after) && !Array.isArray(after)) {
    if (node.choice !== undefined) throw unsupported(at, "a value changed a second time", needs);
    node.choice = { needs, value: after };
    return;
  }
  throw unsupported(at, "a value of another type", needs);
}

function mergeMap(
  node: Extract<Node, { t: "map" }>,
  before: { [k: string]: Json },
  after: { [k: string]: Json },
  needs: Needs,
  on: ReadonlySet<string>,
  at: string,
): void {
  for (const key of Object.keys(before))
    if (!(key in after)) throw unsupported(`${at}.${key}`, "a field removed", needs);
  for (const [key, value] of Object.entries(after)) {
    const same = node.entries.filter((e) => e.key === key);
    if (key in before) {
      const entry = same.find((e) => present(e, on));
      if (entry === undefined)
        throw new Error(`${at}.${key}: not in the tree the render came from`);
      merge(entry.node, before[key] ?? null, value, needs, on, `${at}.${key}`);
    } else if (same.length > 0) {
      if (joinTwin(same, value, needs, on) === undefined)
        throw unsupported(`${at}.${key}`, "a field another feature adds otherwise", needs);
    } else node.entries.push({ key, needs, node: fromJson(value) });
  }
}

function mergeList(
  node: Extract<Node, { t: "list" }>,
  before: Json[],
  after: Json[],
  needs: Needs,
  on: ReadonlySet<string>,
  at: string,
): void {
  const visible = node.items.filter((i) => present(i, on));
  if (visible.length !== before.length) throw new Error(`${at}: not the tree the render came from`);
  // Each item of `before` is found in `after`, in order; the rest of `after` is added.
  const ids = after.map(identity);
  let next = 0;
  const matched = new Map<number, number>();
  before.forEach((item, b) => {
    while (next < after.length && ids[next] !== identity(item)) next++;
    if (next === after.length) throw unsupported(`${at}[${b}]`, "an item removed or moved", needs);
    matched.set(next++, b);
  });
  let run: Item[] = [];
  after.forEach((item, a) => {
    const b = matched.get(a);
    const was = b === undefined ? undefined : visible[b];
    if (b === undefined || was === undefined) {
      if (joinTwin(node.items, item, needs, on) === undefined)
        run.push({ needs, node: fromJson(item) });
      return;
    }
    // Added items go before the next item they came before (after other features' items).
    node.items.splice(node.items.indexOf(was), 0, ...run);
    run = [];
    merge(was.node, before[b] ?? null, item, needs, on, `${at}[${b}]`);
  });
  node.items.push(...run);
}

/** One step of a path into an object: a field, or the list item whose `name` is given. */
type Step = { key: string } | { name: string };

/** "spec.template.spec.containers[name=hook].image" as steps. */
function parsePath(path: string): Step[] {
  return path.split(".").flatMap((part) => {
    const m = /^([^[]+)(?:\[name=([^\]]+)\])?$/.exec(part);
    const key = m?.[1];
    if (key === undefined) throw new Error(`${path}: not a path (field.field[name=x].field)`);
    return m?.[2] === undefined ? [{ key }] : [{ key }, { name: m[2] }];
  });
}

/** The parts of `root` at `path`, with a setter for each; every step must be there once. */
export function locate(root: Node, path: string): { get(): Node; set(n: Node): void } {
  let holder: { get(): Node; set(n: Node): void } = {
    get: () => root,
    set: () => {
      throw new Error(`${path}: cannot replace a whole object`);
    },
  };
  for (const step of parsePath(path)) {
    const node = holder.get();
    if ("key" in step && node.t === "map") {
      const found = node.entries.filter((e) => e.key === step.key);
      const entry = found[0];
      if (entry === undefined || found.length > 1)
        throw new Error(`${path}: ${found.length} fields ${step.key}`);
      holder = { get: () => entry.node, set: (n) => (entry.node = n) };
    } else if ("name" in step && node.t === "list") {
      const found = node.items.filter(
        (i) =>
          i.node.t === "map" &&
          i.node.entries.some(
            (e) => e.key === "name" && e.node.t === "scalar" && e.node.value === step.name,
          ),
      );
      const item = found[0];
      if (item === undefined || found.length > 1)
        throw new Error(`${path}: ${found.length} items named ${step.name}`);
      holder = { get: () => item.node, set: (n) => (item.node = n) };
    } else throw new Error(`${path}: no ${JSON.stringify(step)} in a ${node.t}`);
  }
  return holder;
}

/** Replaces every scalar equal to `value` (outside `skip` paths) with what `replace` returns; how many. */
export function replaceScalars(
  node: Node,
  value: string,
  replace: () => Node,
  skip: (path: string) => boolean,
  path = "",
): { node: Node; count: number } {
  if (skip(path)) return { node, count: 0 };
  if (node.t === "scalar") {
    if (node.choice !== undefined && node.choice.value === value)
      throw new Error(`${path}: ${value} in a changed value`);
    return node.value === value ? { node: replace(), count: 1 } : { node, count: 0 };
  }
  let count = 0;
  if (node.t === "map")
    for (const e of node.entries) {
      const r = replaceScalars(e.node, value, replace, skip, `${path}.${e.key}`);
      e.node = r.node;
      count += r.count;
    }
  if (node.t === "list")
    for (const [i, item] of node.items.entries()) {
      const r = replaceScalars(item.node, value, replace, skip, `${path}[${i}]`);
      item.node = r.node;
      count += r.count;
    }
  return { node, count };
}
