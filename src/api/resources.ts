// spec.resources: the models, shields and tool groups registered at startup.
import { z } from "zod";
import { JsonValue, LIMITS } from "./fields.js";

const Model = z
  .strictObject({
    name: z
      .string()
      .min(1)
      .max(LIMITS.shortString)
      .describe("model_id. Llama Stack serves it as <provider id>/<providerModelId or name>."),
    provider: z
      .string()
      .min(1)
      .max(63)
      .optional()
      .describe(
        "Id of an enabled inference provider in the generated config. Default: the first inference provider the spec declares.",
      ),
    providerModelId: z
      .string()
      .min(1)
      .max(LIMITS.shortString)
      .optional()
      .describe("The model's name at the provider, when it differs from name."),
    modelType: z
      .enum(["llm", "embedding", "rerank"])
      .optional()
      .describe("llm (default), embedding (needs metadata.embedding_dimension) or rerank."),
    metadata: z
      .record(z.string(), JsonValue)
      .optional()
      .describe("Free-form model metadata, e.g. embedding_dimension: 768.")
      .meta({ "x-kubernetes-preserve-unknown-fields": true, maxProperties: 32 }),
  })
  .describe("A model registered at startup.");
type Model = z.infer<typeof Model>;

export const Resources = z
  .strictObject({
    models: z.array(Model).min(1).max(LIMITS.models).optional().describe("Models to register."),
    shields: z
      .array(z.string().min(1).max(LIMITS.shortString))
      .min(1)
      .max(LIMITS.shields)
      .optional()
      .describe(
        "Shields to register, with the first safety provider the spec declares; each name is also the provider's shield id (the guard model).",
      ),
    tools: z
      .array(z.string().min(1).max(LIMITS.shortString))
      .min(1)
      .max(LIMITS.tools)
      .optional()
      .describe(
        "Tool groups to register (websearch → builtin::websearch). Only releases that register tool groups (0.6 and older); on 0.7 tools come from toolRuntime providers.",
      ),
  })
  .describe("Resources registered at startup, added to the distribution's own.");
export type Resources = z.infer<typeof Resources>;
