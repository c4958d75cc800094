// YAML a user controls, read within bounds: each bound broken by a row past
// it, with the exact message, and every answer in bounded time and memory
// (the inputs below took the process out of heap, or blocked it for seconds,
// when parsed whole).
import { expect } from "chai";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import {
  heldAnswers,
  readYaml,
  readYamlOnce,
  YAML_BOUNDS,
} from "../../../src/config/bounded-yaml.js";

const configs = join(import.meta.dirname, "..", "..", "..", "configs");
const read11 = (text: string) => readYaml(text, { version: "1.1", json: true });
const refusal = (text: string) => {
  const r = read11(text);
  return r.ok ? "ok" : `${r.kind}: ${r.detail}`;
};
const keys = (n: number, from = 0) =>
  Array.from({ length: n }, (_, i) => `k${from + i}: 1`).join("\n");

describe("readYaml", () => {
  it("reads every shipped base config within the bounds", () => {
    const releases = readdirSync(configs).filter((d) => /^\d/.test(d));
    let read = 0;
    for (const release of releases)
      for (const name of readdirSync(join(configs, release, "distributions"))) {
        const text = readFileSync(
          join(configs, release, "distributions", name, "config.yaml"),
          "utf8",
        );
        expect(refusal(text), `${release}/${name}`).to.equal("ok");
        read++;
      }
    expect(read).to.be.greaterThan(20);
  });

  const rows: { name: string; text: string; answer: string }[] = [
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
  for (const row of rows)
    it(`${row.name}: ${row.answer.split(":")[0] ?? ""}`, () => {
      const started = performance.now();
      expect(refusal(row.text)).to.equal(row.answer);
      // Bounded work: the same inputs whole took seconds or the heap.
      expect(performance.now() - started).to.be.below(1000);
    });

  it("a 1.1 boolean is a boolean, as PyYAML reads it", () => {
    expect(read11("insecure: yes\n")).to.deep.equal({
      ok: true,
      value: { insecure: true },
      nodes: 2,
    });
  });
});

describe("readYamlOnce", () => {
  it("answers the same text with the same frozen value, once read", () => {
    const text = "apis: [inference]\nproviders: {inference: []}\n";
    const first = readYamlOnce(text, { version: "1.1", json: true });
    const second = readYamlOnce(text, { version: "1.1", json: true });
    expect(second).to.equal(first);
    if (!first.ok) throw new Error("not read");
    expect(Object.isFrozen(first.value)).to.equal(true);
    expect(Object.isFrozen((first.value as { apis: unknown }).apis)).to.equal(true);
  });

  it("keeps apart the same text read as 1.1 and as 1.2", () => {
    const as11 = readYamlOnce("a: yes\n", { version: "1.1", json: false });
    const as12 = readYamlOnce("a: yes\n", { version: "1.2", json: false });
    expect(as11).to.deep.equal({ ok: true, value: { a: true }, nodes: 2 });
    expect(as12).to.deep.equal({ ok: true, value: { a: "yes" }, nodes: 2 });
  });

  it("holds at most 64 answers and 4 MiB, whatever it is given", function () {
    this.timeout(20_000);
    let kept = 0;
    for (let i = 0; i < 30; i++) {
      // 2,000 values each (about 270 KB as weighed): more than 4 MiB well before 64 of them.
      const text = `n${i}:\n${`  - [${"a, ".repeat(9)}a]\n`.repeat(180)}`;
      const read = readYamlOnce(text, { version: "1.1", json: true });
      expect(read.ok).to.equal(true);
      const held = heldAnswers();
      kept = Math.max(kept, held.entries);
      expect(held.entries).to.be.at.most(64);
      expect(held.bytes).to.be.at.most(4 * 1024 * 1024);
    }
    expect(kept).to.be.within(2, 63); // bounded by bytes here, not by count
  });
});
