// The layering rule of docs/architecture.md, executable: each source file
// stands on a floor (that file's list, bottom first) and may import only files
// on its own floor or below, with no cycle between files.
import { readFileSync, readdirSync } from "node:fs";
import { join, posix } from "node:path";
import ts from "typescript";

/** Files (paths relative to src/) and, for each, the files it imports. */
export type ImportGraph = ReadonlyMap<string, readonly string[]>;

export interface LayerReport {
  /** `from -> to` for each import of a file on a higher floor. */
  climbing: string[];
  /** Each cycle's files, in import order. */
  cycles: string[][];
  /** Files no floor names. */
  unplaced: string[];
}

/**
 * The floors under the `## Floors` heading of `markdown`: one numbered line
 * each, bottom first, naming its folders (`lib/`) and files (`messages.ts`) in
 * backticks before the dash that starts its description.
 */
export function readFloors(markdown: string): string[][] {
  const start = markdown.indexOf("\n## Floors\n");
  if (start < 0) throw new Error('no "## Floors" section');
  const end = markdown.indexOf("\n## ", start + 1);
  const section = markdown.slice(start, end < 0 ? undefined : end);
  return section
    .split("\n")
    .filter((line) => /^\d+\. /.test(line))
    .map((line) => [...(line.split(" — ")[0] ?? "").matchAll(/`([^`]+)`/g)].map((m) => m[1]!));
}

/** The floor index of `file`: the floor naming it, or its longest named folder. */
export function floorOf(floors: readonly string[][], file: string): number | undefined {
  let best: { floor: number; length: number } | undefined;
  floors.forEach((entries, floor) => {
    for (const entry of entries) {
      const matches = entry.endsWith("/") ? file.startsWith(entry) : file === entry;
      if (matches && (best === undefined || entry.length > best.length))
        best = { floor, length: entry.length };
    }
  });
  return best?.floor;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((path) => path.endsWith(".ts"))
    .map((path) => path.split("\\").join("/"))
    .sort();
}

/** Every relative import (static, dynamic, re-export, type-only) between the .ts files under `srcDir`. */
export function importGraph(srcDir: string): ImportGraph {
  const files = sourceFiles(srcDir);
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const text = readFileSync(join(srcDir, file), "utf8");
    const targets = ts
      .preProcessFile(text, true, true)
      .importedFiles.map((imported) => imported.fileName)
      .filter((name) => name.startsWith("."))
      .map((name) => posix.normalize(posix.join(posix.dirname(file), name)).replace(/\.js$/, ".ts"))
      .filter((target) => known.has(target));
    graph.set(file, [...new Set(targets)].sort());
  }
  return graph;
}

/** Strongly connected components of more than one file, or a file importing itself (Tarjan). */
function cyclesOf(graph: ImportGraph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file)!, index.get(target)!));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || (graph.get(file) ?? []).includes(file))
      cycles.push(component.reverse());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return cycles;
}

/** What breaks the rule in `graph`: climbing imports, cycles, files on no floor. */
export function checkLayers(floors: readonly string[][], graph: ImportGraph): LayerReport {
  const climbing: string[] = [];
  const unplaced: string[] = [];
  for (const [file, targets] of graph) {
    const from = floorOf(floors, file);
    if (from === undefined) {
      unplaced.push(file);
      continue;
    }
    for (const target of targets) {
      const to = floorOf(floors, target);
      if (to !== undefined && to > from) climbing.push(`${file} -> ${target}`);
    }
  }
  return { climbing, cycles: cyclesOf(graph), unplaced };
}
