// The LlamaStackDistribution examples of the README and docs/ that are meant
// to work (test/docs/examples.ts; test/unit/doc-examples.test.ts renders them
// all) are judged by the real server package of the release they resolve to:
// each generated config.yaml, with the environment the generated Deployment
// gives the container, has no finding beyond the quirks the distribution's
// own base config already has. As in golden.test.ts, LLSD_TRUST_CA_BUNDLE
// names a stand-in file, since the validator checks that the path exists.
import { expect } from "chai";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { requestOf } from "../../src/cli/render.js";
import { TRUST } from "../../src/container.js";
import { sync } from "../../src/sync.js";
import { docExamples } from "../docs/examples.js";
import { configOf, containerEnv, syncContext } from "../support/harness.js";
import { isKnownQuirk } from "./quirks.js";
import { runValidator } from "./validator.js";

const NOW = "2026-11-01T12:00:00Z";

interface Generated {
  where: string;
  release: string;
  distribution: string;
  configYaml: string;
  env: Record<string, string>;
}

function generated(bundle: string): Generated[] {
  return docExamples()
    .filter((e) => e.failsWith === undefined)
    .map((e) => {
      const outcome = sync(requestOf(e.text, e.where).request, NOW, syncContext());
      if (outcome.kind !== "ok") throw new Error(`${e.where}: ${outcome.message}`);
      const configYaml = configOf(outcome.response);
      const resolved = (
        outcome.response.status as { resolvedDistribution?: { name?: string; release?: string } }
      ).resolvedDistribution;
      if (configYaml === undefined || resolved?.release === undefined)
        throw new Error(`${e.where}: no generated config`);
      const env = containerEnv(outcome.response);
      if (env[TRUST.env] !== undefined) env[TRUST.env] = bundle;
      return {
        where: e.where,
        release: resolved.release,
        distribution: resolved.name ?? "(custom image)",
        configYaml,
        env,
      };
    });
}

describe("the README's and docs' working examples, through the real server package", function () {
  this.timeout(300_000);
  const standInDir = mkdtempSync(join(tmpdir(), "llsd-doc-examples-"));
  const bundle = join(standInDir, TRUST.file);
  writeFileSync(bundle, "stand-in for the mounted CA bundle\n");
  after(() => rmSync(standInDir, { recursive: true, force: true }));
  const examples = generated(bundle);

  for (const release of [...new Set(examples.map((g) => g.release))].sort())
    it(`${release}: no findings beyond the base configs' listed quirks`, async () => {
      const ofRelease = examples.filter((g) => g.release === release);
      const run = await runValidator(
        release,
        ofRelease.map((g) => ({ name: g.where, configYaml: g.configYaml, env: g.env })),
      );
      const unexpected = ofRelease.flatMap((g) => {
        const result = run.results.get(g.where);
        if (result === undefined) return [`${g.where}: no result`];
        return result.findings
          .filter((f) => !isKnownQuirk(release, g.distribution, f))
          .map((f) => `${g.where}: ${f.code} ${f.path}: ${f.message}`);
      });
      expect(unexpected).to.deep.equal([]);
    });
});
