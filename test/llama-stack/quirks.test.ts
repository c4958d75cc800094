// Every distribution config shipped in the llama-stack packages goes through
// the real validator. Its only findings are the quirks kept in
// test/llama-stack/quirks.yaml, and every quirk there is still reported (a stale one
// fails too). Two passes: an empty environment (what an unconfigured pod has),
// and every bare ${env.X} set to a dummy value (so env-unset quirks are told
// apart from the rest).
import { expect } from "chai";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { loadQuirks, quirkKey, quirksOf, type Quirk } from "./quirks.js";
import { runValidator, type Finding, type ValidationItem } from "./validator.js";

const root = join(import.meta.dirname, "..", "..");
const releases = (
  JSON.parse(readFileSync(join(root, "configs", "releases.json"), "utf8")) as { releases: string[] }
).releases;
const dummy = "http://dummy.invalid";

function distributionsOf(release: string): string[] {
  return readdirSync(join(root, "configs", release, "distributions")).sort();
}

function bareVariables(configYaml: string): string[] {
  return [...new Set([...configYaml.matchAll(/\$\{env\.([A-Z0-9_]+)\}/g)].map((m) => m[1]!))];
}

describe("test/llama-stack/quirks.yaml", () => {
  it("is well-formed, unique, and names supported releases and shipped distributions", () => {
    const quirks = loadQuirks();
    expect(quirks.length).to.be.greaterThan(0);
    for (const q of quirks) {
      expect(releases, quirkKey(q.release, q.distribution, q)).to.include(q.release);
      expect(distributionsOf(q.release), quirkKey(q.release, q.distribution, q)).to.include(
        q.distribution,
      );
    }
  });
});

for (const release of releases) {
  describe(`shipped ${release} distribution configs through the real validator`, function () {
    this.timeout(180_000);
    const findings = new Map<string, { unset: Finding[]; dummy: Finding[] }>();

    before(async () => {
      const items: ValidationItem[] = [];
      for (const name of distributionsOf(release)) {
        const configYaml = readFileSync(
          join(root, "configs", release, "distributions", name, "config.yaml"),
          "utf8",
        );
        const env = Object.fromEntries(bareVariables(configYaml).map((v) => [v, dummy]));
        items.push({ name: `${name} unset`, configYaml, env: {} });
        items.push({ name: `${name} dummy`, configYaml, env });
      }
      const run = await runValidator(release, items);
      const perConfig = [...run.results.values()].map((r) => r.seconds);
      const sum = perConfig.reduce((a, b) => a + b, 0);
      console.log(
        `      [validator ${release}] ${items.length} configs in one process: ` +
          `${run.totalSeconds.toFixed(2)} s total, import ${run.importSeconds.toFixed(2)} s, ` +
          `${((sum / items.length) * 1000).toFixed(0)} ms/config (max ${(Math.max(...perConfig) * 1000).toFixed(0)} ms)`,
      );
      for (const name of distributionsOf(release)) {
        findings.set(name, {
          unset: run.results.get(`${name} unset`)!.findings,
          dummy: run.results.get(`${name} dummy`)!.findings,
        });
      }
    });

    for (const name of distributionsOf(release)) {
      it(`${name}: exactly the listed quirks`, () => {
        const got = findings.get(name)!;
        const quirks = quirksOf(release, name);
        const listed = new Set(quirks.map((q: Quirk) => quirkKey(release, name, q)));
        const describeAll = (fs: Finding[]): string[] =>
          fs.map((f) => `${quirkKey(release, name, f)}: ${f.message}`);
        const unlisted = [...got.unset, ...got.dummy].filter(
          (f) => !listed.has(quirkKey(release, name, f)),
        );
        expect(describeAll(unlisted), "findings not in test/llama-stack/quirks.yaml").to.deep.equal(
          [],
        );
        const reported = new Set(
          [...got.unset, ...got.dummy].map((f) => quirkKey(release, name, f)),
        );
        const stale = [...listed].filter((k) => !reported.has(k));
        expect(stale, "quirks the validator no longer reports").to.deep.equal([]);
        // The dummy pass only silences env-unset findings.
        expect(got.dummy.filter((f) => f.code === "env-unset")).to.deep.equal([]);
        expect(
          got.unset.filter((f) => f.code !== "env-unset").map((f) => quirkKey(release, name, f)),
        ).to.deep.equal(got.dummy.map((f) => quirkKey(release, name, f)));
      });
    }
  });
}
