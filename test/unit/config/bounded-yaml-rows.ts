// YAML text a user controls, one row a bound: each broken by a text past it,
// with readYaml's exact answer (1.1, as JSON). The inputs took the process out
// of heap, or blocked it for seconds, when parsed whole. Read by
// test/unit/config/bounded-yaml.test.ts (the answers) and npm run bench -- 12
// (how long each takes).
import { YAML_BOUNDS } from "../../../src/config/bounded-yaml.js";

const keys = (n: number, from = 0) =>
  Array.from({ length: n }, (_, i) => `k${from + i}: 1`).join("\n");

export const BOUNDED_YAML_ROWS: { name: string; text: string; answer: string }[] = [
  // size: counted in UTF-8 bytes before anything reads the text
  {
    name: "more bytes than the bound",
    text: `a: "${"é".repeat(140_000)}"`,
    answer: "size: is 280005 bytes, more than the 262144 llsd-hook reads; shorten it",
  },
  // nodes: 60,000 tiny list items (240 KB): stopped by the lexer pass, no tree built
  {
    name: "a block list of tiny nodes",
    text: "- a\n".repeat(60_000),
    answer: `nodes: holds more than ${YAML_BOUNDS.maxNodes} YAML nodes (scalars, aliases and collections); shorten it`,
  },
  {
    name: "a flow list of tiny nodes",
    text: `[${"a,".repeat(120_000)}]`,
    answer: `nodes: holds more than ${YAML_BOUNDS.maxNodes} YAML nodes (scalars, aliases and collections); shorten it`,
  },
  // keys per mapping: 30,000 keys took 11-40 s in yaml's pairwise duplicate check
  {
    name: "one mapping of 25,000 keys",
    text: keys(25_000),
    answer: `nodes: holds more than ${YAML_BOUNDS.maxNodes} YAML nodes (scalars, aliases and collections); shorten it`,
  },
  {
    name: "one mapping of 1,025 keys",
    text: `top:\n${keys(1025)
      .split("\n")
      .map((l) => `  ${l}`)
      .join("\n")}`,
    answer:
      "width: has a mapping or list of 1025 entries (line 2), more than the 1024 llsd-hook accepts in one; shorten it",
  },
  // depth: flow, block and compact block nesting, each before the recursive composer
  {
    name: "1,000 nested flow lists",
    text: `${"[".repeat(1000)}${"]".repeat(1000)}`,
    answer: "depth: is nested more than 32 levels deep (line 1); flatten it",
  },
  {
    name: "1,000 compact nested block lists",
    text: `${"- ".repeat(1000)}a`,
    answer: "depth: is nested more than 32 levels deep (line 1); flatten it",
  },
  {
    name: "600 indented mappings",
    text: Array.from({ length: 600 }, (_, i) => `${" ".repeat(i)}a:`).join("\n"),
    answer: "depth: is nested more than 32 levels deep (line 33); flatten it",
  },
  // aliases: depth and count as expanded
  {
    name: "an alias that nests past the depth bound",
    text: `a: &a ${"[".repeat(20)}1${"]".repeat(20)}\nb: ${"[".repeat(20)}*a${"]".repeat(20)}\n`,
    answer: `depth: at b${"[0]".repeat(31)}: is nested more than 32 levels deep; flatten it (llsd-hook refuses deeper values so that validation cannot overflow)`,
  },
  {
    name: "a billion laughs",
    text: [
      "a: &a [x, x, x, x, x, x, x, x, x, x]",
      "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]",
      "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]",
      "d: [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]",
    ].join("\n"),
    answer:
      "aliases: expands its aliases more than 100 times; write the values out, or use fewer aliases",
  },
  // an alias before its anchor is said as what it is, without its name (issue 34)
  {
    name: "an alias whose anchor is never set",
    text: "a: &x [1]\nb: *x\nc: *s3cret-token\n",
    answer:
      "alias: has an alias at line 3 whose anchor is not set before it (an anchor &name must come before its alias *name); set the anchor first, or quote the value if it is text that starts with *",
  },
  {
    name: "an alias before its anchor",
    text: "a: *x\nb: &x 1\n",
    answer:
      "alias: has an alias at line 1 whose anchor is not set before it (an anchor &name must come before its alias *name); set the anchor first, or quote the value if it is text that starts with *",
  },
  { name: "an anchor on a key, its alias later", text: "? &k a\n: 1\nb: *k\n", answer: "ok" },
  // duplicate keys, found with one Set per mapping; merge keys are not keys
  {
    name: "a repeated key",
    text: "a: 1\nb:\n  c: 1\n  c: 2\n",
    answer: "duplicate: repeats the key c in one mapping (line 4); keep one",
  },
  {
    name: "1 and '1' (one key in JSON)",
    text: "1: a\n'1': b\n",
    answer: "duplicate: repeats the key 1 in one mapping (line 2); keep one",
  },
  { name: "two merge keys", text: "a: &a {x: 1}\nb:\n  <<: *a\n  <<: *a\n", answer: "ok" },
  // values JSON cannot hold, which PyYAML reads as bytes and dates
  {
    name: "a binary",
    text: "a:\n  b: !!binary aGVsbG8=\n",
    answer:
      "type: holds a YAML binary (!!binary) at a.b, which the server does not read as the text it looks like; quote it to make it a string",
  },
  {
    name: "a timestamp",
    text: "models:\n- metadata: {released: 2024-01-01}\n",
    answer:
      "type: holds a YAML timestamp at models[0].metadata.released, which the server does not read as the text it looks like; quote it to make it a string",
  },
  { name: "a quoted timestamp", text: "released: '2024-01-01'\n", answer: "ok" },
  {
    name: "__proto__",
    text: "__proto__: 1\n",
    answer: "key: at __proto__: __proto__ cannot be used as a key; rename or remove it",
  },
  // syntax: yaml's own first line
  {
    name: "not YAML",
    text: "apis: [files\n",
    answer:
      "syntax: Flow sequence in block collection must be sufficiently indented and end with a ] at line 2, column 1",
  },
];
