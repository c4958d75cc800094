import { stringify } from "yaml";
import { conversionPatch, customResourceDefinition } from "./crd.js";

export const CRD_FILE = "manifests/crd/llamastackdistributions.llamastack.io.yaml";
/** The v1alpha1 component's patch of the CRD (manifests/components/v1alpha1). */
export const CONVERSION_PATCH_FILE = "manifests/components/v1alpha1/crd-v1alpha1.yaml";

export function renderCrdYaml(): string {
  return `# Generated from src/api (zod) by npm run crd; do not edit.\n${stringify(customResourceDefinition(), { lineWidth: 0 })}`;
}

export function renderConversionPatchYaml(): string {
  return `# Generated from src/api/crd.ts and src/api/v1alpha1.ts (zod) by npm run crd; do not edit.\n# Adds the llamastack.io/v1alpha1 version and the Webhook conversion (docs/conversion.md).\n${stringify(conversionPatch(), { lineWidth: 0 })}`;
}
