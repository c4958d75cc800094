// The "did you mean …?" of every message: which candidate a mistyped name
// gets, one row per case, hostile rows included.
import { expect } from "chai";
import { editDistance, nearestName } from "../../../src/lib/nearest.js";

const SPEC_FIELDS = [
  "distribution",
  "providers",
  "disabledProviders",
  "resources",
  "storage",
  "disabled",
  "overrideConfig",
  "networking",
  "workload",
  "monitoring",
  "trust",
  "auth",
];
const ENTRY_FIELDS = ["id", "provider", "endpoint", "apiKey", "secretRefs", "settings", "module"];
const PROVIDER_IDS = [
  "openai",
  "anthropic",
  "gemini",
  "groq",
  "sentence-transformers",
  "fireworks",
];

const rows: { word: string; candidates: readonly string[]; expected: string | undefined }[] = [
  // two adjacent letters swapped: one edit
  { word: "endpiont", candidates: ENTRY_FIELDS, expected: "endpoint" },
  // a letter left out
  { word: "provders", candidates: SPEC_FIELDS, expected: "providers" },
  { word: "sentence-transformer", candidates: PROVIDER_IDS, expected: "sentence-transformers" },
  // case, - and _ cost nothing: snake_case and kebab-case of a camelCase name
  { word: "vector_io", candidates: ["inference", "vectorIo", "files"], expected: "vectorIo" },
  { word: "ApiKey", candidates: ENTRY_FIELDS, expected: "apiKey" },
  { word: "disabled-providers", candidates: SPEC_FIELDS, expected: "disabledProviders" },
  // a letter too many, and a wrong one
  { word: "starterr", candidates: ["starter", "nvidia", "oci"], expected: "starter" },
  { word: "stArtor", candidates: ["starter", "nvidia", "oci"], expected: "starter" },
  // up to three edits in a long word
  { word: "endpoint-url", candidates: ENTRY_FIELDS, expected: "endpoint" },
  // a short word: one edit only
  { word: "vlm", candidates: ["vllm", "tgi", "ollama"], expected: "vllm" },
  { word: "ollma", candidates: ["vllm", "tgi", "ollama"], expected: "ollama" },
  // too far from everything: no suggestion rather than a wrong one
  { word: "replica", candidates: SPEC_FIELDS, expected: undefined },
  // a config field written beside provider, where no entry field is like it
  { word: "base_url", candidates: ENTRY_FIELDS, expected: undefined },
  { word: "xyz", candidates: ["vllm", "tgi", "ollama"], expected: undefined },
  // two equally near: not clearly one, so none
  { word: "1.5.1", candidates: ["1.5.0", "1.4.1", "0.7.3"], expected: undefined },
  { word: "cat", candidates: ["bat", "car"], expected: undefined },
  // two spellings of one name tie at no distance: none
  { word: "vectorio", candidates: ["vector_io", "vectorIo"], expected: undefined },
  // the word is a candidate: nothing to suggest
  { word: "endpoint", candidates: ENTRY_FIELDS, expected: undefined },
  // one or two characters: too short to tell a slip from another name
  { word: "i", candidates: ["id", "ip"], expected: undefined },
  { word: "ib", candidates: ["id", "auth"], expected: undefined },
  { word: "ID", candidates: ["id", "ip"], expected: "id" },
  // hostile: empty, nothing to choose from, separators only, huge, odd characters
  { word: "", candidates: SPEC_FIELDS, expected: undefined },
  { word: "endpiont", candidates: [], expected: undefined },
  { word: "--__--", candidates: ["", "-", "_"], expected: undefined },
  { word: "a".repeat(100_000), candidates: SPEC_FIELDS, expected: undefined },
  { word: "providers", candidates: ["a".repeat(100_000), "provider"], expected: "provider" },
  {
    word: "__proto__",
    candidates: ["constructor", "__proto__x", "toString"],
    expected: "__proto__x",
  },
  { word: "constructor", candidates: SPEC_FIELDS, expected: undefined },
  { word: "infèrence", candidates: ["inference", "safety"], expected: "inference" },
  { word: "inference\u0000", candidates: ["inference", "safety"], expected: "inference" },
  { word: "😀😀😀", candidates: ["😀😀😁", "safety"], expected: "😀😀😁" },
  // duplicates among the candidates are one candidate
  { word: "saftey", candidates: ["safety", "safety", "scoring"], expected: "safety" },
];

describe("nearestName", () => {
  for (const row of rows)
    it(`${JSON.stringify(row.word.slice(0, 30))} → ${String(row.expected)}`, () => {
      expect(nearestName(row.word, row.candidates)).to.equal(row.expected);
    });

  it("takes any iterable, once", () => {
    const once = new Set(["endpoint", "apiKey"]).values();
    expect(nearestName("endpiont", once)).to.equal("endpoint");
  });
});

describe("editDistance", () => {
  const cases: [string, string, number, number][] = [
    ["", "", 3, 0],
    ["abc", "", 3, 3],
    ["", "abc", 1, 2],
    ["endpiont", "endpoint", 3, 1],
    ["kitten", "sitting", 3, 3],
    ["ca", "abc", 3, 3],
    ["abcdef", "badcfe", 3, 3],
    // past the limit: limit + 1, however far
    ["a".repeat(50), "b".repeat(50), 2, 3],
    ["short", "a much longer word", 2, 3],
  ];
  for (const [a, b, limit, expected] of cases)
    it(`${a || "''"} ↔ ${b || "''"} within ${limit}: ${expected}`, () => {
      expect(editDistance(a, b, limit)).to.equal(expected);
      expect(editDistance(b, a, limit)).to.equal(expected);
    });
});
