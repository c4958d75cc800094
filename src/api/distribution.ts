// spec.distribution: which server runs, a distribution llsd-hook knows (with
// a release) or a custom image (with its base config and release).
import { z } from "zod";
import { configMapKey } from "./ca-bundle.js";
import { LIMITS } from "./fields.js";
import { rule, withRules } from "./rules.js";

/** The key of spec.distribution.baseConfig when none is given. */
const BASE_CONFIG_KEY = "config.yaml";

const BaseConfig = configMapKey(BASE_CONFIG_KEY, {
  configMapName:
    "A ConfigMap in the LlamaStackDistribution's namespace holding the image's own config.yaml.",
  key: `The key holding the config; default ${BASE_CONFIG_KEY}.`,
}).describe(
  "The custom image's own config.yaml, the base the config is generated on (as a named distribution's is). Needs image and release.",
);

type DistributionFields = {
  name?: string | undefined;
  image?: string | undefined;
  release?: string | undefined;
  baseConfig?: unknown;
};

const distributionRules = [
  rule<DistributionFields>({
    id: "distribution-name-xor-image",
    cel: "has(self.name) != has(self.image)",
    message:
      "spec.distribution: set exactly one of name (a distribution llsd-hook knows) or image (a custom image)",
    check: (d) => (d.name !== undefined) !== (d.image !== undefined),
  }),
  rule<DistributionFields>({
    id: "distribution-release-needs-name-or-base-config",
    cel: "!has(self.release) || has(self.name) || has(self.baseConfig)",
    message:
      "spec.distribution.release: only valid with distribution.name, or with image and baseConfig; a custom image without baseConfig carries its own release",
    fieldPath: ".release",
    check: (d) => d.release === undefined || d.name !== undefined || d.baseConfig !== undefined,
  }),
  rule<DistributionFields>({
    id: "distribution-base-config-needs-image",
    cel: "!has(self.baseConfig) || has(self.image)",
    message:
      "spec.distribution.baseConfig: only valid with distribution.image; a named distribution's base config is llsd-hook's own, so remove baseConfig or use image",
    fieldPath: ".baseConfig",
    check: (d) => d.baseConfig === undefined || d.image !== undefined,
  }),
  rule<DistributionFields>({
    id: "distribution-base-config-needs-release",
    cel: "!has(self.baseConfig) || has(self.release)",
    message:
      'spec.distribution.release: required with baseConfig; name the release the image runs (e.g. "1.5.0"), whose schema the base is checked against',
    fieldPath: ".release",
    check: (d) => d.baseConfig === undefined || d.release !== undefined,
  }),
];

export const Distribution = withRules(
  z
    .strictObject({
      name: z
        .string()
        .min(1)
        .max(63)
        .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, "must be a distribution name such as starter")
        .optional()
        .describe(
          "Name of a Llama Stack distribution known to llsd-hook (configs/distributions.json), e.g. starter or postgres-demo. Its image and its own config.yaml are the base of the generated config.",
        ),
      release: z
        .string()
        .min(1)
        .max(32)
        .regex(/^\d+\.\d+\.\d+$/, "must be a Llama Stack release such as 0.7.3")
        .optional()
        .describe(
          "Llama Stack release of the named distribution, e.g. 1.5.0. Default: the newest supported release that ships the distribution. With image and baseConfig: required, the release the image runs.",
        ),
      image: z
        .string()
        .min(1)
        .max(LIMITS.shortString)
        .optional()
        .describe(
          "A custom Llama Stack image. It needs baseConfig (its own config.yaml, with release) or spec.overrideConfig.",
        ),
      baseConfig: BaseConfig.optional(),
    })
    .describe(
      "Which Llama Stack distribution to run: a known name (optionally with a release), or an image with its base config and release, or an image with spec.overrideConfig.",
    ),
  distributionRules,
);
export type Distribution = z.infer<typeof Distribution>;
