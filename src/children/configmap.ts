// The ConfigMap `<name>-config-<hash>` holding the generated config.yaml
// (docs/guide/how-the-config-is-generated.md), and the same ConfigMap rebuilt from
// the live one while running pods may still mount it (keep.ts, rule 3).
import type { ConfigMap } from "kubernetes-types/core/v1.js";
import { z } from "zod";
import type { KubeObject } from "../api/hook.js";
import { CONFIG_FILE } from "../container.js";
import { defined } from "../lib/json.js";
import { childMetadata, type Child, type Owner } from "./child.js";
import { childNames } from "./labels.js";

export interface ConfigMapInput extends Owner {
  configYaml: string;
  configHash: string;
}

/** The generated config, in an immutable ConfigMap named by its content hash. */
export function buildConfigMap(input: ConfigMapInput): Child<ConfigMap> {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: childMetadata(input, childNames.configMap(input.llsd, input.configHash)),
    data: { [CONFIG_FILE]: input.configYaml },
    immutable: true,
  };
}

const Strings = z.record(z.string(), z.string());
/** Only an immutable ConfigMap is sure to hold what the pods were started with. */
const LiveConfigMap = z.object({
  immutable: z.literal(true),
  data: Strings.optional(),
  binaryData: Strings.optional(),
});

/**
 * A ConfigMap as it runs, for keeping it without a record of what was applied:
 * its name from the observed one, its data from the live object; undefined
 * unless it is immutable with string data.
 */
export function configMapFromLive(
  observed: KubeObject,
  owner: Owner,
): Child<ConfigMap> | undefined {
  const live = LiveConfigMap.safeParse(observed);
  if (!live.success) return undefined;
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: childMetadata(owner, observed.metadata.name),
    ...defined<Pick<ConfigMap, "data" | "binaryData" | "immutable">>(live.data),
  };
}
