// Canonical config.yaml: the same config always gives the same bytes, so its
// hash (and the ConfigMap name) only changes when the config does. Keys are
// sorted, except where a fixed order reads better (top level, provider
// entries); list order is kept, because it means something (the first
// inference provider, the order of providers).
//
// The bytes are those of the yaml package's `stringify` with YAML_OPTIONS,
// except for strings the server's YAML reader (PyYAML) would refuse or read
// back changed as yaml writes them: those are double-quoted and escaped
// (departsFromYaml; ADR 5). A direct writer produces the bytes for the
// documents llsd-hook generates (block maps and lists, plain, quoted and
// literal-block scalars), about twenty times faster; anything outside what it
// knows to write exactly (an unusual key, a control character, a block scalar
// that keeps trailing newlines) goes through `stringify` instead.
// test/unit/config/canonical.test.ts holds the two to the same bytes on
// generated documents; test/llama-stack/canonical.test.ts has PyYAML read
// the departures back.
import { createHash } from "node:crypto";
import { Document, visit } from "yaml";
import { isObject, type Json, type JsonObject } from "../lib/json.js";

const TOP_LEVEL_ORDER = [
  "version",
  "distro_name",
  "image_name",
  "apis",
  "providers",
  "storage",
  "registered_resources",
  "server",
  "vector_stores",
  "safety",
  "connectors",
];
const PROVIDER_ORDER = ["provider_id", "provider_type", "module", "config"];

/**
 * The string `<<`, written double-quoted wherever it is (a key or a value):
 * plain, a YAML 1.1 reader (the server's PyYAML, and yaml's own 1.1 schema)
 * takes it for the merge key, which merges the mapping it labels into its
 * parent instead of keeping a key named `<<` (and fails as a value). The yaml
 * package writes it plain through its merge tag; this tag, listed first, claims it.
 */
const LITERAL_MERGE_KEY = {
  identify: (value: unknown) => value === "<<",
  default: true,
  tag: "tag:yaml.org,2002:str",
  test: /^<<$/,
  resolve: (text: string) => text,
  stringify: () => '"<<"',
};

/** Fixed YAML options: every document llsd-hook writes uses these. */
export const YAML_OPTIONS = {
  version: "1.1",
  lineWidth: 0,
  minContentWidth: 0,
  indentSeq: true,
  aliasDuplicateObjects: false,
  customTags: <T>(tags: T[]): (T | typeof LITERAL_MERGE_KEY)[] => [LITERAL_MERGE_KEY, ...tags],
} as const;

/** An array index ("0", "7"): JavaScript objects list these keys first, in numeric order. */
function isIndexKey(key: string): boolean {
  return /^(?:0|[1-9]\d*)$/.test(key) && Number(key) < 2 ** 32 - 1;
}

/**
 * The keys of `value` in canonical order: `preferred` first, then the others
 * sorted — after any array-index keys, which a JavaScript object always lists
 * first (so the order is that of the canonical copy the YAML is written from).
 */
export function canonicalKeys(value: JsonObject, preferred: readonly string[] = []): string[] {
  const keys = Object.keys(value);
  let indexKeys = 0;
  while (indexKeys < keys.length && isIndexKey(keys[indexKeys] ?? "")) indexKeys++;
  const head = isProvider(value) ? PROVIDER_ORDER : preferred;
  if (indexKeys === 0 && head.length === 0) return keys.sort();
  const named = indexKeys === 0 ? keys : keys.slice(indexKeys);
  const first = head.filter((k) => named.includes(k));
  const rest = named.filter((k) => !head.includes(k)).sort();
  return [...keys.slice(0, indexKeys), ...first, ...rest];
}

function isProvider(value: JsonObject): boolean {
  return Object.hasOwn(value, "provider_id") && Object.hasOwn(value, "provider_type");
}

function canonicalNode(value: Json, preferred: readonly string[] = []): Json {
  if (Array.isArray(value)) return value.map((v) => canonicalNode(v));
  if (!isObject(value)) return value;
  const out: JsonObject = {};
  for (const key of canonicalKeys(value, preferred)) {
    const child = value[key];
    if (child === undefined) continue;
    out[key] = canonicalNode(child);
  }
  return out;
}

/** A canonical copy of a config document. */
export function canonicalize(config: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const key of canonicalKeys(config, TOP_LEVEL_ORDER)) {
    const child = config[key];
    if (child !== undefined) out[key] = canonicalNode(child);
  }
  return out;
}

export function toCanonicalYaml(config: JsonObject): string {
  return writeCanonicalYaml(config) ?? stringifyCanonical(canonicalize(config));
}

/**
 * Line breaks to the server's PyYAML (NEL, LS, PS) that JSON.stringify and
 * the yaml package leave raw, even in double quotes: PyYAML would fold them
 * into a space or fail on them.
 */
const UNICODE_BREAK = /[\u0085\u2028\u2029]/;

