// npm run crd: writes manifests/crd/llamastackdistributions.llamastack.io.yaml
// and the v1alpha1 component's CRD patch from the zod schemas (src/api/crd.ts).
// test/unit/api/crd.test.ts fails when a committed file differs from what this writes.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import {
  renderConversionPatchYaml,
  renderCrdYaml,
  CONVERSION_PATCH_FILE,
  CRD_FILE,
} from "../src/api/crd-file.js";

const root = join(import.meta.dirname, "..");
for (const [file, text] of [
  [CRD_FILE, renderCrdYaml()],
  [CONVERSION_PATCH_FILE, renderConversionPatchYaml()],
] as const) {
  mkdirSync(dirname(join(root, file)), { recursive: true });
  writeFileSync(join(root, file), text);
  console.log(`wrote ${file}`);
}
