// Whether the running Node.js is one package.json's engines.node allows: the
// first thing each entry does (src/server/start.ts, src/cli/start.ts,
// scripts/build.ts), before it imports anything. An ES module links every one
// of its static imports before any of its code runs, so on an older Node.js a
// module importing what that release lacks (node:worker_threads'
// isMarkedAsUntransferable, for one) stops with a SyntaxError before a check
// could speak. This module therefore has no static import at all, and the
// entries reach it and everything else through import(): an older Node.js
// gets one line saying what to do, and a non-zero exit.
// Its text is here, not in messages.ts, because importing that module is what
// it must not do.

const parts = (version: string) => version.split(".").map(Number);

/**
 * Why `version` (such as "24.21.0") is outside `range`, or undefined when it is
 * inside. Only the ">=X", ">=X.Y" and ">=X.Y.Z" ranges the project uses are
 * understood; any other range is refused rather than guessed.
 */
export function engineProblem(range: string, version: string): string | undefined {
  const m = /^>=\s*(\d+(?:\.\d+){0,2})$/.exec(range.trim());
  if (m === null)
    return `engines.node "${range}" is not a ">=X[.Y[.Z]]" range, which is all src/edge/node-engines.ts reads: extend it with the range`;
  const want = parts(m[1] ?? "");
  const have = parts(version);
  for (let i = 0; i < want.length; i++) {
    const w = want[i] ?? 0;
    const h = have[i] ?? 0;
    if (h > w) return undefined;
    if (h < w) return `Node.js ${version} is older than engines.node "${range}"`;
  }
  return undefined;
}

/** The one line an entry prints when `version` (at `execPath`) is outside `range`, or undefined. */
export function unsupportedNode(
  range: string,
  version: string,
  execPath: string,
): string | undefined {
  const problem = engineProblem(range, version);
  if (problem === undefined) return undefined;
  const least = /^>=\s*(\S+)$/.exec(range.trim())?.[1];
  const need =
    least === undefined ? `a Node.js that "${range}" allows` : `Node.js ${least} or newer`;
  return `llsd-hook: ${problem} (${execPath}); run it on ${need}, from a checkout: export PATH="$(scripts/use-node.sh):$PATH"`;
}

/**
 * package.json's engines.node, from the file at `packageJson`; undefined when
 * there is no such file or it names no range, which leaves the program to
 * start unchecked (npm always ships package.json; a bare copy of dist/ has none).
 */
async function enginesRange(packageJson: URL): Promise<string | undefined> {
  const { readFileSync } = await import("node:fs");
  let text: string;
  try {
    text = readFileSync(packageJson, "utf8");
  } catch (err) {
    if ((err as { code?: unknown }).code === "ENOENT") return undefined;
    throw err;
  }
  const range = (JSON.parse(text) as { engines?: { node?: unknown } }).engines?.node;
  return typeof range === "string" ? range : undefined;
}

/**
 * Runs `start` when this Node.js is one the package.json at `packageJson`
 * allows; otherwise prints the line saying so on stderr and sets `exitCode`.
 */
export async function startOnSupportedNode(
  packageJson: URL,
  exitCode: number,
  start: () => Promise<unknown>,
): Promise<void> {
  const range = await enginesRange(packageJson);
  const line =
    range === undefined
      ? undefined
      : unsupportedNode(range, process.versions.node, process.execPath);
  if (line === undefined) {
    await start();
    return;
  }
  process.stderr.write(`${line}\n`);
  process.exitCode = exitCode;
}
