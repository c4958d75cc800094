// The entry of the CLI's V8 startup snapshot (scripts/render-snapshot.ts
// bundles it and runs `node --build-snapshot` on it). At build time it renders
// a few resources (src/cli/warm-up.ts), so that a started snapshot has every
// module evaluated, the schemas built and the functions a render runs
// compiled. The catalog stays out of the heap — every byte of the heap is
// deserialized at every start, and the whole parsed catalog cost more than
// reading one release: a render reads the release and distribution it names
// from the JSON catalog written beside the blob (render-catalog/, base configs
// as JSON, which the native JSON.parse reads far faster than a YAML parse in
// the interpreter). bin/llsd-hook starts it for `render` when
// IMAGE_OVERRIDES_FILE is unset (overrides are read at run time, so those runs
// take dist/cli/main.js).
import v8 from "node:v8";
import { dirname, join, resolve } from "node:path";
import { generateConfig } from "../config/generate.js";
import { loadCatalog } from "../edge/load-catalog.js";
import { packageVersion } from "../edge/package-version.js";
import { render } from "./render.js";
import { runCli } from "./run.js";
import { WARM_UPS } from "./warm-up.js";

/**
 * The JSON catalog beside the blob this process was started from (or is
 * building): `--snapshot-blob <file>` is in process.execArgv either way.
 */
function catalogDir(execArgv: readonly string[]): string {
  const at = execArgv.findIndex((a) => a === "--snapshot-blob" || a.startsWith("--snapshot-blob="));
  const arg = execArgv[at] ?? "";
  const blob = arg.includes("=") ? arg.slice(arg.indexOf("=") + 1) : execArgv[at + 1];
  if (at < 0 || blob === undefined) throw new Error("started without --snapshot-blob <file>");
  return join(dirname(resolve(blob)), "render-catalog");
}

const readCatalog = () =>
  loadCatalog({ configsDir: catalogDir(process.execArgv), lazy: true, json: true });

/** package.json of the tree the blob was built in: render-catalog/ is in dist/cli/. */
const readVersion = () =>
  packageVersion(join(catalogDir(process.execArgv), "..", "..", "..", "package.json"));

/** request's CompositeController, beside that package.json (bin/llsd-hook starts the blob for render only). */
const controllerFile = () =>
  join(
    catalogDir(process.execArgv),
    "..",
    "..",
    "..",
    "metacontroller",
    "compositecontroller.yaml",
  );

for (const text of WARM_UPS)
  render(text, "warm-up.yaml", { catalog: readCatalog(), generate: generateConfig }, new Date(0));

// A started snapshot's argv is [node, ...arguments]: no script path.
v8.startupSnapshot.setDeserializeMainFunction(() => {
  process.exitCode = runCli(process.argv.slice(1), {
    catalogOf: readCatalog,
    versionOf: readVersion,
    controllerFile,
  });
});
