// npm run release -- --dry-run, run as written into a temporary folder: every
// artifact is there and is what it says. The npm tarball holds bin/, dist/,
// configs/, LICENSE, README.md and package.json and nothing else (no tests,
// sources, source maps or render snapshot; of bin/ and configs/ what git
// tracks), and installed from the tarball
// alone the CLI prints the version and renders an example. install.yaml names
// the image tagged with the version; the SBOM lists the production
// dependencies at their locked versions with their tarballs' SHA-512, and no
// dev dependency; SHA256SUMS covers every file. A second run (--no-image) gives
// the same bytes. Without --dry-run the release refuses this tree and writes
// nothing.
import { expect } from "chai";
import { execFileSync, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";
import {
  packedSources,
  releaseGateProblems,
  trackedFiles,
} from "../../scripts/release/artifacts.js";
import { readOciArchive, unpackLayers } from "./oci-image.js";
import { root } from "../support/tools.js";

const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
  version: string;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};
const lock = JSON.parse(readFileSync(join(root, "package-lock.json"), "utf8")) as {
  packages: Record<string, { version: string; integrity: string; dev?: boolean }>;
};
const version = pkg.version;
const image = `ghcr.io/llsd-hook/llsd-hook:${version}`;
const tgz = `llsd-hook-${version}.tgz`;
const chartTgz = `llsd-hook-chart-${version}.tgz`;
const sbomFile = `llsd-hook-${version}.cdx.json`;
const archive = `llsd-hook-${version}.oci.tar`;
const osSbomFile = `llsd-hook-${version}.os.cdx.json`;
const withImage = existsSync(join(root, "scripts", "build-image.sh"));

function release(args: string[]) {
  return spawnSync("npm", ["run", "--silent", "release", "--", ...args], {
    cwd: root,
    encoding: "utf8",
    maxBuffer: 16 * 1024 * 1024,
  });
}

interface Component {
  name: string;
  group?: string;
  version: string;
  purl: string;
  hashes?: { alg: string; content: string }[];
  properties?: { name: string; value: string }[];
  components?: Component[];
}

const flatten = (cs: Component[]): Component[] =>
  cs.flatMap((c) => [c, ...flatten(c.components ?? [])]);

