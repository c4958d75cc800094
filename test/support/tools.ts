// What the install tests run: the kubectl built beside the test control plane
// (test/k8s/build.sh), helm (test/helm/), Argo CD's Lua health-check runner (test/argocd/) and
// the third-party CRDs (scripts/third-party-crds.sh), all from the peers file
// test/prepare-peers.sh writes; and the text of the README and docs/ they take literally.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { loadPeers } from "../peers.js";

export const root = join(import.meta.dirname, "..", "..");

interface InstallPeers {
  k8sBinDir: string;
  argocdHealth?: string;
  argocdTracking?: string;
  fluxKstatus?: string;
  helm?: string;
  thirdPartyCrdDir?: string;
}

function peer(key: keyof InstallPeers, what: string): string {
  const path = (loadPeers() as InstallPeers)[key];
  if (path === undefined || !existsSync(path))
    throw new Error(`${what} is missing (peers.json ${key}: ${path}): run "npm run peers" first`);
  return path;
}

export function kubectl(): string {
  const path = join(peer("k8sBinDir", "the Kubernetes binaries"), "kubectl");
  if (!existsSync(path)) throw new Error(`${path} is missing: run "npm run peers" first`);
  return path;
}

export function argocdHealth(): string {
  return peer("argocdHealth", "argocd-health (test/argocd/build.sh)");
}

export function argocdTracking(): string {
  return peer("argocdTracking", "argocd-tracking (test/argocd/tracking/build.sh)");
}

export function fluxKstatus(): string {
  return peer("fluxKstatus", "flux-kstatus (test/flux/build.sh)");
}

/**
 * What a build script of the suite (`test/k8s/build.sh`, `test/helm/build.sh`) prints last: the
 * path of its output in the cache, built first when absent. For the npm scripts, which run
 * without peers.json.
 */
export function built(script: string): string {
  const printed = execFileSync(join(root, script), {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  })
    .trim()
    .split("\n")
    .pop();
  if (printed === undefined || !existsSync(printed))
    throw new Error(`${script} printed ${JSON.stringify(printed)}, not a path`);
  return printed;
}

/** helm from peers.json, or test/helm/build.sh's when peers.json has none. */
export function helm(): string {
  const path = (loadPeers() as InstallPeers).helm;
  return path !== undefined && existsSync(path) ? path : built("test/helm/build.sh");
}

export function thirdPartyCrdDir(): string {
  return peer("thirdPartyCrdDir", "the third-party CRDs (scripts/third-party-crds.sh)");
}

/**
 * The section of a Markdown file (`file` relative to the repository, such as
 * "README.md" or "docs/guide/auth.md") under `heading` (a whole line such as
 * "## Install"), up to the next heading of its level or above.
 */
export function docSection(file: string, heading: string): string {
  const text = readFileSync(join(root, file), "utf8");
  const level = /^#+/.exec(heading)?.[0].length ?? 0;
  const start = text.split("\n").indexOf(heading);
  if (start < 0) throw new Error(`${file} has no "${heading}" section`);
  const lines = text.split("\n").slice(start + 1);
  let fenced = false;
  const end = lines.findIndex((l) => {
    if (l.startsWith("```")) fenced = !fenced;
    const m = /^(#+) /.exec(l);
    return !fenced && m !== null && (m[1]?.length ?? 0) <= level;
  });
  return lines.slice(0, end < 0 ? undefined : end).join("\n");
}

/** The code blocks of a section in a given language, as text. */
export function codeBlocks(section: string, lang: string): string[] {
  return [...section.matchAll(new RegExp("^```" + lang + "\\n([\\s\\S]*?)^```", "gm"))].map(
    (m) => m[1] ?? "",
  );
}

/** The shell lines of a section that start with `prefix` (comments dropped). */
export function commandLines(section: string, prefix: string): string[] {
  return codeBlocks(section, "sh")
    .flatMap((b) => b.split("\n"))
    .map((l) => l.replace(/\s+#.*$/, "").trim())
    .filter((l) => l.startsWith(prefix));
}
