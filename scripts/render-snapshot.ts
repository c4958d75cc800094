// npm run build (second step): the CLI's V8 startup snapshot,
// dist/cli/render-<node version>-<arch>.blob (or under the dist/ given as the
// first argument). esbuild bundles
// src/cli/snapshot.ts into one CommonJS file (a snapshot's entry cannot load
// modules), and `node --build-snapshot` runs it, catalog and all, and writes
// the heap. A blob runs only on the Node.js that built it, hence the name;
// bin/llsd-hook looks for the one of the Node.js it runs on and otherwise
// starts dist/cli/main.js.
import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
/** The dist/ to write into: the first argument, else the project's own. */
const outDir = join(resolve(process.argv[2] ?? join(root, "dist")), "cli");
const bundle = join(outDir, "render-snapshot.cjs");
const blob = join(outDir, `render-${process.version}-${process.arch}.blob`);

mkdirSync(outDir, { recursive: true });
for (const old of readdirSync(outDir).filter((f) => /^render-.*\.blob$/.test(f)))
  rmSync(join(outDir, old));
await build({
  entryPoints: [join(root, "src", "cli", "snapshot.ts")],
  bundle: true,
  platform: "node",
  format: "cjs",
  target: `node${process.versions.node.split(".")[0]}`,
  outfile: bundle,
  // load-catalog.ts finds configs/ from its own URL; the snapshot is given the directory instead.
  define: { "import.meta.url": JSON.stringify("file:///llsd-hook/dist/edge/load-catalog.js") },
  logLevel: "warning",
});
const run = spawnSync(process.execPath, ["--snapshot-blob", blob, "--build-snapshot", bundle], {
  env: { ...process.env, LLSD_CONFIGS_DIR: join(root, "configs") },
  stdio: "inherit",
});
rmSync(bundle);
if (run.status !== 0) {
  rmSync(blob, { force: true });
  throw new Error(`node --build-snapshot failed (exit ${run.status ?? run.signal})`);
}
