// The layering rule of docs/architecture.md, executable: each source file
// stands on a floor (that file's list, bottom first) and may import only files
// on its own floor or below, with no cycle between files. And the thread seam
// of the same file: no file the server's main thread loads reaches the core.
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

/**
 * The specifiers of the imports in `text` that load code when it runs: every
 * one but `import type` and `export type … from` (with verbatimModuleSyntax,
 * `import { type A }` still loads its module). Dynamic imports included.
 */
function runtimeSpecifiers(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false);
  const found: string[] = [];
  const add = (specifier: ts.Node | undefined) => {
    if (specifier !== undefined && ts.isStringLiteral(specifier)) found.push(specifier.text);
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && node.importClause?.isTypeOnly !== true)
      add(node.moduleSpecifier);
    else if (ts.isExportDeclaration(node) && !node.isTypeOnly) add(node.moduleSpecifier);
    else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword)
      add(node.arguments[0]);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/**
 * Every relative import between the .ts files under `srcDir`: static,
 * dynamic, re-exports and type-only ones; with `runtime`, only those that
 * load code when they run.
 */
export function importGraph(srcDir: string, options: { runtime?: boolean } = {}): ImportGraph {
  const files = sourceFiles(srcDir);
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const text = readFileSync(join(srcDir, file), "utf8");
    const specifiers =
      options.runtime === true
        ? runtimeSpecifiers(file, text)
        : ts.preProcessFile(text, true, true).importedFiles.map((imported) => imported.fileName);
    const targets = specifiers
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

/** The thread seam of docs/architecture.md: which files of the server each kind of thread loads. */
export interface Seam {
  /** Files and folders the main thread loads (and whatever they import). */
  main: string[];
  /** Files and folders only workers load. */
  workers: string[];
  /** What the main thread must never load: the core. */
  core: string[];
  /** Imports the main thread makes once at start, before any request (`from -> to`); not followed. */
  atStart: string[];
}

/**
 * The lists under the `## The thread seam` heading of `markdown`: one bullet
 * each, `- main thread:`, `- workers:`, `- the core:` and `- at start:`, naming
 * files and folders in backticks (`a` → `b` for an import at start).
 */
export function readSeam(markdown: string): Seam {
  const start = markdown.indexOf("\n## The thread seam\n");
  if (start < 0) throw new Error('no "## The thread seam" section');
  const end = markdown.indexOf("\n## ", start + 1);
  const lines = markdown.slice(start, end < 0 ? undefined : end).split("\n");
  const listed = (label: string): string[] => {
    const line = lines.find((l) => l.startsWith(`- ${label}:`));
    if (line === undefined) throw new Error(`no "- ${label}:" line in "## The thread seam"`);
    return [...(line.split(" — ")[0] ?? "").matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
  };
  const atStart = listed("at start");
  const pairs = atStart.flatMap((entry, i) =>
    i % 2 === 0 ? [`${entry} -> ${atStart[i + 1]}`] : [],
  );
  return {
    main: listed("main thread"),
    workers: listed("workers"),
    core: listed("the core"),
    atStart: pairs,
  };
}

const within = (entries: readonly string[], file: string) =>
  entries.some((entry) => (entry.endsWith("/") ? file.startsWith(entry) : file === entry));

/** What breaks the seam in `graph` (runtime imports): main-thread files reaching the core, server files on no list. */
export function checkSeam(
  seam: Seam,
  graph: ImportGraph,
): { reaching: string[]; unlisted: string[] } {
  const reaching: string[] = [];
  const roots = [...graph.keys()].filter((file) => within(seam.main, file));
  // Breadth first from each main-thread file: the first path to each core file it reaches.
  for (const root of roots) {
    const from = new Map<string, string>([[root, ""]]);
    const queue = [root];
    for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
      for (const target of graph.get(file) ?? []) {
        if (from.has(target) || seam.atStart.includes(`${file} -> ${target}`)) continue;
        from.set(target, file);
        if (!within(seam.core, target)) {
          queue.push(target);
          continue;
        }
        const path = [target];
        for (let at = file; at !== ""; at = from.get(at) ?? "") path.unshift(at);
        reaching.push(path.join(" -> "));
      }
    }
  }
  const unlisted = [...graph.keys()].filter(
    (file) => file.startsWith("server/") && within(seam.main, file) === within(seam.workers, file),
  );
  return { reaching, unlisted };
}
