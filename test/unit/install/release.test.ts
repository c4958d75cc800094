// The version names one release everywhere (package.json, the image the
// manifests and install.yaml name, CHANGELOG.md), and the plain parts of
// npm run release (scripts/release/artifacts.ts): the CHANGELOG section, the
// release's install.yaml, the SBOM's hashes from the lock file, SHA256SUMS, the
// npm tarball's sources (git's tracked files, with an ignored file present).
import { expect } from "chai";
import { execFileSync, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { parseAllDocuments } from "yaml";
import {
  changelogSection,
  hookImages,
  imageOf,
  packageVersionOf,
  packedSources,
  releaseDate,
  releaseGateProblems,
  releaseInstallYaml,
  sha256sums,
  versionNameProblems,
  withLockHashes,
} from "../../../scripts/release/artifacts.js";

const root = join(import.meta.dirname, "..", "..", "..");
const read = (file: string) => readFileSync(join(root, file), "utf8");

describe("release: one version everywhere", () => {
  const version = packageVersionOf(root);

  it("the manifests, install.yaml and the Helm chart name package.json's version, and CHANGELOG.md has its section", () => {
    expect(versionNameProblems(root, version)).to.deep.equal([]);
    expect(hookImages(read("manifests/hook/deployment.yaml"))).to.deep.equal([imageOf(version)]);
  });

  it("names each file out of step, and the fix", () => {
    const other = "9.9.9";
    expect(versionNameProblems(root, other)).to.deep.equal([
      `manifests/hook/deployment.yaml names ${imageOf(version)}, not ${imageOf(other)}: set the tag to package.json's version`,
      `manifests/install.yaml names ${imageOf(version)}, not ${imageOf(other)}: set the tag to package.json's version (npm run install-yaml)`,
      `charts/llsd-hook/Chart.yaml's version is ${version}, not ${other}: run npm run chart`,
      `charts/llsd-hook/Chart.yaml's appVersion is ${version}, not ${other}: run npm run chart`,
      `CHANGELOG.md has no "## ${other}" section: add one`,
    ]);
  });
});

describe("release: the CHANGELOG section", () => {
  const changelog = [
    "# Changelog",
    "",
    "## 0.2.0 — not yet released",
    "",
    "- b",
    "",
    "## 0.1.0 — 2026-12-01",
    "",
    "- a",
    "",
  ].join("\n");

  it("is the version's heading up to the next one", () => {
    expect(changelogSection(changelog, "0.2.0")).to.equal("## 0.2.0 — not yet released\n\n- b\n");
    expect(changelogSection(changelog, "0.1.0")).to.equal("## 0.1.0 — 2026-12-01\n\n- a\n");
  });

  it("a version that is only a prefix of a heading's is not found", () => {
    expect(() => changelogSection(changelog, "0.1")).to.throw(
      'CHANGELOG.md has no "## 0.1" section',
    );
  });

  it("a release date is read from the heading; 'not yet released' has none", () => {
    expect(releaseDate(changelogSection(changelog, "0.1.0"))).to.equal("2026-12-01");
    expect(releaseDate(changelogSection(changelog, "0.2.0"))).to.equal(undefined);
  });
});

describe("release: the gate of a release that is not a dry run", () => {
  const dated = "## 0.1.0 — 2026-12-01\n";
  it("passes a dated section, a clean tree and HEAD tagged v<version>", () => {
    expect(releaseGateProblems("0.1.0", dated, { changes: "", tags: ["v0.1.0"] })).to.deep.equal(
      [],
    );
  });
  it("names each thing missing, with its fix", () => {
    expect(
      releaseGateProblems("0.1.0", "## 0.1.0 — not yet released\n", {
        changes: " M README.md",
        tags: ["v0.0.9"],
      }),
    ).to.deep.equal([
      'CHANGELOG.md\'s "## 0.1.0 — not yet released" has no release date: write "## 0.1.0 — YYYY-MM-DD" (or use --dry-run)',
      "the work tree has changes: commit them (or use --dry-run)",
      "HEAD is not tagged v0.1.0: git tag -a v0.1.0 (or use --dry-run)",
    ]);
  });
});

describe("release: install.yaml", () => {
  const version = packageVersionOf(root);
  const committed = read("manifests/install.yaml");

  it("is manifests/install.yaml under a header naming the version and image", () => {
    const text = releaseInstallYaml(committed, version, imageOf(version));
    expect(text.split("\n")[0]).to.equal(
      `# llsd-hook ${version}: the CRD, the hook (image ${imageOf(version)}) and the CompositeController;`,
    );
    const objects = (t: string) => parseAllDocuments(t).map((d) => d.toJS() as unknown);
    expect(objects(text)).to.deep.equal(objects(committed));
  });

  it("refuses an install.yaml that names another image", () => {
    expect(() => releaseInstallYaml(committed, "9.9.9", imageOf("9.9.9"))).to.throw(
      `manifests/install.yaml names ${imageOf(version)}, not ${imageOf("9.9.9")}`,
    );
  });
});

describe("release: SBOM hashes from the lock file", () => {
  const integrity = (data: string) =>
    `sha512-${createHash("sha512").update(data).digest("base64")}`;
  const lock = {
    packages: {
      "node_modules/a": { version: "1.0.0", integrity: integrity("a") },
      "node_modules/a/node_modules/b": { version: "2.0.0", integrity: integrity("b") },
    },
  };
  const path = (p: string) => [{ name: "cdx:npm:package:path", value: p }];

  it("gives every component, nested ones too, the SHA-512 of its tarball", () => {
    const bom = withLockHashes(
      {
        components: [
          {
            name: "a",
            version: "1.0.0",
            properties: path("node_modules/a"),
            components: [
              { name: "b", version: "2.0.0", properties: path("node_modules/a/node_modules/b") },
            ],
          },
        ],
      },
      lock,
    );
    const [a] = bom.components ?? [];
    expect(a?.hashes).to.deep.equal([
      { alg: "SHA-512", content: createHash("sha512").update("a").digest("hex") },
    ]);
    expect(a?.components?.[0]?.hashes?.[0]?.content).to.equal(
      createHash("sha512").update("b").digest("hex"),
    );
  });

  it("refuses a component the lock file does not have at that version", () => {
    expect(() =>
      withLockHashes(
        { components: [{ name: "a", version: "1.0.1", properties: path("node_modules/a") }] },
        lock,
      ),
    ).to.throw("SBOM component a@1.0.1 (node_modules/a) is not in package-lock.json");
  });
});

describe("release: SHA256SUMS", () => {
  it("lists each file's sha256 by name, sorted, as sha256sum writes it", () => {
    const dir = mkdtempSync(join(tmpdir(), "llsd-sums-"));
    try {
      writeFileSync(join(dir, "b.txt"), "b\n");
      writeFileSync(join(dir, "a.txt"), "");
      expect(sha256sums(dir, ["b.txt", "a.txt"])).to.equal(
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  a.txt\n" +
          "0263829989b6fd954f72baaf2fc64bc2e2f01d692d4de72986ea808f6e99813f  b.txt\n",
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("release: the npm tarball's sources are what git tracks", () => {
  it("packs the tracked files of package.json's files entries, never an ignored or untracked one", () => {
    const dir = mkdtempSync(join(tmpdir(), "llsd-pack-"));
    const git = (...args: string[]) =>
      execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd: dir });
    const put = (file: string, text = "x\n") => {
      mkdirSync(dirname(join(dir, file)), { recursive: true });
      writeFileSync(join(dir, file), text);
    };
    try {
      git("init", "-q");
      put("package.json", JSON.stringify({ files: ["bin", "dist", "!dist/**/*.map", "configs"] }));
      put(".gitignore", "*.log\n.scratch/\ndist/\n");
      for (const f of [
        "README.md",
        "LICENSE",
        "bin/tool",
        "configs/1.5.0/registry.json",
        "src/a.ts",
      ])
        put(f);
      git("add", "-A");
      git("commit", "-qm", "tracked");
      // Present on disk, never packed: ignored, and not tracked.
      for (const f of ["bin/debug.log", "configs/.scratch/notes.json", "configs/0.0.1.log"]) put(f);
      put("configs/untracked.json");
      put("dist/main.js");
      expect(existsSync(join(dir, "configs/.scratch/notes.json"))).to.equal(true);
      expect(packedSources(dir)).to.deep.equal([
        "LICENSE",
        "README.md",
        "bin/tool",
        "configs/1.5.0/registry.json",
        "package.json",
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("this repository's: bin/llsd-hook and every release's configs, and nothing git ignores", () => {
    const packed = packedSources(root);
    expect(packed).to.include.members(["bin/llsd-hook", "package.json", "README.md", "LICENSE"]);
    expect(packed.filter((f) => f.startsWith("configs/") && f.endsWith("/registry.json"))).to.not.be
      .empty;
    // check-ignore answers 1 when no path given is ignored.
    const ignored = spawnSync("git", ["check-ignore", "--no-index", "--stdin"], {
      cwd: root,
      input: packed.join("\n"),
      encoding: "utf8",
    });
    expect([ignored.status, ignored.stdout]).to.deep.equal([1, ""]);
  });
});