describe("npm run release -- --dry-run", function () {
  this.timeout(900_000);
  let work: string;
  let out: string;
  let stdout = "";

  before(() => {
    work = mkdtempSync(join(tmpdir(), "llsd-release-"));
    out = join(work, "out");
    const run = release(["--dry-run", "--out", out]);
    expect(run.status, run.stderr).to.equal(0);
    stdout = run.stdout;
  });
  after(() => rmSync(work, { recursive: true, force: true }));

  it("writes every artifact, and lists them", () => {
    const want = [
      "SHA256SUMS",
      "image.txt",
      "install.yaml",
      sbomFile,
      tgz,
      chartTgz,
      "release-notes.md",
      ...(withImage ? [archive, osSbomFile] : []),
    ].sort();
    expect(readdirSync(out).sort()).to.deep.equal(want);
    expect(stdout.trim().split("\n")).to.deep.equal(want.map((f) => join(out, f)));
  });

  it("SHA256SUMS holds every other file's sha256", () => {
    const lines = readFileSync(join(out, "SHA256SUMS"), "utf8").trim().split("\n");
    const names = readdirSync(out).filter((f) => f !== "SHA256SUMS");
    expect(lines.map((l) => l.split("  ")[1]).sort()).to.deep.equal(names.sort());
    for (const line of lines) {
      const [sum, name] = line.split("  ");
      const got = createHash("sha256")
        .update(readFileSync(join(out, name ?? "")))
        .digest("hex");
      expect(got, name).to.equal(sum);
    }
  });

  it("the Helm chart's package holds the files git tracks of charts/llsd-hook/ as they are, at the version", () => {
    const dir = join(work, "chart");
    execFileSync("mkdir", ["-p", dir]);
    execFileSync("tar", ["-xzf", join(out, chartTgz), "-C", dir]);
    const files = (d: string): string[] =>
      readdirSync(d, { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() ? files(join(d, e.name)).map((f) => `${e.name}/${f}`) : [e.name],
      );
    const packed = files(join(dir, "llsd-hook")).sort();
    expect(packed).to.deep.equal(
      trackedFiles(root, ["charts/llsd-hook"]).map((f) => f.replace("charts/llsd-hook/", "")),
    );
    for (const f of packed.filter((p) => p !== "Chart.yaml"))
      expect(readFileSync(join(dir, "llsd-hook", f), "utf8"), f).to.equal(
        readFileSync(join(root, "charts", "llsd-hook", f), "utf8"),
      );
    expect(readFileSync(join(dir, "llsd-hook", "Chart.yaml"), "utf8")).to.match(
      new RegExp(`^version: ${version.replaceAll(".", "\\.")}$`, "m"),
    );
  });

  describe("the npm tarball", () => {
    let entries: string[];
    before(() => {
      entries = execFileSync("tar", ["-tzf", join(out, tgz)], { encoding: "utf8" })
        .trim()
        .split("\n");
    });

    it("holds bin/, dist/, configs/, the CompositeController, LICENSE, README.md and package.json, nothing else", () => {
      const top = new Set(entries.map((e) => e.replace(/^package\//, "").split("/")[0]));
      expect([...top].sort()).to.deep.equal([
        "LICENSE",
        "README.md",
        "bin",
        "configs",
        "dist",
        "metacontroller",
        "package.json",
      ]);
      // llsd-hook request reads it; the rest of metacontroller/ is the install's, not the CLI's.
      expect(entries.filter((e) => e.startsWith("package/metacontroller/"))).to.deep.equal([
        "package/metacontroller/compositecontroller.yaml",
      ]);
      expect(entries.every((e) => e.startsWith("package/"))).to.equal(true);
    });

    it("has no test, source, source map or render snapshot; has both entry points and every release", () => {
      expect(
        entries.filter((e) => /\.(ts|map|blob)$|\.test\.|render-(catalog|snapshot)/.test(e)),
      ).to.deep.equal([]);
      expect(entries).to.include.members([
        "package/bin/llsd-hook",
        "package/dist/server/start.js",
        "package/dist/cli/start.js",
        "package/configs/releases.json",
      ]);
      const releases = (
        JSON.parse(readFileSync(join(root, "configs", "releases.json"), "utf8")) as {
          releases: string[];
        }
      ).releases;
      for (const r of releases)
        expect(
          entries.some((e) => e.startsWith(`package/configs/${r}/`)),
          r,
        ).to.equal(true);
    });

    it("holds exactly the files git tracks under bin/, configs/ and metacontroller/, never an ignored one", () => {
      const tracked = packedSources(root).filter((f) => /^(bin|configs|metacontroller)\//.test(f));
      const packed = entries
        .map((e) => e.replace(/^package\//, ""))
        .filter((f) => /^(bin|configs|metacontroller)\//.test(f));
      expect(packed.sort()).to.deep.equal(tracked.sort());
    });

    it("installed alone, its CLI prints the version, renders examples/minimal.yaml and prints its request", () => {
      const app = join(work, "app");
      execFileSync("mkdir", ["-p", app]);
      writeFileSync(join(app, "package.json"), '{ "private": true }\n');
      execFileSync(
        "npm",
        [
          "install",
          "--prefer-offline",
          "--no-audit",
          "--no-fund",
          "--ignore-scripts",
          join(out, tgz),
        ],
        { cwd: app, stdio: ["ignore", "ignore", "pipe"] },
      );
      const bin = join(app, "node_modules", ".bin", "llsd-hook");
      expect(execFileSync(bin, ["--version"], { encoding: "utf8" })).to.equal(`${version}\n`);
      const render = spawnSync(bin, ["render", join(root, "examples", "minimal.yaml")], {
        encoding: "utf8",
      });
      expect(render.status, render.stderr).to.equal(0);
      expect(render.stdout).to.include("kind: Deployment").and.to.include("kind: ConfigMap");
      // request reads the package's own CompositeController.
      const request = spawnSync(bin, ["request", join(root, "examples", "minimal.yaml")], {
        encoding: "utf8",
      });
      expect(request.status, request.stderr).to.equal(0);
      expect(JSON.parse(request.stdout)).to.have.nested.property(
        "controller.metadata.name",
        "llsd-hook",
      );
      // Dev dependencies stay out of an install.
      expect(existsSync(join(app, "node_modules", "typescript"))).to.equal(false);
      expect(existsSync(join(app, "node_modules", "express"))).to.equal(true);
    });
  });

  it("install.yaml is manifests/install.yaml naming the image tagged with the version", () => {
    const objects = (text: string) =>
      parseAllDocuments(text).map((d) => d.toJS() as { kind: string; metadata: { name: string } });
    const released = objects(readFileSync(join(out, "install.yaml"), "utf8"));
    expect(released).to.deep.equal(
      objects(readFileSync(join(root, "manifests", "install.yaml"), "utf8")),
    );
    const deployment = released.find(
      (o) => o.kind === "Deployment" && o.metadata.name === "llsd-hook",
    ) as unknown as { spec: { template: { spec: { containers: { image: string }[] } } } };
    expect(deployment.spec.template.spec.containers.map((c) => c.image)).to.deep.equal([image]);
  });

  it("the SBOM is CycloneDX 1.6 of the production dependencies at their locked versions, with their SHA-512", () => {
    const bom = JSON.parse(readFileSync(join(out, sbomFile), "utf8")) as {
      bomFormat: string;
      specVersion: string;
      metadata: { component: { name: string; version: string }; timestamp?: string };
      serialNumber?: string;
      components: Component[];
    };
    expect([bom.bomFormat, bom.specVersion]).to.deep.equal(["CycloneDX", "1.6"]);
    expect(bom.metadata.component).to.include({ name: "llsd-hook", version });
    // Reproducible: no time or random serial number.
    expect([bom.metadata.timestamp, bom.serialNumber]).to.deep.equal([undefined, undefined]);
    const all = flatten(bom.components);
    const fullName = (c: Component) => (c.group === undefined ? c.name : `${c.group}/${c.name}`);
    for (const [dep] of Object.entries(pkg.dependencies)) {
      const locked = lock.packages[`node_modules/${dep}`];
      const found = all.find((c) => fullName(c) === dep);
      expect(found, dep).to.not.equal(undefined);
      expect(found?.version, dep).to.equal(locked?.version);
    }
    for (const dev of Object.keys(pkg.devDependencies))
      expect(
        all.some((c) => fullName(c) === dev),
        dev,
      ).to.equal(false);
    // Every component is a production package of the lock file, with its tarball's hash.
    for (const c of all) {
      const path = c.properties?.find((p) => p.name === "cdx:npm:package:path")?.value ?? "";
      const locked = lock.packages[path];
      expect(locked?.version, path).to.equal(c.version);
      expect(locked?.dev, path).to.equal(undefined);
      const sha512 = Buffer.from(locked?.integrity.replace(/^sha512-/, "") ?? "", "base64");
      expect(c.hashes, path).to.deep.equal([{ alg: "SHA-512", content: sha512.toString("hex") }]);
      expect(c.purl, path).to.match(/^pkg:npm\//);
    }
  });

  it("with the image, the OS SBOM lists every package of the image's dpkg database and the base's Node.js, labelled as the image is", function () {
    if (!withImage) this.skip();
    const bom = JSON.parse(readFileSync(join(out, osSbomFile), "utf8")) as {
      specVersion: string;
      metadata: { component: { type: string; name: string; version: string } };
      components: { type: string; name: string; version: string; purl?: string }[];
      serialNumber?: string;
    };
    expect(bom.specVersion).to.equal("1.6");
    expect(bom.serialNumber).to.equal(undefined);
    expect(bom.metadata.component).to.include({
      type: "container",
      name: image.slice(0, image.lastIndexOf(":")),
      version,
    });
    // The image's own database, read here with dpkg-query's format from the archive's layers.
    const work2 = mkdtempSync(join(tmpdir(), "llsd-os-sbom-"));
    try {
      const img = readOciArchive(join(out, archive), join(work2, "layout"));
      const rootfs = join(work2, "rootfs");
      unpackLayers(img, rootfs);
      const status = readFileSync(join(rootfs, "var", "lib", "dpkg", "status"), "utf8");
      const installed = status
        .split(/\n\n+/)
        .filter((s) => /^Status: install ok installed$/m.test(s))
        .map((s) => `${/^Package: (.*)$/m.exec(s)?.[1]} ${/^Version: (.*)$/m.exec(s)?.[1]}`)
        .sort();
      const listed = bom.components
        .filter((c) => c.purl?.startsWith("pkg:deb/") === true)
        .map((c) => `${c.name} ${c.version}`)
        .sort();
      expect(listed).to.deep.equal(installed);
      expect(installed.length).to.be.greaterThan(50);
      const nodeVersion = /node:(\d+\.\d+\.\d+)-/.exec(
        readFileSync(join(root, "Dockerfile"), "utf8"),
      )?.[1];
      expect(bom.components.find((c) => c.name === "node")?.version).to.equal(nodeVersion);
      expect(bom.components.map((c) => c.name)).to.include.members(["npm", "corepack", "yarn"]);
      expect(bom.components[0]).to.include({ type: "operating-system", name: "debian" });
      // Labelled as the image is: the suite's image is on the stand-in base, and says so.
      const label = img.config.config.Labels?.["io.llsd-hook.stand-in-base"];
      const properties = (bom.metadata as { properties?: { name: string; value: string }[] })
        .properties;
      if (label !== undefined)
        expect(properties).to.deep.include({ name: "io.llsd-hook.stand-in-base", value: label });
      expect(readFileSync(join(out, "image.txt"), "utf8")).to.include(`os packages: ${osSbomFile}`);
    } finally {
      rmSync(work2, { recursive: true, force: true });
    }
  });

  it("release-notes.md is the version's CHANGELOG section", () => {
    const notes = readFileSync(join(out, "release-notes.md"), "utf8");
    expect(notes.startsWith(`## ${version} `)).to.equal(true);
    expect(readFileSync(join(root, "CHANGELOG.md"), "utf8")).to.include(notes.trimEnd());
    expect(notes.slice(3)).to.not.match(/^## /m);
  });

  it("image.txt names the image and the archive, or what is missing to build it", () => {
    const text = readFileSync(join(out, "image.txt"), "utf8");
    expect(text).to.include(`image: ${image}\n`);
    // The suite's image is built on the stand-in base, which image.txt must say.
    if (withImage)
      expect(text)
        .to.include(`archive: ${archive}`)
        .and.match(/^built on a stand-in base \(.+\): for testing only, not to be published$/m);
    else
      expect(text)
        .to.include("not built: scripts/build-image.sh is missing")
        .and.include(`docker build -t ${image} .`);
  });

  it("gives the same bytes again (a second run, without the image)", () => {
    const again = join(work, "again");
    const run = release(["--dry-run", "--no-image", "--out", again]);
    expect(run.status, run.stderr).to.equal(0);
    for (const f of ["install.yaml", tgz, sbomFile, "release-notes.md"])
      expect(readFileSync(join(again, f)).equals(readFileSync(join(out, f))), f).to.equal(true);
    expect(readFileSync(join(again, "image.txt"), "utf8")).to.include("not built (--no-image)");
  });

  it("without --dry-run refuses a tree that is not a dated, clean, tagged release, and writes nothing", () => {
    const none = join(work, "none");
    const git = (args: string[]) => execFileSync("git", args, { cwd: root, encoding: "utf8" });
    const notes = readFileSync(join(out, "release-notes.md"), "utf8");
    const problems = releaseGateProblems(version, notes, {
      changes: git(["status", "--porcelain"]).trim(),
      tags: git(["tag", "--points-at", "HEAD"])
        .split("\n")
        .filter((t) => t !== ""),
    });
    const run = release(["--out", none]);
    if (problems.length === 0) {
      // This tree is a release: it is made.
      expect(run.status, run.stderr).to.equal(0);
      expect(readdirSync(none)).to.include(tgz);
    } else {
      expect(run.status).to.equal(2);
      expect(run.stderr).to.equal(problems.map((p) => `npm run release: ${p}\n`).join(""));
      expect(existsSync(none)).to.equal(false);
    }
  });
});
