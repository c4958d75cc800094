// An annotated object (tree.ts) as the text of a Helm template: YAML as
// kustomize rendered it, with `{{- if }}` around what a feature adds,
// `{{- if }} … {{- else }}` where it changes a field, and the values' template
// expressions where they are placed. Unannotated parts are written by the yaml
// package; `{{` in the data is escaped so that Helm writes it back as it was.
import { stringify } from "yaml";
import type { Item, Json, Needs, Node, Part } from "./tree.js";

/** Features by name, as the Helm condition that turns each on. */
export type Conditions = (feature: string) => string;

const YAML_OPTIONS = { lineWidth: 0 } as const;

/** `{{` written so that Helm outputs `{{`. */
const escape = (text: string) => text.replaceAll("{{", '{{ "{{" }}');

/** `text` (several lines) indented by `indent` spaces. */
function indented(text: string, indent: number): string[] {
  const pad = " ".repeat(indent);
  return escape(text.replace(/\n$/, ""))
    .split("\n")
    .map((l) => pad + l);
}

/** The node's value when nothing in it is annotated or placed, else undefined. */
function plain(node: Node): Json | undefined {
  switch (node.t) {
    case "scalar":
      return node.choice === undefined ? node.value : undefined;
    case "map": {
      const out: { [k: string]: Json } = {};
      for (const e of node.entries) {
        const v = e.needs.length === 0 ? plain(e.node) : undefined;
        if (v === undefined) return undefined;
        out[e.key] = v;
      }
      return out;
    }
    case "list": {
      const out: Json[] = [];
      for (const i of node.items) {
        const v = i.needs.length === 0 ? plain(i.node) : undefined;
        if (v === undefined) return undefined;
        out.push(v);
      }
      return out;
    }
    default:
      return undefined;
  }
}

/** Helm conditions joined by `and`, each in parentheses when it is more than one word. */
function all(conditions: string[]): string {
  const [only] = conditions;
  if (conditions.length === 1 && only !== undefined) return only;
  return `and ${conditions.map((c) => (c.includes(" ") ? `(${c})` : c)).join(" ")}`;
}

const condition = (needs: Needs, on: Conditions) => all(needs.map(on));

/** The sets of features that put a part there: `needs`, or one of `or`. */
const sets = (p: Part) => [p.needs, ...(p.or ?? [])];

/** Runs of consecutive parts that need the same features, in order. */
function runs<T extends Part>(parts: T[]): T[][] {
  const key = (p: Part) => sets(p).join("|");
  const out: T[][] = [];
  for (const p of parts) {
    const last = out.at(-1);
    if (last?.[0] !== undefined && key(last[0]) === key(p)) last.push(p);
    else out.push([p]);
  }
  return out;
}

/** The features known to be on inside a part: `active`, and those every one of its sets has. */
const inside = (p: Part, active: Needs) => [
  ...active,
  ...p.needs.filter((n) => sets(p).every((s) => s.includes(n))),
];

/** `lines` inside `{{- if }}` for what the part needs beyond `active`; `or` for several sets. */
function guarded(
  lines: string[],
  part: Part,
  active: Needs,
  on: Conditions,
  pad: string,
): string[] {
  const extra = sets(part).map((s) => s.filter((n) => !active.includes(n)));
  if (extra.some((s) => s.length === 0)) return lines;
  const each = extra.map((s) => condition(s, on));
  const test =
    each.length === 1
      ? each.join()
      : `or ${each.map((c) => (c.includes(" ") ? `(${c})` : c)).join(" ")}`;
  return [`${pad}{{- if ${test} }}`, ...lines, `${pad}{{- end }}`];
}

class Writer {
  constructor(private readonly on: Conditions) {}

  /** `key: value` lines at `indent`, with the features `active` already checked around them. */
  entry(key: string, node: Node, indent: number, active: Needs): string[] {
    const pad = " ".repeat(indent);
    const value = plain(node);
    if (value !== undefined) return indented(stringify({ [key]: value }, YAML_OPTIONS), indent);
    switch (node.t) {
      case "map":
        return [`${pad}${key}:`, ...this.map(node, indent + 2, active)];
      case "list":
        return [`${pad}${key}:`, ...this.list(node, indent + 2, active)];
      case "expr":
        return [`${pad}${key}: {{ ${node.expr} }}`];
      case "yaml": {
        const set = [
          `${pad}${key}:`,
          `${pad}  {{- toYaml ${node.value} | nindent ${indent + 2} }}`,
        ];
        if (node.when === undefined || node.otherwise === undefined) return set;
        const otherwise = this.entry(key, node.otherwise, indent, active);
        return [
          `${pad}{{- if ${node.when} }}`,
          ...set,
          `${pad}{{- else }}`,
          ...otherwise,
          `${pad}{{- end }}`,
        ];
      }
      case "scalar": {
        // Not plain: a feature changes it.
        const choice = node.choice ?? { needs: [], value: node.value };
        const line = (v: Json) => indented(stringify({ [key]: v }, YAML_OPTIONS), indent);
        const extra = choice.needs.filter((n) => !active.includes(n));
        return [
          `${pad}{{- if ${condition(extra, this.on)} }}`,
          ...line(choice.value),
          `${pad}{{- else }}`,
          ...line(node.value),
          `${pad}{{- end }}`,
        ];
      }
    }
  }

  map(node: Extract<Node, { t: "map" }>, indent: number, active: Needs): string[] {
    if (node.entries.length === 0) return [];
    const pad = " ".repeat(indent);
    return runs(node.entries).flatMap((run) => {
      const part = run[0] ?? { needs: [] };
      const lines = run.flatMap((e) => this.entry(e.key, e.node, indent, inside(part, active)));
      return guarded(lines, part, active, this.on, pad);
    });
  }

  list(node: Extract<Node, { t: "list" }>, indent: number, active: Needs): string[] {
    const pad = " ".repeat(indent);
    return runs(node.items).flatMap((run) => {
      const part = run[0] ?? { needs: [] };
      const lines = run.flatMap((i) => this.item(i, indent, inside(part, active)));
      return guarded(lines, part, active, this.on, pad);
    });
  }

  /** One list item at `indent`: a dash, then its value. */
  private item(i: Item, indent: number, inner: Needs): string[] {
    const pad = " ".repeat(indent);
    const value = plain(i.node);
    if (value !== undefined) return indented(stringify([value], YAML_OPTIONS), indent);
    if (i.node.t === "list") return [`${pad}-`, ...this.list(i.node, indent + 2, inner)];
    if (i.node.t !== "map")
      throw new Error(`a list item of kind ${i.node.t} is not written by the generator`);
    const lines = this.map(i.node, indent + 2, inner);
    // The first field on the dash's line, unless a condition comes first.
    return lines[0]?.trimStart().startsWith("{{") === false
      ? [`${pad}- ${lines[0].slice(indent + 2)}`, ...lines.slice(1)]
      : [`${pad}-`, ...lines];
  }
}

/** The template of one object: `when` (Helm conditions) and its own features around it. */
export function template(
  root: Node,
  needs: Needs,
  when: string[],
  on: Conditions,
  header: string[],
): string {
  if (root.t !== "map") throw new Error("an object is a map");
  const body = new Writer(on).map(root, 0, needs);
  const conditions = [...needs.map(on), ...when];
  const lines = [...header.map((l) => `# ${l}`), ...body];
  if (conditions.length === 0) return lines.join("\n") + "\n";
  // The header inside the condition: a template left with only a comment is not an empty one.
  return [`{{- if ${all(conditions)} }}`, ...lines, "{{- end }}"].join("\n") + "\n";
}
