// npm run crd: writes manifests/crd/llamastackdistributions.llamastack.io.yaml
// from the zod schema (src/api/crd.ts). test/unit/api/crd.test.ts fails when
// the committed file differs from what this writes.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { renderCrdYaml, CRD_FILE } from "../src/api/crd-file.js";

writeFileSync(join(import.meta.dirname, "..", CRD_FILE), renderCrdYaml());
console.log(`wrote ${CRD_FILE}`);
