#!/usr/bin/env node
// npx llsd-hook render|request <cr.yaml>: started without a snapshot
// (bin/llsd-hook uses one for render when it was built for this Node.js),
// through ./start.js, which checks the Node.js first.
import { fileURLToPath } from "node:url";
import { imageOverridesFromEnv, loadCatalog } from "../edge/load-catalog.js";
import { packageVersion } from "../edge/package-version.js";
import { runCli } from "./run.js";

process.exitCode = runCli(process.argv.slice(2), {
  // Only the release and distribution the resource names are read.
  catalogOf: () => loadCatalog({ imageOverrides: imageOverridesFromEnv(process.env), lazy: true }),
  // dist/cli/main.js, or src/cli/main.ts through tsx: package.json is two folders up.
  versionOf: () => packageVersion(fileURLToPath(new URL("../../package.json", import.meta.url))),
  controllerFile: () =>
    fileURLToPath(new URL("../../metacontroller/compositecontroller.yaml", import.meta.url)),
});
