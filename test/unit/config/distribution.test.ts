// Which release a resource runs: the spec's, else the one recorded for it,
// else the newest shipping its distribution; and what is said about images.
import { expect } from "chai";
import type { KubeObject } from "../../../src/api/hook.js";
import { resolveDistribution } from "../../../src/config/distribution.js";
import { loadCatalog } from "../../../src/edge/load-catalog.js";
import { syncContext } from "../../support/harness.js";
import { applyAll, request, syncOk } from "../../support/request.js";

const catalog = syncContext().catalog;

describe("resolveDistribution", () => {
  const rows: {
    name: string;
    dist: { name: string; release?: string };
    recorded?: { release: string; from: string };
    release?: string;
    problem?: string;
    warnings?: string[];
  }[] = [
    {
      name: "a new resource: the newest release",
      dist: { name: "starter" },
      release: "1.5.0",
      warnings: [],
    },
    {
      name: "a recorded release stays, with a note that a newer one exists",
      dist: { name: "starter" },
      recorded: { release: "0.7.3", from: "status.resolvedDistribution.release" },
      release: "0.7.3",
      warnings: ["RetiredImage", "NewerReleaseAvailable"],
    },
    {
      name: "the spec's release wins over the recorded one, without a note",
      dist: { name: "starter", release: "1.4.1" },
      recorded: { release: "0.7.3", from: "status.resolvedDistribution.release" },
      release: "1.4.1",
      warnings: [],
    },
    {
      name: "a recorded release no longer supported: an error, never a silent move",
      dist: { name: "starter" },
      recorded: { release: "0.5.0", from: "status.resolvedDistribution.release" },
      problem:
        "UnsupportedRelease spec.distribution.release: this resource runs Llama Stack 0.5.0 (status.resolvedDistribution.release), which this llsd-hook no longer supports for starter; the running server is kept as it is. Set spec.distribution.release to one of 1.5.0, 1.4.1, 0.7.3, 0.6.1 to move it",
    },
    {
      name: "a distribution OGX publishes no image for",
      dist: { name: "watsonx", release: "1.4.1" },
      problem:
        "NoImage spec.distribution.name: OGX 1.4.1 publishes no image for watsonx; build one and map it in the hook's IMAGE_OVERRIDES_FILE (watsonx:1.4.1: <image>), or use distribution.image with spec.overrideConfig",
    },
    {
      name: "a distribution retired before any supported release",
      dist: { name: "meta-reference-gpu" },
      problem:
        "UnknownDistribution spec.distribution.name: distribution meta-reference-gpu was retired upstream; the last release that shipped it was 0.4.5. Use distribution.image with your own GPU build and spec.overrideConfig",
    },
    {
      name: "a distribution retired after 0.6.1, without release: its last release",
      dist: { name: "dell" },
      release: "0.6.1",
      warnings: ["RetiredImage"],
    },
  ];
  for (const row of rows) {
    it(row.name, () => {
      const out = resolveDistribution(row.dist, catalog, row.recorded);
      if (row.problem !== undefined) {
        expect(out.ok).to.equal(false);
        if (!out.ok)
          expect(out.problems.map((p) => `${p.reason} ${p.path}: ${p.detail}`)).to.deep.equal([
            row.problem,
          ]);
        return;
      }
      expect(out.ok).to.equal(true);
      if (out.ok) expect(out.value.release).to.equal(row.release);
      expect(out.warnings.map((w) => w.reason)).to.deep.equal(row.warnings);
    });
  }

  // A custom image: with baseConfig, the release it names (which must be supported); without, none.
  const imageRows: {
    name: string;
    dist: { image: string; release?: string; baseConfig?: { configMapName: string; key: string } };
    release?: string;
    problem?: string;
  }[] = [
    { name: "an image with overrideConfig runs no release of ours", dist: { image: "i" } },
    {
      name: "an image with a base config runs the release it names",
      dist: {
        image: "i",
        release: "0.7.3",
        baseConfig: { configMapName: "b", key: "config.yaml" },
      },
      release: "0.7.3",
    },
    {
      name: "an image with a base config of a release llsd-hook does not support",
      dist: {
        image: "i",
        release: "0.5.0",
        baseConfig: { configMapName: "b", key: "config.yaml" },
      },
      problem:
        "UnsupportedRelease spec.distribution.release: Llama Stack 0.5.0 is not supported; name the release the image runs, one of 1.5.0, 1.4.1, 0.7.3, 0.6.1",
    },
  ];
  for (const row of imageRows) {
    it(row.name, () => {
      const out = resolveDistribution(row.dist, catalog);
      if (row.problem !== undefined) {
        expect(
          out.ok || out.problems.map((p) => `${p.reason} ${p.path}: ${p.detail}`),
        ).to.deep.equal([row.problem]);
        return;
      }
      expect(out.ok && out.value).to.deep.equal({
        name: undefined,
        release: row.release,
        image: "i",
      });
    });
  }

  it("an image override maps a distribution OGX publishes no image for", () => {
    const c = loadCatalog({
      imageOverrides: { "watsonx:1.4.1": "registry.example.com/watsonx:1.4.1" },
    });
    const out = resolveDistribution({ name: "watsonx", release: "1.4.1" }, c);
    expect(out.ok && out.value.image).to.equal("registry.example.com/watsonx:1.4.1");
  });
});

describe("the recorded release, read from what runs", () => {
  const spec = { distribution: { name: "starter", release: "0.7.3" } };
  const running = applyAll(syncOk(request(spec)));
  const unpinned = { distribution: { name: "starter" } };
  const deployment = running.find((c) => c.kind === "Deployment") as KubeObject;
  const releaseOf = (children: KubeObject[]) => {
    const res = syncOk(request(unpinned, { children, generation: 2 }));
    return (res.status as { resolvedDistribution?: { release?: string } }).resolvedDistribution
      ?.release;
  };
  const withDeployment = (d: KubeObject) => running.map((c) => (c.kind === "Deployment" ? d : c));

  it("without a status, from the Deployment's llamastack.io/release label", () => {
    expect(deployment.metadata.labels?.["llamastack.io/release"]).to.equal("0.7.3");
    expect(releaseOf(running)).to.equal("0.7.3");
  });

  it("without the label, from the running image", () => {
    const labels = { ...deployment.metadata.labels };
    delete labels["llamastack.io/release"];
    expect(
      releaseOf(withDeployment({ ...deployment, metadata: { ...deployment.metadata, labels } })),
    ).to.equal("0.7.3");
  });

  it("a label naming no supported release is ignored (it is user input); the image still counts", () => {
    const labels = { ...deployment.metadata.labels, "llamastack.io/release": "9.9.9" };
    expect(
      releaseOf(withDeployment({ ...deployment, metadata: { ...deployment.metadata, labels } })),
    ).to.equal("0.7.3");
  });

  it("a status release that is not shaped like a release is ignored (never repeated in a message)", () => {
    const res = syncOk(
      request(unpinned, {
        children: running,
        generation: 2,
        status: { resolvedDistribution: { name: "starter", release: "<b>x</b>", image: "i" } },
      }),
    );
    expect(
      (res.status as { resolvedDistribution?: { release?: string } }).resolvedDistribution?.release,
    ).to.equal("0.7.3");
    expect(JSON.stringify(res.status)).not.to.include("<b>x</b>");
  });

  it("with nothing recorded, a resource is new: the newest release", () => {
    expect(releaseOf([])).to.equal("1.5.0");
  });
});
