// YAML text a user controls (a related ConfigMap's config.yaml, a file given
// to `render`), read within bounds before anything is built from it:
//   1. its size in bytes;
//   2. a pass of yaml's Lexer, which keeps no tokens: nodes and flow nesting,
//      stopped at the first bound broken (the CST of 500 KB of tiny nodes
//      alone takes ~200 MB, so no tree is built before this);
//   3. a pass over yaml's CST, iteratively: depth, entries per collection;
//   4. the document, composed without yaml's own duplicate-key check (it
//      compares every pair of keys) and checked here with one Set per mapping;
//   5. every alias after its anchor, then the value, aliases expanded at most
//      maxAliasCount times, measured with
//      the spec's rule (src/api/bounds.ts), and, where JSON is wanted, without
//      values JSON cannot hold (YAML 1.1 binaries, timestamps, sets).
// The same text gives the same answer, so readYamlOnce keeps answers by text
// (a bounded cache): a ConfigMap is read once, not on every sync.
import {
  isAlias,
  isMap,
  isPair,
  isScalar,
  isSeq,
  Lexer,
  parseDocument,
  Parser,
  visit,
  type CST,
  type Document,
} from "yaml";
import { measure, SPEC_BOUNDS, type Bounds } from "../api/bounds.js";
import { msg } from "../messages.js";
import { formatPath } from "../lib/json.js";
import { textMemo } from "../lib/text-memo.js";

export interface YamlBounds extends Bounds {
  /** Bytes of text, as UTF-8. */
  maxBytes: number;
  /** Nodes (scalars, aliases, collections) the text may hold before aliases expand. */
  maxNodes: number;
  /** yaml's maxAliasCount: how far aliases may expand. */
  maxAliasCount: number;
}

/**
 * Related ConfigMaps and CLI files: the spec's depth and width, fewer values
 * (a shipped base config has about 1,000), and a size the largest shipped
 * base (11 KB) fits twenty times over.
 */
export const YAML_BOUNDS: YamlBounds = {
  maxBytes: 256 * 1024,
  maxDepth: SPEC_BOUNDS.maxDepth,
  maxEntries: SPEC_BOUNDS.maxEntries,
  maxNodes: 20_000,
  maxAliasCount: 100,
};

type YamlProblemKind =
  | "size"
  | "nodes"
  | "depth"
  | "width"
  | "key"
  | "duplicate"
  | "alias"
  | "aliases"
  | "type"
  | "syntax";

export type YamlRead =
  | {
      ok: true;
      value: unknown;
      /** Values in it, aliases expanded (what it weighs in a cache). */
      nodes: number;
    }
  | {
      ok: false;
      kind: YamlProblemKind;
      /** What is wrong and the fix, said of the text ("has …", "is …"). */
      detail: string;
    };

export interface YamlReadOptions {
  /** "1.1" as PyYAML (the server's reader) reads it; "1.2" otherwise. */
  version: "1.1" | "1.2";
  /** Refuse values JSON cannot hold (binary, timestamps, sets, ordered maps). */
  json: boolean;
  bounds?: YamlBounds;
}

type Refusal = Extract<YamlRead, { ok: false }>;
const refuse = (kind: YamlProblemKind, detail: string): Refusal => ({ ok: false, kind, detail });

/** 1-based line of a character offset. */
function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf("\n"); i !== -1 && i < offset; i = text.indexOf("\n", i + 1)) line++;
  return line;
}

/** Lexer tokens that each start a node or an entry. */
const NODE_TOKENS = new Set(["-", "?", ":", "[", "{", ","]);
const SCALAR = "\x1f";
/** Lexer markers that stand for no source text (doc mode, flow error end, scalar). */
const MARKERS = new Set(["\x02", "\x18", SCALAR]);

