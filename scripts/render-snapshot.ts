// npm run build (second step): the CLI's V8 startup snapshot,
// dist/cli/render-<node version>-<arch>.blob, and the JSON catalog it reads,
// dist/cli/render-catalog/ (or under the dist/ given as the first argument).
//   - The JSON catalog is configs/ as the snapshot reads it: the same index
//     files and registries, each base config as config.json (JSON.parse is
//     native; parsing YAML in a process that just started is most of a
//     render). Derived here at every build, never committed.
//   - esbuild bundles src/cli/snapshot.ts into one CommonJS file (a
//     snapshot's entry cannot load modules), without comments: the source text
//     stays in the heap, and one non-ASCII comment makes all of it two bytes a
//     character; and without zod's locales. `node --build-snapshot` runs it
//     (warm-up renders and all) and writes the heap.
// A blob runs only on the Node.js that built it (hence the name): the build
// writes dist/cli/render-snapshot.stamp, that node binary's path and the blob's
// name, and bin/llsd-hook uses the blob only when the node on PATH is that
// binary, else it starts dist/cli/main.js.
import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build, type Plugin } from "esbuild";
import { writeJsonCatalog } from "../src/edge/load-catalog.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
/** The dist/ to write into: the first argument, else the project's own. */
const outDir = join(resolve(process.argv[2] ?? join(root, "dist")), "cli");
const bundle = join(outDir, "render-snapshot.cjs");
const blob = join(outDir, `render-${process.version}-${process.arch}.blob`);
/** What bin/llsd-hook reads: the node binary that built the blob, and the blob. */
const stamp = join(outDir, "render-snapshot.stamp");

/**
 * zod's namespace exports every locale (`z.locales`, 300 KB of source and a
 * thousand objects in the heap), which a bundler cannot drop from `z`; the
 * messages use English only (classic/schemas.js imports locales/en.js itself).
 */
const withoutZodLocales: Plugin = {
  name: "without-zod-locales",
  setup(b) {
    b.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[/\\]zod[/\\]v4[/\\](classic|core)[/\\]/.test(args.importer)
        ? { path: "zod-locales", namespace: "empty" }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: "empty" }, () => ({ contents: "export {};" }));
  },
};

mkdirSync(outDir, { recursive: true });
for (const old of readdirSync(outDir).filter((f) => /^render-.*\.blob$/.test(f)))
  rmSync(join(outDir, old));
rmSync(stamp, { force: true });
rmSync(join(outDir, "render-catalog"), { recursive: true, force: true });
writeJsonCatalog(join(root, "configs"), join(outDir, "render-catalog"));
await build({
  entryPoints: [join(root, "src", "cli", "snapshot.ts")],
  bundle: true,
  platform: "node",
  format: "cjs",
  target: `node${process.versions.node.split(".")[0]}`,
  outfile: bundle,
  minifyWhitespace: true,
  plugins: [withoutZodLocales],
  // load-catalog.ts finds configs/ from its own URL; the snapshot is given its JSON catalog instead.
  define: { "import.meta.url": JSON.stringify("file:///llsd-hook/dist/edge/load-catalog.js") },
  logLevel: "warning",
});
const run = spawnSync(process.execPath, ["--snapshot-blob", blob, "--build-snapshot", bundle], {
  stdio: "inherit",
});
rmSync(bundle);
if (run.status !== 0) {
  rmSync(blob, { force: true });
  throw new Error(`node --build-snapshot failed (exit ${run.status ?? run.signal})`);
}
writeFileSync(stamp, `${process.execPath}\n${basename(blob)}\n`);
