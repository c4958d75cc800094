import { stringify } from "yaml";
import { customResourceDefinition } from "./crd.js";

export const CRD_FILE = "manifests/crd/llamastackdistributions.llamastack.io.yaml";

export function renderCrdYaml(): string {
  return `# Generated from src/api (zod) by npm run crd; do not edit.\n${stringify(customResourceDefinition(), { lineWidth: 0 })}`;
}
