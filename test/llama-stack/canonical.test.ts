// config.yaml as the server reads it: each release's PyYAML (yaml.safe_load,
// as `llama stack run` and `ogx stack run` load the file) reads back every
// string toCanonicalYaml writes. In particular those it writes double-quoted
// and escaped where the yaml package's text would be refused or read back
// changed (src/config/canonical.ts, ADR 5): a row for each class of character,
// then documents of strings generated from a fixed seed, hostile characters
// and white space first. Needs only the venvs, no Kubernetes.
import { expect } from "chai";
import fc from "fast-check";
import { isDeepStrictEqual } from "node:util";
import { canonicalize, toCanonicalYaml } from "../../src/config/canonical.js";
import type { JsonObject } from "../../src/lib/json.js";
import { syncContext } from "../support/harness.js";
import { python } from "./python.js";

/** One string a class: what PyYAML refuses raw, folds, drops or takes for indentation. */
const CLASSES: [string, string][] = [
  ["a C0 control character (NUL)", "a\u0000b"],
  ["a C0 control character (ESC)", "a\u001bb"],
  ["a C0 control character (US)", "a\u001fb"],
  ["a carriage return", "a\rb"],
  ["DEL", "a\u007fb"],
  ["a C1 control character", "a\u0080b\u009f"],
  ["NEL", "a\u0085b"],
  ["LS and PS", "a\u2028b\u2029"],
  ["a byte order mark", "\ufeffa"],
  ["U+FFFE and U+FFFF", "a\ufffeb\uffff"],
  ["a lone surrogate", "a\ud800b"],
  ["a tab inside one line", "a\tb"],
  ["a line of one space", " \n"],
  ["space-only lines", "\n  \n"],
  ["a space-only line and a tab-only one", " \n\t\n"],
  ["a tab in a literal block", "a\n\tb\n"],
];

const char = fc.constantFrom(
  ..." \t\n\ra#:-'\"\\{}[],&*!|>%@`~?\u0000\u0007\u001b\u007f\u0085\u0090\u009f\u00a0\u2028\u2029\ud800\udc00\ufeff\ufffe\uffffé".split(
    "",
  ),
  "😀",
);
const text = fc.oneof(
  fc.string({ unit: char, maxLength: 8 }),
  fc.string({ unit: fc.constantFrom(" ", "\t", "\n", "a"), maxLength: 7 }),
);
const { tree } = fc.letrec((tie) => ({
  tree: fc.oneof({ depthSize: "small" }, text, tie("list"), tie("map")),
  list: fc.array(tie("tree"), { maxLength: 3 }),
  map: fc.dictionary(text, tie("tree"), { maxKeys: 3 }),
}));
const documents = fc.dictionary(text, tree, { maxKeys: 4 }) as fc.Arbitrary<JsonObject>;

const READ = `
import json, sys, yaml
out = []
for text in json.load(sys.stdin):
    try:
        out.append({"value": yaml.safe_load(text)})
    except yaml.YAMLError as e:
        out.append({"error": str(e).splitlines()[0]})
print(json.dumps(out))
`;

/** What `release`'s PyYAML reads from each text: its value, or the first line of its error. */
function readByPyYaml(release: string, texts: string[]): { value?: unknown; error?: string }[] {
  return JSON.parse(python(release, READ, JSON.stringify(texts))) as {
    value?: unknown;
    error?: string;
  }[];
}

describe("config.yaml strings read back by each release's PyYAML", function () {
  this.timeout(300_000);
  const rows = CLASSES.flatMap(([, s]): JsonObject[] => [
    { k: s },
    { [s]: 1 },
    { l: [s, { k: s }] },
  ]);
  const generated = fc.sample(documents, { seed: 20261226, numRuns: 3000 });

  for (const release of syncContext().catalog.releases)
    it(`${release}: a row for each class of character, as a value, a key and in a list, then 3,000 generated documents`, () => {
      const docs = [...rows, ...generated];
      const texts = docs.map(toCanonicalYaml);
      const read = readByPyYaml(release, texts);
      const wrong = docs.flatMap((doc, i) =>
        isDeepStrictEqual(read[i], { value: canonicalize(doc) })
          ? []
          : [{ yaml: texts[i], read: read[i] }],
      );
      expect(
        wrong.slice(0, 5),
        `${wrong.length} of ${docs.length} read back otherwise`,
      ).to.deep.equal([]);
    });
});
