// Every config.yaml the hook generates in the golden corpus goes through the
// real llama-stack package of its release, with exactly the environment the
// generated Deployment gives the container (Secret-backed variables get test
// values). The only findings allowed are quirks the distribution's own base
// config already has (configs/quirks.yaml, same code and path).
// External providers' modules (a provider entry's `module:`) are pip-installed
// into a temporary directory first (external.ts), so the release imports them.
// One stand-in: LLSD_TRUST_CA_BUNDLE (spec.trust.caBundle) names the bundle's
// file in the pod, and TLSConfig's validator refuses a path that does not
// exist, so here it names a file in a temp dir (validation only checks that
// the file exists; test/llama-stack/trust.test.ts loads real bundles).
import { expect } from "chai";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TRUST } from "../../src/container.js";
import { configOf, containerEnv, loadCases, runCase } from "../support/harness.js";
import { installExternalProviders } from "./external.js";
import { isKnownQuirk } from "./quirks.js";
import { runValidator, type ValidationItem } from "./validator.js";

/** The quirks key of a custom image's base config: no quirk is listed for it. */
const CUSTOM_BASE = "(custom image)";

interface Generated {
  name: string;
  release: string;
  distribution: string;
  item: ValidationItem;
}

/** The container's env, with the CA bundle's path in the pod replaced by `bundle`. */
function withBundleStandIn(env: Record<string, string>, bundle: string): Record<string, string> {
  return env[TRUST.env] === undefined ? env : { ...env, [TRUST.env]: bundle };
}

function generatedConfigs(bundle: string): Generated[] {
  const out: Generated[] = [];
  for (const c of loadCases()) {
    const outcome = runCase(c.file, "v2");
    if (outcome.kind !== "ok") continue;
    const configYaml = configOf(outcome.response);
    if (configYaml === undefined) continue;
    const resolved = (
      outcome.response.status as { resolvedDistribution?: { name?: string; release?: string } }
    ).resolvedDistribution;
    if (resolved?.release === undefined)
      throw new Error(`${c.name}: a generated config without a resolved release`);
    out.push({
      name: c.name,
      release: resolved.release,
      // A custom image's base (spec.distribution.baseConfig) has no listed quirks.
      distribution: resolved.name ?? CUSTOM_BASE,
      item: {
        name: c.name,
        configYaml,
        env: withBundleStandIn(containerEnv(outcome.response), bundle),
      },
    });
  }
  return out;
}

describe("every generated config in the golden corpus, through the real llama-stack package", function () {
  this.timeout(300_000);
  const standInDir = mkdtempSync(join(tmpdir(), "llsd-golden-trust-"));
  const bundle = join(standInDir, TRUST.file);
  writeFileSync(bundle, "stand-in for the mounted CA bundle\n");
  after(() => rmSync(standInDir, { recursive: true, force: true }));
  const corpus = generatedConfigs(bundle);
  const releases = [...new Set(corpus.map((g) => g.release))].sort();

  it("the corpus generates configs for every supported release", () => {
    const supported = (
      JSON.parse(
        readFileSync(join(import.meta.dirname, "..", "..", "configs", "releases.json"), "utf8"),
      ) as {
        releases: string[];
      }
    ).releases;
    expect(releases).to.deep.equal([...supported].sort());
    expect(corpus.length).to.be.greaterThan(40);
  });

  for (const release of releases) {
    it(`${release}: no findings beyond the base configs' listed quirks`, async () => {
      const ofRelease = corpus.filter((g) => g.release === release);
      const run = await runValidator(
        release,
        ofRelease.map((g) => g.item),
        { pythonPath: installExternalProviders(release, standInDir) },
      );
      console.log(
        `      [validator ${release}] ${ofRelease.length} generated configs in ${run.totalSeconds.toFixed(1)} s`,
      );
      const unexpected: string[] = [];
      for (const g of ofRelease) {
        const result = run.results.get(g.name);
        if (result === undefined) {
          unexpected.push(`${g.name}: no result`);
          continue;
        }
        for (const f of result.findings)
          if (!isKnownQuirk(release, g.distribution, f))
            unexpected.push(`${g.name}: ${f.code} ${f.path}: ${f.message}`);
      }
      expect(unexpected).to.deep.equal([]);
    });
  }
});
