// npm run release: writes the artifacts of package.json's version into one
// folder (release/<version>/, or --out DIR, which must be new or empty):
//   install.yaml                 manifests/install.yaml, naming the image <repository>:<version>
//   llsd-hook-<version>.tgz      npm pack of bin/, dist/ (tsc, no source maps, no render
//                                snapshot: a blob runs only on the node binary that built it),
//                                configs/, LICENSE, README.md, package.json: of bin/ and
//                                configs/ only what git tracks, never an ignored file
//   llsd-hook-chart-<version>.tgz the Helm chart charts/llsd-hook/ (what git tracks), packaged by helm (test/helm/build.sh's)
//                                with SOURCE_DATE_EPOCH at HEAD's commit time, so the same bytes each time
//   llsd-hook-<version>.cdx.json CycloneDX 1.6 SBOM of the production dependencies, by
//                                @cyclonedx/cyclonedx-npm (scripts/sbom/, installed apart),
//                                reproducible, with each package's SHA-512 from the lock file
//   release-notes.md             the version's CHANGELOG.md section
//   image.txt                    the image reference, and the archive or how to build it
//   llsd-hook-<version>.oci.tar  the image, when scripts/build-image.sh is there (not with --no-image):
//                                on the stand-in base in a dry run, on the base pulled from its
//                                registry in a release (build-image.sh --pull-base)
//   llsd-hook-<version>.os.cdx.json  with the image: CycloneDX 1.6 SBOM of its OS packages and base
//                                tools, read from the image (scripts/release/os-packages.ts),
//                                labelled as the image is, validated by @cyclonedx/cyclonedx-library
//   SHA256SUMS                   of every file above (sha256sum -c SHA256SUMS)
// It publishes nothing: docs/operations/releasing.md pushes and uploads them.
// Without --dry-run it first requires what a release is made from: the
// CHANGELOG section dated, a clean work tree, HEAD tagged v<version>. Either
// way the version must name the image in the manifests and have its CHANGELOG
// section. Needs `npm ci` first; runs npm from PATH (scripts/use-node.sh).
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { homedir, tmpdir } from "node:os";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import {
  changelogSection,
  imageOf,
  packageVersionOf,
  packedSources,
  releaseGateProblems,
  releaseInstallYaml,
  sha256sums,
  trackedFiles,
  versionNameProblems,
  withLockHashes,
} from "./release/artifacts.js";
import { imageFiles } from "./release/image-files.js";
import { osBom, osBomInput, osSbomPath } from "./release/os-packages.js";
import { CHART_DIR } from "./chart/generate.js";
import { built } from "../test/support/tools.js";

const root = join(import.meta.dirname, "..");
const cacheDir = process.env["LLSD_CACHE_DIR"] ?? join(homedir(), ".cache", "llsd-hook");
const log = (line: string) => process.stderr.write(`[release] ${line}\n`);

function fail(lines: string[]): never {
  for (const l of lines) process.stderr.write(`npm run release: ${l}\n`);
  process.exit(2);
}

function git(args: string[]): string {
  return execFileSync("git", args, { cwd: root, encoding: "utf8" }).trim();
}

/** The git state the release gate reads. */
function gitState(): { changes: string; tags: string[] } {
  return {
    changes: git(["status", "--porcelain"]),
    tags: git(["tag", "--points-at", "HEAD"])
      .split("\n")
      .filter((t) => t !== ""),
  };
}

function prepareOut(dir: string | undefined, version: string): string {
  const out = resolve(dir ?? join(root, "release", version));
  if (dir === undefined) rmSync(out, { recursive: true, force: true });
  else if (existsSync(out) && readdirSync(out).length > 0)
    fail([`--out ${out} is not empty: give a new or empty folder`]);
  mkdirSync(out, { recursive: true });
  return out;
}

