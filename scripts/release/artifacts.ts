// The parts of npm run release (scripts/release.ts) that are plain functions of
// the repository's files: the names the version must be given everywhere, the
// version's CHANGELOG section, the release's install.yaml, the SBOM's hashes,
// the checksum file, and the files the npm tarball is made of (what git
// tracks). test/unit/install/release.test.ts holds them.
// The Helm chart's version and appVersion are the version too (npm run chart).
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse, parseAllDocuments } from "yaml";

/** The image the manifests name, without its tag (manifests/hook/deployment.yaml). */
const IMAGE_REPOSITORY = "ghcr.io/llsd-hook/llsd-hook";

/** The files that name the hook's image, and so the version, besides package.json. */
const IMAGE_FILES = ["manifests/hook/deployment.yaml", "manifests/install.yaml"];

export const imageOf = (version: string) => `${IMAGE_REPOSITORY}:${version}`;

/** What npm packs whatever `files` says (README, LICENSE and package.json itself). */
const ALWAYS_PACKED = ["package.json", "README.md", "LICENSE"];

/**
 * The files the npm tarball is made of besides dist/ (compiled fresh): those
 * git tracks under package.json's `files` entries (npm pack applies the
 * negations), and the ones npm always packs. A file git ignores or does not
 * track is never packed, whatever lies in bin/ or configs/.
 */
export function packedSources(root: string): string[] {
  const { files } = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
    files?: string[];
  };
  const entries = (files ?? []).filter((f) => !f.startsWith("!"));
  return trackedFiles(root, [...entries, ...ALWAYS_PACKED]);
}

/** The files git tracks under `paths` (files or folders), sorted: what a release packs of them. */
export function trackedFiles(root: string, paths: string[]): string[] {
  const listed = execFileSync("git", ["ls-files", "-z", "--", ...paths], {
    cwd: root,
    encoding: "utf8",
  });
  return listed
    .split("\0")
    .filter((f) => f !== "")
    .sort();
}

/** The Helm chart's metadata, which npm run chart writes from package.json. */
const CHART_YAML = "charts/llsd-hook/Chart.yaml";

export function packageVersionOf(root: string): string {
  const { version } = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
    version?: unknown;
  };
  if (typeof version !== "string" || !/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/.test(version))
    throw new Error(`package.json's version ${JSON.stringify(version)} is not x.y.z[-pre]`);
  return version;
}

/** The hook images a manifest file names (every `image: <IMAGE_REPOSITORY>:<tag>` line). */
export function hookImages(text: string): string[] {
  const re = new RegExp(`^\\s*image:\\s*(${IMAGE_REPOSITORY.replace(/[.]/g, "\\.")}:\\S+)\\s*$`, "gm");
  return [...text.matchAll(re)].map((m) => m[1] ?? "");
}

/**
 * What is wrong with the names of `version` in the repository: each file of
 * IMAGE_FILES must name the hook's image once, tagged with the version, and
 * CHANGELOG.md must have its section. Empty when all is in step.
 */
export function versionNameProblems(root: string, version: string): string[] {
  const problems: string[] = [];
  for (const file of IMAGE_FILES) {
    const images = hookImages(readFileSync(join(root, file), "utf8"));
    if (images.length !== 1 || images[0] !== imageOf(version))
      problems.push(
        `${file} names ${images.join(", ") || "no hook image"}, not ${imageOf(version)}: set the tag to package.json's version${file.endsWith("install.yaml") ? " (npm run install-yaml)" : ""}`,
      );
  }
  const chart = parse(readFileSync(join(root, CHART_YAML), "utf8")) as Record<string, unknown>;
  for (const key of ["version", "appVersion"])
    if (chart[key] !== version)
      problems.push(`${CHART_YAML}'s ${key} is ${String(chart[key])}, not ${version}: run npm run chart`);
  try {
    changelogSection(readFileSync(join(root, "CHANGELOG.md"), "utf8"), version);
  } catch (err) {
    problems.push((err as Error).message);
  }
  return problems;
}

/** CHANGELOG.md's section for `version`: its `## <version> …` heading up to the next `## `. */
export function changelogSection(changelog: string, version: string): string {
  const lines = changelog.split("\n");
  const start = lines.findIndex((l) => l === `## ${version}` || l.startsWith(`## ${version} `));
  if (start < 0) throw new Error(`CHANGELOG.md has no "## ${version}" section: add one`);
  const rest = lines.slice(start + 1);
  const end = rest.findIndex((l) => l.startsWith("## "));
  const body = rest.slice(0, end < 0 ? undefined : end);
  return [lines[start], ...body].join("\n").trimEnd() + "\n";
}

