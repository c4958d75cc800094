// manifests/install.yaml: what `kubectl apply --server-side -k manifests`
// installs, rendered by the pinned kubectl's kustomize into one file for
// `kubectl apply -f`, in the repository's YAML format (prettier). Written by
// npm run install-yaml; test/install/install-yaml.test.ts fails when stale.
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { format, resolveConfig } from "prettier";
import { root } from "../support/tools.js";

export const INSTALL_YAML = "manifests/install.yaml";

const HEADER = [
  "# Generated from manifests/ by npm run install-yaml (kubectl kustomize manifests); do not edit.",
  "# Installs the CRD, the hook and the CompositeController (Metacontroller must be installed):",
  "#   kubectl apply --server-side -f manifests/install.yaml",
  "",
].join("\n");

export async function renderInstallYaml(kubectl: string): Promise<string> {
  const rendered = execFileSync(kubectl, ["kustomize", "manifests"], {
    cwd: root,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  const file = join(root, INSTALL_YAML);
  const options = (await resolveConfig(file)) ?? {};
  return format(HEADER + rendered, { ...options, filepath: file });
}