/** Step 2: node-making tokens and flow nesting, no tree kept. */
function lexScan(text: string, bounds: YamlBounds): Refusal | undefined {
  // A node is at most two tokens (`key: value` is three for two nodes and a pair).
  const maxTokens = 2 * bounds.maxNodes;
  let tokens = 0;
  let flow = 0;
  let offset = 0;
  for (const token of new Lexer().lex(text)) {
    if (token === SCALAR || NODE_TOKENS.has(token) || token.startsWith("*")) tokens++;
    if (token === "[" || token === "{") flow++;
    else if (token === "]" || token === "}") flow = Math.max(0, flow - 1);
    if (tokens > maxTokens) return refuse("nodes", msg.yamlTooManyNodes(bounds.maxNodes));
    if (flow > bounds.maxDepth)
      return refuse("depth", msg.yamlTooDeep(bounds.maxDepth, lineOf(text, offset)));
    if (!MARKERS.has(token)) offset += token.length;
  }
  return undefined;
}

/** Step 3: depth, entries per collection and nodes of the CST, iteratively. */
function cstScan(text: string, bounds: YamlBounds): Refusal | undefined {
  let nodes = 0;
  const stack: { token: CST.Token; depth: number }[] = [];
  for (const top of new Parser().parse(text))
    if (top.type === "document" && top.value !== undefined)
      stack.push({ token: top.value, depth: 0 });
  for (let entry = stack.pop(); entry !== undefined; entry = stack.pop()) {
    const { token, depth } = entry;
    nodes++;
    if (nodes > bounds.maxNodes) return refuse("nodes", msg.yamlTooManyNodes(bounds.maxNodes));
    if (
      token.type !== "block-map" &&
      token.type !== "block-seq" &&
      token.type !== "flow-collection"
    )
      continue;
    if (depth >= bounds.maxDepth)
      return refuse("depth", msg.yamlTooDeep(bounds.maxDepth, lineOf(text, token.offset)));
    if (token.items.length > bounds.maxEntries)
      return refuse(
        "width",
        msg.yamlTooWide(token.items.length, bounds.maxEntries, lineOf(text, token.offset)),
      );
    for (const item of token.items) {
      if (item.key) stack.push({ token: item.key, depth: depth + 1 });
      if (item.value) stack.push({ token: item.value, depth: depth + 1 });
    }
  }
  return undefined;
}

/** Step 4: a key repeated in one mapping, with one Set per mapping (merge keys aside). */
function duplicateKey(text: string, root: unknown, version: "1.1" | "1.2"): Refusal | undefined {
  const stack: unknown[] = [root];
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    if (isMap(node)) {
      const seen = new Set<string>();
      for (const pair of node.items) {
        const key = pair.key;
        if (isScalar(key)) {
          const merge = typeof key.value === "symbol" || (version === "1.1" && key.value === "<<");
          // As the value's object will hold it: 1 and "1" are one key in JSON.
          const id = String(key.value);
          if (!merge && seen.has(id))
            return refuse(
              "duplicate",
              msg.yamlDuplicateKey(String(key.value), lineOf(text, key.range?.[0] ?? 0)),
            );
          seen.add(id);
        }
        stack.push(pair.key, pair.value);
      }
    } else if (isSeq(node)) stack.push(...node.items);
    else if (isPair(node)) stack.push(node.key, node.value);
  }
  return undefined;
}

/**
 * Step 5, first: an alias with no anchor of its name before it, which yaml's
 * toJS would report as a ReferenceError like too many aliases. The alias's
 * name is not said: it may be a Secret's value written unquoted (`*s3cret`).
 */
export function unresolvedAlias(text: string, doc: Document.Parsed): Refusal | undefined {
  const anchors = new Set<string>();
  let found: Refusal | undefined;
  visit(doc, {
    Node(_key, node) {
      if (isAlias(node) && !anchors.has(node.source)) {
        found = refuse("alias", msg.yamlUnresolvedAlias(lineOf(text, node.range?.[0] ?? 0)));
        return visit.BREAK;
      }
      if ((isScalar(node) || isMap(node) || isSeq(node)) && node.anchor !== undefined)
        anchors.add(node.anchor);
      return undefined;
    },
  });
  return found;
}

/** What a non-JSON value is, for the message; undefined for JSON values. */
function yamlTypeOf(value: unknown): string | undefined {
  if (value instanceof Date) return "timestamp";
  if (value instanceof Uint8Array) return "binary (!!binary)";
  if (value instanceof Map) return "ordered map (!!omap or !!pairs)";
  if (value instanceof Set) return "set (!!set)";
  if (typeof value === "bigint") return "integer too large for JSON";
  return undefined;
}

