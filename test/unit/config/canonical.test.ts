// Canonical YAML: the direct writer gives exactly the bytes of the yaml
// package's stringify (on the canonical copy, with YAML_OPTIONS), and leaves
// to it what it does not write itself; the configs llsd-hook generates never
// need that fallback. The strings yaml writes so that the server's PyYAML
// refuses them or reads them back changed are written double-quoted instead
// (ADR 5); test/llama-stack/canonical.test.ts has PyYAML read them.
import { expect } from "chai";
import fc from "fast-check";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parse, stringify } from "yaml";
import {
  canonicalize,
  canonicalKeys,
  departsFromYaml,
  toCanonicalYaml,
  writeCanonicalYaml,
  YAML_OPTIONS,
} from "../../../src/config/canonical.js";
import type { Json, JsonObject } from "../../../src/lib/json.js";
import { CASES_DIR } from "../../support/harness.js";
import { catalog } from "./fixtures.js";

/** What the yaml package writes: the reference. */
function reference(doc: JsonObject): string {
  return stringify(canonicalize(doc), YAML_OPTIONS);
}

describe("canonical YAML: scalars", () => {
  // value → how the direct writer writes `k: <value>` (undefined: left to yaml).
  const rows: [string, Json, string | undefined][] = [
    ["a plain string", "inline::localfs", "k: inline::localfs\n"],
    ["an env placeholder", "${env.X:=~/.llama/x}/kv.db", "k: ${env.X:=~/.llama/x}/kv.db\n"],
    ["a YAML 1.1 boolean is quoted", "on", 'k: "on"\n'],
    ["y is a boolean in YAML 1.1", "y", 'k: "y"\n'],
    ["a number-like string", "4096", 'k: "4096"\n'],
    ["a sexagesimal number", "1:20", 'k: "1:20"\n'],
    ["a date", "2001-12-14", 'k: "2001-12-14"\n'],
    ["null-like", "~", 'k: "~"\n'],
    ["empty", "", 'k: ""\n'],
    ["<< is quoted: plain, YAML 1.1 reads the merge key", "<<", 'k: "<<"\n'],
    ["an indicator first: double quotes", "*star", 'k: "*star"\n'],
    ["holding a double quote and no single one: single quotes", '"q" x', "k: '\"q\" x'\n"],
    ["holding both quotes: JSON's double quotes", `'a' "b" #`, 'k: "\'a\' \\"b\\" #"\n'],
    ["a colon and space", "a: b", 'k: "a: b"\n'],
    ["a trailing space", "a ", 'k: "a "\n'],
    ["--- inside a value stays plain", "---", "k: ---\n"],
    ["a backslash", "C:\\path", "k: C:\\path\n"],
    ["unicode", "é – ✓", "k: é – ✓\n"],
    ["two lines, a final newline: clip", "a\nb\n", "k: |\n  a\n  b\n"],
    ["two lines, no final newline: strip", "a\nb", "k: |-\n  a\n  b\n"],
    ["a leading space: an indentation indicator", " a\nb\n", "k: |2\n   a\n  b\n"],
    ["an empty line inside", "a\n\nb\n", "k: |\n  a\n\n  b\n"],
    ["integers", 42, "k: 42\n"],
    ["a float", 1.5, "k: 1.5\n"],
    ["a big float", 1e21, "k: 1e+21\n"],
    ["minus zero", -0, "k: -0\n"],
    ["booleans", true, "k: true\n"],
    ["null", null, "k: null\n"],
    ["an empty list", [], "k: []\n"],
    ["an empty mapping", {}, "k: {}\n"],
    // hostile: what only yaml writes exactly
    ["a control character", "a\u0007b", undefined],
    ["a lone surrogate", "a\ud800", undefined],
    ["keep chomping (two final newlines)", "a\n\n", undefined],
    ["trailing spaces on the last line", "a\n  ", undefined],
  ];
  for (const [what, value, want] of rows)
    it(what, () => {
      const doc = { k: value };
      expect(writeCanonicalYaml(doc)).to.equal(want);
      expect(toCanonicalYaml(doc)).to.equal(reference(doc));
    });
});

