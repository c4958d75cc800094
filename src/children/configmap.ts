import type { ConfigMap } from "kubernetes-types/core/v1.js";
import { CONFIG_FILE } from "../config/runtime.js";
import { childNames, labelsFor } from "./labels.js";

/** The generated config, in an immutable ConfigMap named by its content hash. */
export function buildConfigMap(input: {
  llsd: string;
  namespace: string;
  configYaml: string;
  configHash: string;
}): ConfigMap {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: {
      name: childNames.configMap(input.llsd, input.configHash),
      namespace: input.namespace,
      labels: labelsFor(input.llsd),
    },
    data: { [CONFIG_FILE]: input.configYaml },
    immutable: true,
  };
}