/** The release date of a section's heading (`## 0.2.0 — 2027-01-15`), or undefined ("not yet released"). */
export function releaseDate(section: string): string | undefined {
  return /^## \S+ — (\d{4}-\d\d-\d\d)$/.exec(section.split("\n")[0] ?? "")?.[1];
}

/**
 * What a release (not a dry run) is made from, as problems: the CHANGELOG
 * section dated, no change in the work tree (`git status --porcelain`), HEAD
 * tagged v<version> (`git tag --points-at HEAD`). Empty when it may be released.
 */
export function releaseGateProblems(
  version: string,
  section: string,
  git: { changes: string; tags: string[] },
): string[] {
  const problems: string[] = [];
  if (releaseDate(section) === undefined)
    problems.push(
      `CHANGELOG.md's "${section.split("\n")[0]}" has no release date: write "## ${version} — YYYY-MM-DD" (or use --dry-run)`,
    );
  if (git.changes !== "") problems.push("the work tree has changes: commit them (or use --dry-run)");
  if (!git.tags.includes(`v${version}`))
    problems.push(`HEAD is not tagged v${version}: git tag -a v${version} (or use --dry-run)`);
  return problems;
}

/**
 * The release's install.yaml: manifests/install.yaml (kubectl kustomize
 * manifests) under a header naming the version, with the hook's image checked
 * to be `image`; every other byte as committed.
 */
export function releaseInstallYaml(installYaml: string, version: string, image: string): string {
  const images = hookImages(installYaml);
  if (images.length !== 1 || images[0] !== image)
    throw new Error(
      `manifests/install.yaml names ${images.join(", ") || "no hook image"}, not ${image}`,
    );
  const body = installYaml.split("\n");
  const first = body.findIndex((l) => !l.startsWith("#"));
  const header = [
    `# llsd-hook ${version}: the CRD, the hook (image ${image}) and the CompositeController;`,
    "# Metacontroller must be installed first. Generated from manifests/ (kubectl kustomize manifests).",
    "#   kubectl apply --server-side -f install.yaml",
  ];
  const text = [...header, ...body.slice(first)].join("\n");
  for (const doc of parseAllDocuments(text))
    if (doc.errors.length > 0) throw new Error(`install.yaml: ${doc.errors[0]?.message}`);
  return text;
}

interface Bom {
  components?: BomComponent[];
}
interface BomComponent {
  name: string;
  version?: string;
  hashes?: { alg: string; content: string }[];
  properties?: { name: string; value: string }[];
  components?: BomComponent[];
}

/**
 * Gives every component of a CycloneDX BOM made by cyclonedx-npm the SHA-512
 * of its package tarball from package-lock.json's `integrity` (the generator
 * adds hashes only beside a `resolved` URL, which this lock file does not
 * keep). Components are matched by their `cdx:npm:package:path` property;
 * one the lock file does not know at that version is an error.
 */
export function withLockHashes(bom: Bom, lock: { packages: Record<string, { version?: string; integrity?: string }> }): Bom {
  const visit = (c: BomComponent) => {
    const path = c.properties?.find((p) => p.name === "cdx:npm:package:path")?.value;
    const entry = path === undefined ? undefined : lock.packages[path];
    if (entry === undefined || entry.version !== c.version)
      throw new Error(`SBOM component ${c.name}@${c.version} (${path}) is not in package-lock.json`);
    const m = /^sha512-([A-Za-z0-9+/=]+)$/.exec(entry.integrity ?? "");
    if (m === null) throw new Error(`package-lock.json has no sha512 integrity for ${path}`);
    const content = Buffer.from(m[1] ?? "", "base64").toString("hex");
    c.hashes = [...(c.hashes ?? []).filter((h) => h.alg !== "SHA-512"), { alg: "SHA-512", content }];
    for (const sub of c.components ?? []) visit(sub);
  };
  for (const c of bom.components ?? []) visit(c);
  return bom;
}

/** A SHA256SUMS file (`sha256sum -c` reads it) for the files `names` of `dir`, one read at a time. */
export function sha256sums(dir: string, names: string[]): string {
  return [...names]
    .sort()
    .map((name) => {
      const sum = createHash("sha256").update(readFileSync(join(dir, name))).digest("hex");
      return `${sum}  ${name}\n`;
    })
    .join("");
}