describe("canonical YAML: where it departs from yaml, for the server's PyYAML", () => {
  // value → `k: <value>` as written, double-quoted; yaml writes each otherwise.
  const rows: [string, JsonObject, string][] = [
    // PyYAML's reader refuses these raw anywhere; yaml writes them raw.
    ["a DEL", { k: "a\u007fb" }, 'k: "a\\x7fb"\n'],
    ["a C1 control character", { k: "a\u0090b" }, 'k: "a\\x90b"\n'],
    ["U+FFFE", { k: "\ufffe" }, 'k: "\\ufffe"\n'],
    ["a DEL in a key", { "k\u007f": 1 }, '"k\\x7f": 1\n'],
    // PyYAML drops a byte order mark that starts the text.
    ["a key starting with a byte order mark", { "\ufeffk": 1 }, '"\\ufeffk": 1\n'],
    // Plain, PyYAML ends the scalar at a tab and refuses the tab.
    ["a tab inside one line", { k: "a\tb" }, 'k: "a\\tb"\n'],
    ["a key with a tab", { "a\tb": 1 }, '"a\\tb": 1\n'],
    // As a `|+` block, PyYAML takes the spaces for the block's indentation.
    ["a line of one space", { k: " \n" }, 'k: "\\ \\n"\n'],
    ["space-only lines", { k: "\n  \n" }, 'k: "\\n \\ \\n"\n'],
    ["a space-only line and a tab-only one", { k: " \n\t\n" }, 'k: "\\ \\n\\t\\n"\n'],
  ];
  for (const [what, doc, yaml] of rows)
    it(what, () => {
      const out = toCanonicalYaml(doc);
      expect(out).to.equal(yaml);
      expect(reference(doc), "what yaml writes").not.to.equal(yaml);
      expect(writeCanonicalYaml(doc), "written directly").to.equal(undefined);
      expect(parse(out, { version: "1.1" })).to.deep.equal(doc);
    });

  it("leaves what PyYAML reads as yaml writes it: a tab in a literal block, empty lines, a lone surrogate", () => {
    for (const doc of [{ k: "a\n\tb\n" }, { k: "\t\n" }, { k: "a\n\nb" }, { k: "a\ud800" }])
      expect(toCanonicalYaml(doc), JSON.stringify(doc)).to.equal(reference(doc));
  });
});

describe("canonical YAML: keys and order", () => {
  const rows: [string, JsonObject, boolean][] = [
    [
      "top-level order, then sorted",
      { server: { port: 1 }, zeta: 1, version: 2, apis: ["b", "a"] },
      true,
    ],
    [
      "provider entries: provider_id, provider_type, module, config first, anywhere",
      { x: [{ config: {}, z: 1, module: "m", provider_type: "t", provider_id: "i", a: 2 }] },
      true,
    ],
    ["a mapping whose values are all null", { a: { b: null, c: null } }, true],
    ["nested lists", { a: [[1, [2, []]], [{ b: [{}] }]] }, true],
    ["a literal block in a list", { a: ["x\ny\n", { b: "c\nd" }] }, true],
    ["an empty document", {}, true],
    // hostile keys: left to yaml
    ["a key yaml quotes (a number)", { "10": 1, "2": 2, b: 3 }, false],
    ["a key with a colon and space", { "a: b": 1 }, false],
    ["an empty key", { "": 1 }, false],
    ["a key over 1024 characters", { ["k".repeat(1025)]: 1 }, false],
    ["a key with a newline", { "a\nb": 1 }, false],
    ["a __proto__ key", JSON.parse('{"__proto__": {"x": 1}, "a": 1}') as JsonObject, false],
    ["a << key (quoted)", { "<<": { x: 1 }, a: 1 }, false],
  ];
  for (const [what, doc, direct] of rows)
    it(what, () => {
      expect(writeCanonicalYaml(doc) !== undefined, "written directly").to.equal(direct);
      expect(toCanonicalYaml(doc)).to.equal(reference(doc));
    });

  it("a `<<` key is written quoted, so YAML 1.1 reads a key named << and not a merge", () => {
    const doc: JsonObject = {
      providers: {
        inference: [
          { provider_id: "v", provider_type: "remote::vllm", config: { "<<": { a: 1 }, b: 2 } },
        ],
      },
    };
    const out = toCanonicalYaml(doc);
    expect(out).to.include('        "<<":\n          a: 1\n');
    expect(out).not.to.match(/^\s*<<:/m);
    // yaml's 1.1 schema merges a plain << as the server's PyYAML does: quoted, the key stays.
    expect(parse(out, { version: "1.1" })).to.deep.equal(canonicalize(doc));
    expect(parse("a:\n  <<: {x: 1}\n", { version: "1.1" })).to.deep.equal({ a: { x: 1 } });
  });

  it("canonicalKeys lists array-index keys first, as a JavaScript object does", () => {
    expect(canonicalKeys({ b: 1, "10": 1, a: 1, "2": 1, "01": 1 })).to.deep.equal([
      "2",
      "10",
      "01",
      "a",
      "b",
    ]);
  });
});

