// Loading the catalog: everything at once (the server) or one release and
// distribution at a time (the CLI), from configs/ or from the JSON catalog the
// CLI's snapshot reads (writeJsonCatalog), with the same result.
import { expect } from "chai";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { YAML_BOUNDS } from "../../../src/config/bounded-yaml.js";
import {
  DEFAULT_CONFIGS_DIR,
  imageOverridesFromEnv,
  loadCatalog,
  writeJsonCatalog,
} from "../../../src/edge/load-catalog.js";

describe("loadCatalog", () => {
  let dir = "";
  before(() => {
    dir = mkdtempSync(join(tmpdir(), "llsd-configs-"));
    cpSync(DEFAULT_CONFIGS_DIR, dir, { recursive: true });
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("lazy gives the catalog eager gives, release by release", () => {
    const eager = loadCatalog();
    const lazy = loadCatalog({ lazy: true });
    expect(lazy.releases).to.deep.equal(eager.releases);
    expect(lazy.images).to.deep.equal(eager.images);
    expect(Object.keys(lazy.byRelease)).to.deep.equal(Object.keys(eager.byRelease));
    for (const release of eager.releases) {
      const got = lazy.byRelease[release];
      expect(Object.keys(got?.baseConfigs ?? {})).to.deep.equal(
        Object.keys(eager.byRelease[release]?.baseConfigs ?? {}),
      );
      expect(got).to.deep.equal(eager.byRelease[release]);
    }
  });

  it("lazy reads a release and a distribution only when they are used", () => {
    const broken = mkdtempSync(join(tmpdir(), "llsd-configs-"));
    try {
      cpSync(dir, broken, { recursive: true });
      writeFileSync(join(broken, "0.6.1", "registry.json"), "{ not json");
      writeFileSync(join(broken, "1.5.0", "distributions", "nvidia", "config.yaml"), "- a list");
      const lazy = loadCatalog({ configsDir: broken, lazy: true });
      const release = lazy.byRelease["1.5.0"];
      expect(release?.baseConfigs["starter"]).to.have.property("providers");
      expect(Object.keys(release?.baseConfigs ?? {})).to.include("nvidia");
      expect(() => release?.baseConfigs["nvidia"]).to.throw(
        `${join(broken, "1.5.0", "distributions", "nvidia", "config.yaml")} is not a mapping: reinstall llsd-hook, or regenerate configs/ with "npm run configs:update"`,
      );
      expect(() => lazy.byRelease["0.6.1"]).to.throw(
        `${join(broken, "0.6.1", "registry.json")} is not valid JSON`,
      );
      // The server reads everything at startup, so it stops on either.
      expect(() => loadCatalog({ configsDir: broken })).to.throw(
        /nvidia.config\.yaml is not a mapping/,
      );
    } finally {
      rmSync(broken, { recursive: true, force: true });
    }
  });

  it("a loaded value stays: the second read returns the same object", () => {
    const lazy = loadCatalog({ configsDir: dir, lazy: true });
    const first = lazy.byRelease["0.7.3"];
    expect(lazy.byRelease["0.7.3"]).to.equal(first);
    expect(first?.baseConfigs["starter"]).to.equal(first?.baseConfigs["starter"]);
  });

  it("refuses an image pinned for a distribution the release does not ship, lazy or not", () => {
    const missing = mkdtempSync(join(tmpdir(), "llsd-configs-"));
    try {
      cpSync(dir, missing, { recursive: true });
      rmSync(join(missing, "1.5.0", "distributions", "oci"), { recursive: true });
      const error =
        "configs/distributions.json: oci 1.5.0 has no configs/1.5.0/distributions/oci/config.yaml";
      expect(() => loadCatalog({ configsDir: missing })).to.throw(error);
      expect(() => loadCatalog({ configsDir: missing, lazy: true })).to.throw(error);
    } finally {
      rmSync(missing, { recursive: true, force: true });
    }
  });

  it("names a missing configs/ and the fix", () => {
    expect(() => loadCatalog({ configsDir: join(dir, "nope") })).to.throw(
      `${join(dir, "nope", "releases.json")} is missing or unreadable: reinstall llsd-hook`,
    );
  });

  it("the JSON catalog gives the catalog configs/ gives, eager and lazy", () => {
    const json = mkdtempSync(join(tmpdir(), "llsd-json-catalog-"));
    try {
      writeJsonCatalog(dir, json);
      const expected = loadCatalog({ configsDir: dir });
      for (const lazy of [false, true]) {
        const got = loadCatalog({ configsDir: json, json: true, lazy });
        expect(got.releases).to.deep.equal(expected.releases);
        expect(got.images).to.deep.equal(expected.images);
        for (const release of expected.releases) {
          const base = expected.byRelease[release]?.baseConfigs ?? {};
          expect(Object.keys(got.byRelease[release]?.baseConfigs ?? {})).to.deep.equal(
            Object.keys(base),
          );
          // Key order too: it is the order of the generated config.yaml.
          for (const [name, doc] of Object.entries(base))
            expect(JSON.stringify(got.byRelease[release]?.baseConfigs[name])).to.equal(
              JSON.stringify(doc),
            );
          expect(got.byRelease[release]).to.deep.equal(expected.byRelease[release]);
        }
      }
      writeFileSync(join(json, "1.5.0", "distributions", "nvidia", "config.json"), "[1]");
      expect(
        () =>
          loadCatalog({ configsDir: json, json: true, lazy: true }).byRelease["1.5.0"]?.baseConfigs[
            "nvidia"
          ],
      ).to.throw(
        `${join(json, "1.5.0", "distributions", "nvidia", "config.json")} is not a mapping`,
      );
    } finally {
      rmSync(json, { recursive: true, force: true });
    }
  });

  it("refuses to write a base config JSON cannot carry", () => {
    const odd = mkdtempSync(join(tmpdir(), "llsd-configs-"));
    const out = mkdtempSync(join(tmpdir(), "llsd-json-catalog-"));
    try {
      cpSync(dir, odd, { recursive: true });
      const file = join(odd, "1.5.0", "distributions", "nvidia", "config.yaml");
      writeFileSync(file, `${readFileSync(file, "utf8")}\nodd: .inf\n`);
      expect(() => writeJsonCatalog(odd, out)).to.throw(
        `${join(odd, "1.5.0", "distributions", "nvidia")}/config.yaml: holds a value JSON cannot carry`,
      );
    } finally {
      rmSync(odd, { recursive: true, force: true });
      rmSync(out, { recursive: true, force: true });
    }
  });
});

describe("IMAGE_OVERRIDES_FILE", () => {
  let dir = "";
  before(() => {
    dir = mkdtempSync(join(tmpdir(), "llsd-overrides-"));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));
  const fromFile = (file: string) => imageOverridesFromEnv({ IMAGE_OVERRIDES_FILE: file });

  it("reads a mapping of distribution names to images", () => {
    const file = join(dir, "ok.yaml");
    writeFileSync(file, "starter: quay.io/acme/starter:1\n");
    expect(fromFile(file)).to.deep.equal({ starter: "quay.io/acme/starter:1" });
  });

  it("refuses a file past the YAML bound, naming the file and the bound, without reading it all", () => {
    const file = join(dir, "big.yaml");
    writeFileSync(file, `# ${"x".repeat(YAML_BOUNDS.maxBytes)}\nstarter: quay.io/acme/starter:1\n`);
    expect(() => fromFile(file)).to.throw(
      `IMAGE_OVERRIDES_FILE=${file}: the file is more than the ${YAML_BOUNDS.maxBytes} bytes llsd-hook reads`,
    );
  });

  it("refuses what is not a regular file (a device that never ends) before reading it", () => {
    expect(() => fromFile("/dev/zero")).to.throw(
      "IMAGE_OVERRIDES_FILE=/dev/zero: not a regular file; point it at a YAML file (a ConfigMap key)",
    );
  });

  it("refuses YAML past the node bound, naming the file", () => {
    const file = join(dir, "nodes.yaml");
    writeFileSync(file, "- a\n".repeat(30_000));
    expect(() => fromFile(file)).to.throw(`${file}: `);
  });
});