/**
 * What PyYAML's reader refuses anywhere in a stream (its NON_PRINTABLE): C0
 * controls but tab, LF and CR; DEL; C1 controls but NEL; lone surrogates;
 * U+FFFE and U+FFFF. yaml escapes the C0 ones and lone surrogates in double
 * quotes and writes the others raw.
 */
const NON_PRINTABLE = /[^\t\n\r\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/u;

/** A string whose every line holds only spaces and tabs, one a space (`" \n"`). */
const BLANK_LINES = /^(?=[^]*\n)(?=[^]* )[\t\n ]*$/;

/**
 * Whether `value`, written as yaml writes it, would be refused or changed by
 * PyYAML, so that it is written double-quoted with escapes instead:
 *  - a Unicode line break, or a character PyYAML's reader refuses;
 *  - a byte order mark (U+FEFF), which PyYAML drops where it starts the text;
 *  - a tab on one line: yaml writes it plain, and PyYAML ends a plain scalar
 *    at a tab, then refuses the tab;
 *  - lines holding only spaces and tabs: yaml writes a `|+` block whose spaces
 *    PyYAML takes for its indentation (`" \n"` read back as `"\n"`).
 */
export function departsFromYaml(value: string): boolean {
  return (
    UNICODE_BREAK.test(value) ||
    NON_PRINTABLE.test(value) ||
    value.includes("\ufeff") ||
    (value.includes("\t") && !value.includes("\n")) ||
    BLANK_LINES.test(value)
  );
}

/** What yaml leaves raw in double quotes that PyYAML must read as an escape. */
const RAW_IN_DOUBLE_QUOTES = /[\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff]/g;
const NAMED_ESCAPE: Readonly<Record<string, string>> = {
  "\u0085": "\\N",
  "\u2028": "\\L",
  "\u2029": "\\P",
};

function escapeRaw(c: string): string {
  const code = c.charCodeAt(0);
  return NAMED_ESCAPE[c] ?? (code <= 0xff ? `\\x${code.toString(16)}` : `\\u${code.toString(16)}`);
}

/** yaml's text of a canonical document, with the strings that depart from it double-quoted and escaped. */
function stringifyCanonical(doc: JsonObject): string {
  const document = new Document(doc, YAML_OPTIONS);
  let departs = false;
  visit(document, {
    Scalar(_key, node) {
      if (typeof node.value === "string" && departsFromYaml(node.value)) {
        node.type = "QUOTE_DOUBLE";
        departs = true;
      }
    },
  });
  const text = document.toString(YAML_OPTIONS);
  // Every character RAW_IN_DOUBLE_QUOTES finds is now inside double quotes, where escapes are read.
  return departs ? text.replace(RAW_IN_DOUBLE_QUOTES, escapeRaw) : text;
}

export function sha256Hex(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

// ------------------------------------------------------------ the direct writer
// Each function returns the text the yaml package writes for its part, or
// undefined for what it does not write exactly. The rules mirror yaml 2.x's
// stringifyString / stringifyPair / stringifyCollection for YAML_OPTIONS
// (YAML 1.1, no line folding, block collections, sequences indented).

/** Strings that cannot be plain scalars (yaml's plainString test). */
const NOT_PLAIN =
  /^[\n\t ,[\]{}#&*!|>'"%@`]|^[?-]$|^[?-][ \t]|[\n:][ \t]|[ \t]\n|[\n\t ]#|[\n\t :]$/;
/** Characters that force a double-quoted scalar with escapes. */
// eslint-disable-next-line no-control-regex -- the control characters are what it finds
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u{D800}-\u{DFFF}]/u;
const DOCUMENT_MARKER = /^(?:%|---|\.\.\.)/m;
const BLOCK_END_NEWLINES = /(^|(?<!\n))\n+(?!\n|$)/g;

/**
 * Plain text YAML 1.1 would read as something else (null, a boolean, a number,
 * a date, the merge key `<<`), from the schema's own tags.
 */
const IMPLICIT_TYPE: RegExp = (() => {
  const skip = ["tag:yaml.org,2002:str"];
  const tests = new Document(null, YAML_OPTIONS).schema.tags.flatMap((tag) =>
    tag.default && !skip.includes(tag.tag) && tag.test !== undefined ? [tag.test] : [],
  );
  if (tests.some((t) => t.flags !== "")) throw new Error("yaml: a tag test with flags");
  return new RegExp(tests.map((t) => `(?:${t.source})`).join("|"));
})();

/** The canonical YAML of `doc` from the direct writer; undefined where only yaml writes it exactly. */
export function writeCanonicalYaml(doc: JsonObject): string | undefined {
  const keys = canonicalKeys(doc, TOP_LEVEL_ORDER);
  if (!keys.some((k) => doc[k] !== undefined)) return "{}\n";
  const body = writeMap(doc, keys, "");
  return body === undefined ? undefined : `${body}\n`;
}

/** A non-empty block map whose lines after the first start with `indent`. */
function writeMap(map: JsonObject, keys: readonly string[], indent: string): string | undefined {
  const inner = `${indent}  `;
  let out = "";
  for (const key of keys) {
    const value = map[key];
    if (value === undefined) continue;
    if (!isPlainKey(key)) return undefined;
    const text = isCollection(value) ? writeCollection(value, inner) : writeScalar(value, inner);
    if (text === undefined) return undefined;
    const sep = isCollection(value) && !isEmpty(value) ? `\n${inner}` : " ";
    out += `${out === "" ? "" : `\n${indent}`}${key}:${sep}${text}`;
  }
  return out;
}

/** A non-empty block sequence whose lines after the first start with `indent`. */
function writeSeq(seq: readonly Json[], indent: string): string | undefined {
  const inner = `${indent}  `;
  let out = "";
  for (const item of seq) {
    if (item === undefined) return undefined;
    const text = isCollection(item) ? writeCollection(item, inner) : writeScalar(item, inner);
    if (text === undefined) return undefined;
    out += `${out === "" ? "" : `\n${indent}`}- ${text}`;
  }
  return out;
}

function isCollection(value: Json): value is Json[] | JsonObject {
  return typeof value === "object" && value !== null;
}

function isEmpty(value: Json[] | JsonObject): boolean {
  if (Array.isArray(value)) return value.length === 0;
  for (const key in value) if (Object.hasOwn(value, key) && value[key] !== undefined) return false;
  return true;
}

function writeCollection(value: Json[] | JsonObject, indent: string): string | undefined {
  if (Array.isArray(value)) return value.length === 0 ? "[]" : writeSeq(value, indent);
  if (Object.getPrototypeOf(value) !== Object.prototype) return undefined;
  return isEmpty(value) ? "{}" : writeMap(value, canonicalKeys(value), indent);
}

/** Keys such as provider_id: none of the tests below but IMPLICIT_TYPE can match them. */
const SIMPLE_KEY = /^[a-z_][a-z0-9_]*$/;

/** A key written plain, as the yaml package writes it; anything else is left to it. */
function isPlainKey(key: string): boolean {
  if (SIMPLE_KEY.test(key))
    return key !== "__proto__" && key.length <= 1024 && !IMPLICIT_TYPE.test(key);
  return (
    key !== "" &&
    key !== "__proto__" &&
    key.length <= 1024 &&
    !key.includes("\n") &&
    !NOT_PLAIN.test(key) &&
    !CONTROL.test(key) &&
    !departsFromYaml(key) &&
    !DOCUMENT_MARKER.test(key) &&
    !IMPLICIT_TYPE.test(key)
  );
}

/** A scalar value; `indent` starts the lines of a literal block. */
function writeScalar(value: Json, indent: string): string | undefined {
  if (value === null) return "null";
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "number") return writeNumber(value);
  if (typeof value !== "string" || CONTROL.test(value) || departsFromYaml(value)) return undefined;
  if (value.includes("\n")) return writeLiteralBlock(value, indent);
  if (NOT_PLAIN.test(value) || IMPLICIT_TYPE.test(value)) return writeQuoted(value);
  return value;
}

function writeNumber(value: number): string {
  if (!Number.isFinite(value)) return Number.isNaN(value) ? ".nan" : value < 0 ? "-.inf" : ".inf";
  return Object.is(value, -0) ? "-0" : JSON.stringify(value);
}

/** One line, quoted: single quotes when it holds `"` and no `'`, else JSON's double quotes. */
function writeQuoted(value: string): string {
  const hasDouble = value.includes('"');
  const hasSingle = value.includes("'");
  return hasDouble && !hasSingle ? `'${value}'` : JSON.stringify(value);
}

/** A multi-line string as a literal block (`|` clip or `|-` strip), as yaml's blockString. */
function writeLiteralBlock(text: string, indent: string): string | undefined {
  if (/\n[\t ]+$/.test(text)) return undefined; // written quoted over several lines
  let endStart = text.length;
  while (endStart > 0 && "\n\t ".includes(text[endStart - 1] ?? "")) endStart--;
  let end = text.substring(endStart);
  const endNewline = end.indexOf("\n");
  // Keep chomping (`|+`) changes how the next line is written: left to yaml.
  if (endNewline !== -1 && (text === end || endNewline !== end.length - 1)) return undefined;
  const chomp = endNewline === -1 ? "-" : "";
  let value = text;
  if (end !== "") {
    value = value.slice(0, -end.length);
    if (end.endsWith("\n")) end = end.slice(0, -1);
    end = end.replace(BLOCK_END_NEWLINES, `$&${indent}`);
  }
  let startWithSpace = false;
  let startEnd = 0;
  let startNewline = -1;
  for (; startEnd < value.length; ++startEnd) {
    const ch = value[startEnd];
    if (ch === " ") startWithSpace = true;
    else if (ch === "\n") startNewline = startEnd;
    else break;
  }
  let start = value.substring(0, startNewline < startEnd ? startNewline + 1 : startEnd);
  if (start !== "") {
    value = value.substring(start.length);
    start = start.replace(/\n+/g, `$&${indent}`);
  }
  const header = (startWithSpace ? "2" : "") + chomp;
  return `|${header}\n${indent}${start}${value.replace(/\n+/g, `$&${indent}`)}${end}`;
}
