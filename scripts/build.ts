// npm run build, and npm start's prestart (with --if-stale). First the Node.js
// check (src/edge/node-engines.ts: this file has no static import either, so
// an older Node.js gets its one line at once, not after the build); then
// dist/ from src/ (tsc) and the CLI's render snapshot
// (scripts/render-snapshot.ts); last dist/.build-inputs, the sha256 of what
// those two read: src/, configs/, the package and compiler settings, these two
// scripts, and the node binary (a snapshot runs only on the one that built it).
// The digest is taken before the build, so a file edited while it runs makes
// the next one rebuild. --if-stale builds only when the recorded digest differs
// or an entry point is missing: an unchanged checkout starts at once.
const { startOnSupportedNode } = await import("../src/edge/node-engines.js");
await startOnSupportedNode(new URL("../package.json", import.meta.url), 1, build);

async function build(): Promise<void> {
  const { createHash } = await import("node:crypto");
  const { spawnSync } = await import("node:child_process");
  const { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } =
    await import("node:fs");
  const { join, relative } = await import("node:path");

  const root = join(import.meta.dirname, "..");
  const record = join(root, "dist", ".build-inputs");
  const INPUTS = [
    "src",
    "configs",
    "package.json",
    "package-lock.json",
    "tsconfig.json",
    "tsconfig.build.json",
    "scripts/build.ts",
    "scripts/render-snapshot.ts",
  ];

  /** Every file under `path` (or `path` itself), relative to the root, sorted. */
  const filesOf = (path: string): string[] =>
    statSync(join(root, path)).isDirectory()
      ? readdirSync(join(root, path), { recursive: true, withFileTypes: true })
          .filter((e) => e.isFile())
          .map((e) => relative(root, join(e.parentPath, e.name)))
      : [path];

  /** The digest of the inputs' paths and bytes, and of the node binary that builds. */
  function digest(): string {
    const hash = createHash("sha256");
    hash.update(`${process.execPath}\0${process.version}\0${process.arch}\0`);
    for (const file of INPUTS.flatMap(filesOf).sort()) {
      const bytes = readFileSync(join(root, file));
      hash.update(`${file}\0${bytes.length}\0`).update(bytes);
    }
    return hash.digest("hex");
  }

  function run(what: string, args: string[]): void {
    const done = spawnSync(process.execPath, args, { cwd: root, stdio: "inherit" });
    if (done.status !== 0) {
      process.stderr.write(`llsd-hook: ${what} failed (exit ${done.status ?? done.signal})\n`);
      process.exit(done.status ?? 1);
    }
  }

  const inputs = digest();
  const entries = ["dist/server/start.js", "dist/cli/start.js"];
  if (process.argv.includes("--if-stale")) {
    if (
      existsSync(record) &&
      readFileSync(record, "utf8").trim() === inputs &&
      entries.every((e) => existsSync(join(root, e)))
    ) {
      process.stderr.write(
        "llsd-hook: dist/ is up to date with src/ and configs/ (dist/.build-inputs); npm run build rebuilds it\n",
      );
      return;
    }
    process.stderr.write(
      "llsd-hook: building dist/ (npm run build): its sources changed since the last build, or there was none\n",
    );
  }
  rmSync(record, { force: true });
  run("tsc", [join(root, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.build.json"]);
  run("the render snapshot", ["--import", "tsx", join(root, "scripts", "render-snapshot.ts")]);
  writeFileSync(record, `${inputs}\n`);
}
