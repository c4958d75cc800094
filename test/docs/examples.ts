// The LlamaStackDistribution examples of the README and docs/ — every fenced
// ```yaml block with a `kind: LlamaStackDistribution` line, with its file,
// line and what it is meant to do — and the examples/*.yaml gallery, each
// file whole. An example meant to fail says so in an
// HTML comment on the line before its fence, naming the status reason it
// fails with:
//
//   <!-- example: fails with RemovedApi -->
//
// A failing example may be followed by a ```text block of the `error:` lines
// render prints for it, which must be exactly those.
//
// An example that pins a release whose images are retired (0.7.3, 0.6.1) is
// about that release, and says so: `<!-- example: retired release -->`.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

export const root = join(import.meta.dirname, "..", "..");

/** README.md and every Markdown file under docs/, relative to the repository. */
export function docFiles(): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(join(root, dir)).flatMap((name) => {
      const path = join(dir, name);
      if (statSync(join(root, path)).isDirectory()) return walk(path);
      return name.endsWith(".md") ? [path] : [];
    });
  return ["README.md", ...walk("docs").sort()];
}

export interface DocExample {
  /** `file:line` of the fence. */
  where: string;
  file: string;
  /** The block's text, its indentation removed. */
  text: string;
  /** The status reason it must fail with; undefined when it must succeed. */
  failsWith?: string;
  /** The `error:` lines of a ```text block right after a failing example. */
  errors?: string[];
  /** Marked as being about a release with retired images. */
  retiredRelease: boolean;
}

/** The lines of a ```text block that follows line `after` (blank lines between), if any. */
function textBlockAfter(lines: readonly string[], after: number): string[] | undefined {
  let i = after + 1;
  while ((lines[i] ?? "x").trim() === "") i++;
  if ((lines[i] ?? "").trim() !== "```text") return undefined;
  const end = lines.findIndex((l, j) => j > i && l.trim() === "```");
  return lines.slice(i + 1, end < 0 ? undefined : end).map((l) => l.trim());
}

const MARKER = /^<!-- example: (fails with (\w+)|retired release) -->$/;

/** The LlamaStackDistribution examples of one Markdown file. */
function examplesOf(file: string): DocExample[] {
  const lines = readFileSync(join(root, file), "utf8").split("\n");
  const out: DocExample[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)```yaml\s*$/.exec(lines[i] ?? "");
    if (open === null) continue;
    const indent = open[1]?.length ?? 0;
    const end = lines.findIndex((l, j) => j > i && /^\s*```\s*$/.test(l));
    const body = lines.slice(i + 1, end < 0 ? undefined : end).map((l) => l.slice(indent));
    const text = body.join("\n") + "\n";
    const marker = MARKER.exec((lines[i - 1] ?? "").trim());
    const errors = marker?.[2] === undefined ? undefined : textBlockAfter(lines, end);
    if (/^kind: LlamaStackDistribution\s*$/m.test(text))
      out.push({
        where: `${file}:${i + 1}`,
        file,
        text,
        ...(marker?.[2] !== undefined ? { failsWith: marker[2] } : {}),
        ...(errors !== undefined ? { errors } : {}),
        retiredRelease: marker?.[1] === "retired release",
      });
    else if (marker !== null)
      throw new Error(`${file}:${i + 1}: an example marker on a block that is no resource`);
    if (end > i) i = end;
  }
  return out;
}

/**
 * The gallery: each examples/*.yaml file that holds a LlamaStackDistribution,
 * as a whole (the Secrets and ConfigMaps beside it are part of it).
 */
function galleryExamples(): DocExample[] {
  return readdirSync(join(root, "examples"))
    .filter((name) => name.endsWith(".yaml"))
    .sort()
    .map((name) => join("examples", name))
    .map((file) => ({ file, text: readFileSync(join(root, file), "utf8") }))
    .filter(({ text }) => /^kind: LlamaStackDistribution\s*$/m.test(text))
    .map(({ file, text }) => ({ where: file, file, text, retiredRelease: false }));
}

/** Every LlamaStackDistribution example of the README, docs/ and examples/. */
export function docExamples(): DocExample[] {
  return [...docFiles().flatMap(examplesOf), ...galleryExamples()];
}
