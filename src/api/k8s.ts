// Embedded Kubernetes types (resources, env, volumes, ...) validated against
// the schemas extracted from the pinned Kubernetes release
// (scripts/k8s-schemas.ts → k8s-schemas.json), never hand-typed. The same
// schema object goes into the CRD.
import { z } from "zod";
import { validateAgainstSchema, type JsonSchema } from "../lib/jsonschema.js";
import type { Json } from "../lib/json.js";
import schemas from "./k8s-schemas.json" with { type: "json" };

export type EmbeddedType = keyof typeof schemas.types;

/** The CRD generator replaces a node carrying this metadata with the given schema. */
export const CRD_SCHEMA_META_KEY = "x-llsd-crd-schema";

function k8sSchema(name: EmbeddedType): JsonSchema {
  return schemas.types[name];
}

/** A value of an embedded core/v1 type, typed T (from kubernetes-types). */
export function k8sType<T>(name: EmbeddedType) {
  const schema = k8sSchema(name);
  return z
    .custom<T>((v) => v !== undefined)
    .superRefine((value, ctx) => {
      for (const e of validateAgainstSchema(schema, value as Json)) {
        ctx.addIssue({ code: "custom", path: e.path, message: e.message });
      }
    })
    .meta({ [CRD_SCHEMA_META_KEY]: schema });
}