/** npm pack of the package's tracked files with dist/ compiled fresh, into `out`; the tarball's name. */
function npmPackage(out: string): string {
  const stage = mkdtempSync(join(tmpdir(), "llsd-release-"));
  try {
    for (const f of packedSources(root)) {
      mkdirSync(dirname(join(stage, f)), { recursive: true });
      copyFileSync(join(root, f), join(stage, f));
    }
    const tsc = join(root, "node_modules", "typescript", "bin", "tsc");
    execFileSync(
      process.execPath,
      [tsc, "-p", "tsconfig.build.json", "--outDir", join(stage, "dist")],
      {
        cwd: root,
        stdio: ["ignore", 2, 2],
      },
    );
    const packed = execFileSync(
      "npm",
      ["pack", "--ignore-scripts", "--json", "--pack-destination", out],
      { cwd: stage, encoding: "utf8", stdio: ["ignore", "pipe", 2] },
    );
    const [{ filename }] = JSON.parse(packed) as [{ filename: string }];
    return filename;
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

/** The Helm chart's tracked files, packaged by the helm the suite builds (cached), reproducibly; its file name. */
function chart(out: string, version: string): string {
  const helm = built("test/helm/build.sh");
  const stage = mkdtempSync(join(tmpdir(), "llsd-chart-"));
  try {
    for (const f of trackedFiles(root, [CHART_DIR])) {
      mkdirSync(dirname(join(stage, f)), { recursive: true });
      copyFileSync(join(root, f), join(stage, f));
    }
    execFileSync(helm, ["package", join(stage, CHART_DIR), "--destination", stage], {
      env: {
        PATH: process.env["PATH"] ?? "/usr/bin:/bin",
        HELM_CACHE_HOME: join(stage, ".cache"),
        HELM_CONFIG_HOME: join(stage, ".config"),
        HELM_DATA_HOME: join(stage, ".data"),
        SOURCE_DATE_EPOCH: git(["log", "-1", "--format=%ct"]),
      },
      stdio: ["ignore", 2, 2],
    });
    // npm pack's tarball is llsd-hook-<version>.tgz already.
    const name = `llsd-hook-chart-${version}.tgz`;
    copyFileSync(join(stage, `llsd-hook-${version}.tgz`), join(out, name));
    return name;
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

/** @cyclonedx/cyclonedx-npm as scripts/sbom/ pins it, installed once per lock and Node.js; its folder. */
function sbomTool(): string {
  const src = join(root, "scripts", "sbom");
  const files = ["package.json", "package-lock.json"];
  const hash = createHash("sha256");
  for (const f of files) hash.update(readFileSync(join(src, f)));
  const dir = join(cacheDir, "sbom", `${hash.update(process.version).digest("hex").slice(0, 12)}`);
  if (existsSync(join(dir, ".complete"))) return dir;
  mkdirSync(join(cacheDir, "sbom"), { recursive: true });
  const work = mkdtempSync(join(cacheDir, "sbom", ".install-"));
  log(`installing the SBOM generator (scripts/sbom/) into ${dir}`);
  for (const f of files) copyFileSync(join(src, f), join(work, f));
  // Without optional dependencies (libxmljs2, a native build for XML validation) or install scripts.
  execFileSync("npm", ["ci", "--omit=optional", "--ignore-scripts", "--no-audit", "--no-fund"], {
    cwd: work,
    stdio: ["ignore", 2, 2],
  });
  writeFileSync(join(work, ".complete"), "");
  rmSync(dir, { recursive: true, force: true });
  renameSync(work, dir);
  return dir;
}

function sbom(out: string, version: string): string {
  const json = execFileSync(
    join(sbomTool(), "node_modules", ".bin", "cyclonedx-npm"),
    [
      ...["--omit", "dev", "--spec-version", "1.6", "--output-format", "JSON"],
      ...["--output-reproducible", "--validate", "--mc-type", "application"],
      ...["--output-file", "-", "package.json"],
    ],
    { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", 2], maxBuffer: 64 * 1024 * 1024 },
  );
  const lock = JSON.parse(readFileSync(join(root, "package-lock.json"), "utf8")) as Parameters<
    typeof withLockHashes
  >[1];
  const name = `llsd-hook-${version}.cdx.json`;
  writeFileSync(
    join(out, name),
    JSON.stringify(withLockHashes(JSON.parse(json), lock), null, 2) + "\n",
  );
  return name;
}

/** What the OS SBOM uses of @cyclonedx/cyclonedx-library (installed with the generator, not a dependency). */
interface CycloneDxLibrary {
  Validation: {
    JsonStrictValidator: new (version: string) => { validate(json: string): Promise<unknown> };
  };
  Spec: { Version: { v1dot6: string } };
}

/**
 * The SBOM of the image's OS packages and base tools, read from the archive, validated against
 * CycloneDX 1.6 by the library the npm SBOM's generator is built on; its file name.
 */
async function osSbom(out: string, version: string, archive: string): Promise<string> {
  const bom = osBom(osBomInput(imageOf(version), imageFiles(archive, osSbomPath)));
  const text = JSON.stringify(bom, null, 2) + "\n";
  const library = createRequire(join(sbomTool(), "package.json"))(
    "@cyclonedx/cyclonedx-library",
  ) as CycloneDxLibrary;
  const errors = await new library.Validation.JsonStrictValidator(
    library.Spec.Version.v1dot6,
  ).validate(text);
  if (errors !== null)
    fail([`the OS SBOM is not valid CycloneDX 1.6: ${JSON.stringify(errors).slice(0, 2000)}`]);
  const name = `llsd-hook-${version}.os.cdx.json`;
  writeFileSync(join(out, name), text);
  return name;
}

/** The label scripts/image/node-base.sh puts on its stand-in base, inherited by every image on it. */
const STAND_IN_LABEL = "io.llsd-hook.stand-in-base";

/** A file of an OCI archive (tar), read with the system's tar. */
function archiveFile(archive: string, path: string): string {
  return execFileSync("tar", ["-xOf", archive, path], { encoding: "utf8", maxBuffer: 64 << 20 });
}

/** The image config's labels of a one-image OCI archive. */
function imageLabels(archive: string): Record<string, string> {
  const blob = (digest: string) =>
    JSON.parse(archiveFile(archive, `blobs/${digest.replace(":", "/")}`)) as unknown;
  const index = JSON.parse(archiveFile(archive, "index.json")) as {
    manifests: { digest: string }[];
  };
  const manifest = blob(index.manifests[0]?.digest ?? "") as { config: { digest: string } };
  const config = blob(manifest.config.digest) as { config?: { Labels?: Record<string, string> } };
  return config.config?.Labels ?? {};
}

/** The image: built by scripts/build-image.sh when it is there, else how to build it; image.txt says which. */
async function image(
  out: string,
  version: string,
  skip: boolean,
  dryRun: boolean,
): Promise<string[]> {
  const ref = imageOf(version);
  const base = /^ARG NODE_IMAGE=(\S+)$/m.exec(readFileSync(join(root, "Dockerfile"), "utf8"))?.[1];
  const lines = [`image: ${ref}`, `from: the Dockerfile, on ${base ?? "its base"}`];
  const build = `docker build -t ${ref} . && docker push ${ref}`;
  const script = join(root, "scripts", "build-image.sh");
  const written = ["image.txt"];
  if (skip)
    lines.push("not built (--no-image); build it with scripts/build-image.sh, or:", `  ${build}`);
  else if (!existsSync(script)) {
    log(`the image is not built: scripts/build-image.sh is missing (build it with: ${build})`);
    lines.push(
      "not built: scripts/build-image.sh is missing; build and push it with:",
      `  ${build}`,
    );
  } else {
    // A release pulls the Dockerfile's base from its registry; a dry run builds on the stand-in.
    // Under the lock npm run peers takes around the same build (scripts/cache-lock.sh).
    const lock = [join(cacheDir, "locks", "hook-image"), script];
    const printed = execFileSync(
      join(root, "scripts", "cache-lock.sh"),
      [...lock, ...(dryRun ? [] : ["--pull-base"])],
      {
        cwd: root,
        encoding: "utf8",
        stdio: ["ignore", "pipe", 2],
      },
    );
    const archive = printed.trim().split("\n").pop() ?? "";
    if (!existsSync(archive))
      fail([`scripts/build-image.sh printed ${JSON.stringify(archive)}, not an archive`]);
    // An image on the suite's stand-in base is for testing: never part of a release.
    const standIn = imageLabels(archive)[STAND_IN_LABEL];
    if (standIn !== undefined && !dryRun)
      fail([
        `the image was built on a stand-in base (label ${STAND_IN_LABEL}: ${standIn}); build it on the official base (docker build, or build-image.sh where the base can be pulled) before a release`,
      ]);
    if (standIn !== undefined)
      lines.push(`built on a stand-in base (${standIn}): for testing only, not to be published`);
    const name = `llsd-hook-${version}.oci.tar`;
    copyFileSync(archive, join(out, name));
    const osName = await osSbom(out, version, archive);
    written.push(name, osName);
    lines.push(
      `archive: ${name} (OCI archive by scripts/build-image.sh; its index names the image)`,
      `push it with a tool that reads OCI archives, e.g. skopeo copy oci-archive:${name} docker://${ref}`,
      `os packages: ${osName} (CycloneDX, read from the image's dpkg database and base tools${standIn === undefined ? "" : "; the stand-in's, labelled so"})`,
    );
  }
  writeFileSync(join(out, "image.txt"), lines.join("\n") + "\n");
  return written;
}

const { values } = parseArgs({
  options: {
    "dry-run": { type: "boolean", default: false },
    "no-image": { type: "boolean", default: false },
    out: { type: "string" },
  },
});
const version = packageVersionOf(root);
const problems = versionNameProblems(root, version);
if (problems.length > 0) fail(problems);
const section = changelogSection(readFileSync(join(root, "CHANGELOG.md"), "utf8"), version);
if (!values["dry-run"]) {
  const gate = releaseGateProblems(version, section, gitState());
  if (gate.length > 0) fail(gate);
}
const out = prepareOut(values.out, version);
log(`llsd-hook ${version}${values["dry-run"] ? " (dry run)" : ""} into ${out}`);
writeFileSync(join(out, "release-notes.md"), section);
const installYaml = readFileSync(join(root, "manifests", "install.yaml"), "utf8");
writeFileSync(
  join(out, "install.yaml"),
  releaseInstallYaml(installYaml, version, imageOf(version)),
);
const files = [
  "release-notes.md",
  "install.yaml",
  npmPackage(out),
  chart(out, version),
  sbom(out, version),
];
files.push(...(await image(out, version, values["no-image"], values["dry-run"])));
writeFileSync(join(out, "SHA256SUMS"), sha256sums(out, files));
for (const f of [...files, "SHA256SUMS"].sort()) console.log(join(out, f));
