// npm run crd: writes manifests/crd/llamastackdistributions.llamastack.io.yaml,
// the v1alpha1 component's CRD patch and the field reference
// (docs/reference/llamastackdistribution.md) from the zod schemas (src/api/crd.ts).
// test/unit/api/crd.test.ts and reference.test.ts fail when a committed file
// differs from what this writes.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import {
  renderConversionPatchYaml,
  renderCrdYaml,
  CONVERSION_PATCH_FILE,
  CRD_FILE,
} from "../src/api/crd-file.js";
import { referenceOfCrd, REFERENCE_FILE } from "../src/api/reference.js";

const root = join(import.meta.dirname, "..");
for (const [file, text] of [
  [CRD_FILE, renderCrdYaml()],
  [CONVERSION_PATCH_FILE, renderConversionPatchYaml()],
  [REFERENCE_FILE, referenceOfCrd()],
] as const) {
  mkdirSync(dirname(join(root, file)), { recursive: true });
  writeFileSync(join(root, file), text);
  console.log(`wrote ${file}`);
}
