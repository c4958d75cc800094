// The entry of the CLI's V8 startup snapshot (scripts/render-snapshot.mjs
// bundles it and runs `node --build-snapshot` on it). At build time it loads
// the whole catalog and renders one resource, so that a started snapshot has
// every module evaluated, the catalog parsed and the schemas built: `render`
// then costs the process start and the resource's own work. bin/llsd-hook
// starts it for `render` when IMAGE_OVERRIDES_FILE is unset (overrides are
// read at run time, so those runs take dist/cli/main.js).
import v8 from "node:v8";
import { generateConfig } from "../config/generate.js";
import { loadCatalog } from "../edge/load-catalog.js";
import { render } from "./render.js";
import { runCli } from "./run.js";

const WARM_UP = `apiVersion: llamastack.io/v1alpha2
kind: LlamaStackDistribution
metadata: {name: warm-up, namespace: default}
spec:
  distribution: {name: starter}
  providers:
    inference: [{provider: vllm, endpoint: "http://vllm:8000/v1"}]
`;

const configsDir = process.env["LLSD_CONFIGS_DIR"];
if (configsDir === undefined)
  throw new Error("LLSD_CONFIGS_DIR: the configs/ to build the snapshot from");
const catalog = loadCatalog({ configsDir });
render(WARM_UP, "warm-up.yaml", { catalog, generate: generateConfig }, new Date(0));

// A started snapshot's argv is [node, ...arguments]: no script path.
v8.startupSnapshot.setDeserializeMainFunction(() => {
  process.exitCode = runCli(process.argv.slice(1), () => catalog);
});