/** Step 5: the first value JSON cannot hold, with its path; visits at most maxNodes values. */
function nonJson(root: unknown, bounds: YamlBounds): Refusal | undefined {
  const stack: { value: unknown; path: (string | number)[] }[] = [{ value: root, path: [] }];
  let visited = 0;
  for (let e = stack.pop(); e !== undefined && visited <= bounds.maxNodes; e = stack.pop()) {
    visited++;
    const type = yamlTypeOf(e.value);
    if (type !== undefined) return refuse("type", msg.yamlNotJson(type, e.path));
    if (Array.isArray(e.value))
      e.value.forEach((v, i) => stack.push({ value: v, path: [...e.path, i] }));
    else if (typeof e.value === "object" && e.value !== null)
      for (const [k, v] of Object.entries(e.value)) stack.push({ value: v, path: [...e.path, k] });
  }
  return undefined;
}

/** The first line of a parser's message, without the colon that leads to its code excerpt. */
function firstLine(message: string): string {
  return (message.split("\n")[0] ?? message).replace(/:$/, "");
}

/**
 * Steps 1-3 alone, over every document of `text`: the first bound broken, or
 * undefined when a tree may be built from it. For a caller that reads
 * several documents with yaml itself (render).
 */
export function scanYaml(text: string, bounds: YamlBounds = YAML_BOUNDS): Refusal | undefined {
  const bytes = Buffer.byteLength(text, "utf8");
  if (bytes > bounds.maxBytes) return refuse("size", msg.yamlTooLarge(bytes, bounds.maxBytes));
  return lexScan(text, bounds) ?? cstScan(text, bounds);
}

/** `text` as one YAML document's value, or the first bound it breaks. Never throws. */
export function readYaml(text: string, options: YamlReadOptions): YamlRead {
  const bounds = options.bounds ?? YAML_BOUNDS;
  const scanned = scanYaml(text, bounds);
  if (scanned !== undefined) return scanned;
  const doc = parseDocument(text, { version: options.version, uniqueKeys: false });
  const error = doc.errors[0];
  if (error !== undefined) return refuse("syntax", firstLine(error.message));
  const duplicate = duplicateKey(text, doc.contents, options.version);
  if (duplicate !== undefined) return duplicate;
  const alias = unresolvedAlias(text, doc);
  if (alias !== undefined) return alias;
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: bounds.maxAliasCount });
  } catch {
    return refuse("aliases", msg.yamlTooManyAliases(bounds.maxAliasCount));
  }
  if (options.json) {
    const type = nonJson(value, bounds);
    if (type !== undefined) return type;
  }
  const shape = measure(value, bounds);
  if (shape.problem !== undefined) {
    const { kind, path, detail } = shape.problem;
    return refuse(kind, path.length === 0 ? detail : `at ${formatPath(path)}: ${detail}`);
  }
  return { ok: true, value, nodes: shape.nodes };
}

/**
 * Answers readYamlOnce keeps: at most 64, weighing at most 4 MiB together (the
 * key's text, two bytes a character, and about 128 bytes for each value of
 * the answer). The key is the options (the version's minor digit, "j" for
 * json or "y"), a NUL, then the text.
 */
const answers = textMemo(
  (key) => {
    const version = key[0] === "2" ? "1.2" : "1.1";
    return readYaml(key.slice(3), { version, json: key[1] === "j" });
  },
  {
    entries: 64,
    bytes: 4 * 1024 * 1024,
    weigh: (key, read) => 2 * key.length + (read.ok ? 128 * read.nodes : 0),
  },
);

/**
 * readYaml with the default bounds, its answer kept by text (least recently
 * used first out). The answer is frozen: callers share it.
 */
export function readYamlOnce(text: string, options: Omit<YamlReadOptions, "bounds">): YamlRead {
  return answers(`${options.version === "1.2" ? "2" : "1"}${options.json ? "j" : "y"}\0${text}`);
}

/** What readYamlOnce holds now (for tests). */
export function heldAnswers(): { entries: number; bytes: number } {
  return answers.held();
}