describe("canonical YAML: the configs llsd-hook writes", () => {
  it("every golden config.yaml is written directly, to the same bytes", () => {
    let n = 0;
    for (const name of readdirSync(CASES_DIR)) {
      const file = join(CASES_DIR, name, "config.yaml");
      if (!existsSync(file)) continue;
      const text = readFileSync(file, "utf8");
      expect(writeCanonicalYaml(parse(text, { version: "1.1" }) as JsonObject), name).to.equal(
        text,
      );
      n++;
    }
    expect(n).to.be.greaterThan(40);
  });

  it("every base config of every release is written directly, as yaml writes it", () => {
    for (const release of catalog.releases)
      for (const [name, doc] of Object.entries(catalog.byRelease[release]?.baseConfigs ?? {}))
        expect(writeCanonicalYaml(doc), `${release}/${name}`).to.equal(reference(doc));
  });
});

describe("canonical YAML: generated documents", () => {
  const char = fc.constantFrom(
    ..."aZ09 \t\n:#-?'\"{}[],&*!|>%@`.~$=+_<\\é\u2028\u007f\u0090\ufeff".split(""),
  );
  const text = fc.oneof(
    fc.string({ unit: char, maxLength: 10 }),
    fc.constantFrom("null", "Yes", "off", "0x1F", "017", "1_000", ".inf", "1e3", "<<", "a\nb\n"),
  );
  const key = fc.oneof(fc.stringMatching(/^[a-z_][a-z0-9_.-]{0,6}$/), text);
  const leaf = fc.oneof(
    text,
    fc.integer(),
    fc.double({ noNaN: true }),
    fc.boolean(),
    fc.constant(null),
  );
  const { tree } = fc.letrec((tie) => ({
    tree: fc.oneof({ depthSize: "small" }, leaf, tie("list"), tie("map")),
    list: fc.array(tie("tree"), { maxLength: 4 }),
    map: fc.dictionary(key, tie("tree"), { maxKeys: 4 }),
  }));
  it("the same bytes as yaml, whichever writes them, but where it departs for PyYAML: read back the same, nothing PyYAML refuses raw", () => {
    fc.assert(
      fc.property(fc.dictionary(key, tree, { maxKeys: 6 }), (doc) => {
        const d = doc as JsonObject;
        const out = toCanonicalYaml(d);
        const direct = writeCanonicalYaml(d);
        if (direct !== undefined) expect(direct, "written directly").to.equal(reference(d));
        if (!strings(d).some(departsFromYaml)) {
          expect(out).to.equal(reference(d));
          return;
        }
        expect(PYYAML_RAW.test(out), out).to.equal(false);
        expect(parse(out, { version: "1.1" })).to.deep.equal(canonicalize(d));
      }),
      { numRuns: 400, seed: 20261201 },
    );
  });
});

/** Every key and string value in `value`. */
function strings(value: Json): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (typeof value !== "object" || value === null) return [];
  return Object.entries(value).flatMap(([k, v]) => [k, ...strings(v ?? null)]);
}

/** What PyYAML refuses raw (DEL, C1 but NEL), folds (NEL, LS, PS) or drops (a leading BOM). */
const PYYAML_RAW = /[\x7f-\x9f\u2028\u2029\ufeff]/;

describe("canonical YAML: Unicode line breaks (U+0085, U+2028, U+2029)", () => {
  // value → the config line written; each escape is read back by YAML 1.1 (PyYAML: \N, \L, \P).
  const rows: [string, JsonObject, string][] = [
    ["a model id with LS", { k: "a\u2028b" }, 'k: "a\\Lb"\n'],
    ["NEL", { k: "a\u0085b" }, 'k: "a\\Nb"\n'],
    ["metadata with PS", { k: "a\u2029b" }, 'k: "a\\Pb"\n'],
    ["NEL beside another control character", { k: "a\u0085\u0001" }, 'k: "a\\N\\x01"\n'],
    ["a key with NEL", { "k\u0085": 1 }, '"k\\N": 1\n'],
  ];
  for (const [what, doc, yaml] of rows)
    it(what, () => {
      const out = toCanonicalYaml(doc);
      expect(out).to.equal(yaml);
      expect(parse(out, { version: "1.1" })).to.deep.equal(doc);
    });

  it("the same document gives the same bytes", () => {
    const doc = { models: [{ model_id: "x\u2028y", metadata: { note: "a\nb\u2029c\n" } }] };
    expect(toCanonicalYaml(doc)).to.equal(toCanonicalYaml(structuredClone(doc)));
  });
});
