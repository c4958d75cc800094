#!/usr/bin/env node
// npx llsd-hook render <cr.yaml>: started without a snapshot (bin/llsd-hook
// uses one when it was built for this Node.js).
import { imageOverridesFromEnv, loadCatalog } from "../edge/load-catalog.js";
import { runCli } from "./run.js";

// Only the release and distribution the resource names are read.
process.exitCode = runCli(process.argv.slice(2), () =>
  loadCatalog({ imageOverrides: imageOverridesFromEnv(process.env), lazy: true }),
);
