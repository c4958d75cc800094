// A file from a key of a ConfigMap in the resource's namespace: the one shape
// spec.trust.caBundle, spec.auth.<kind>.caBundle and
// spec.distribution.baseConfig share, so all read the same way
// (configMapName, like spec.overrideConfig; key with a default).
import { z } from "zod";
import { DNS1123_SUBDOMAIN } from "./names.js";

const CONFIGMAP_KEY = /^[-._a-zA-Z0-9]+$/;

/** A CA bundle once parsed: the key's default filled in. */
export type CaBundle = z.output<ReturnType<typeof caBundle>>;

/**
 * A key of a ConfigMap in the resource's namespace, `{configMapName, key}`
 * with the key defaulting to `defaultKey`: the shape of every field that
 * reads a file from a ConfigMap (the CA bundles, spec.distribution.baseConfig).
 */
export function configMapKey(defaultKey: string, describe: { configMapName: string; key: string }) {
  return z.strictObject({
    configMapName: z
      .string()
      .min(1)
      .max(253)
      .regex(DNS1123_SUBDOMAIN, "must be a valid ConfigMap name (lower-case DNS subdomain)")
      .describe(describe.configMapName),
    key: z
      .string()
      .min(1)
      .max(253)
      .regex(CONFIGMAP_KEY, "must be a valid ConfigMap key ([-._a-zA-Z0-9]+)")
      .default(defaultKey)
      .describe(describe.key),
  });
}

/** The schema of a CA bundle whose key defaults to `defaultKey`. */
export function caBundle(defaultKey: string) {
  return configMapKey(defaultKey, {
    configMapName: "A ConfigMap in the LlamaStackDistribution's namespace.",
    key: `The key holding the PEM certificate(s); default ${defaultKey}.`,
  });
}
