// Builds the CustomResourceDefinition from the zod schema: structure,
// descriptions, defaults and bounds from zod, the CEL rules attached with
// withRules(), the embedded core/v1 schemas from k8s-schemas.json.
// scripts/generate-crd.ts writes it to manifests/crd/; a test fails when the
// committed file is stale.
import { z } from "zod";
import { CRD_SCHEMA_META_KEY } from "./k8s.js";
import { API_VERSION, GROUP, KIND, LlamaStackDistribution, PLURAL, VERSION } from "./schema.js";

type Schema = Record<string, unknown>;

function overrideFor(
  meta: Record<string, unknown> | undefined,
  generated: Schema,
): Schema | undefined {
  if (meta === undefined) return undefined;
  const description = meta["description"] ?? generated["description"];
  const withDescription = (s: Schema): Schema =>
    description === undefined ? s : { ...s, description };
  if (meta[CRD_SCHEMA_META_KEY] !== undefined)
    return withDescription(meta[CRD_SCHEMA_META_KEY] as Schema);
  if (meta["x-kubernetes-int-or-string"] === true) {
    return withDescription({
      "x-kubernetes-int-or-string": true,
      anyOf: [{ type: "integer" }, { type: "string" }],
    });
  }
  if (meta["x-kubernetes-preserve-unknown-fields"] === true) {
    const out: Schema = { type: "object", "x-kubernetes-preserve-unknown-fields": true };
    if (meta["maxProperties"] !== undefined) out["maxProperties"] = meta["maxProperties"];
    return withDescription(out);
  }
  return undefined;
}

/** Makes zod's JSON schema structural (Kubernetes' rules) and checks every bound is set. */
function structural(node: Schema, path: string, problems: string[]): Schema {
  const out: Schema = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === "$schema" || key === "propertyNames" || key === "id") continue;
    if (key === "additionalProperties" && value === false) continue;
    if (key === "properties") {
      out[key] = Object.fromEntries(
        Object.entries(value as Record<string, Schema>).map(([k, v]) => [
          k,
          structural(v, `${path}.${k}`, problems),
        ]),
      );
    } else if (key === "items" || (key === "additionalProperties" && typeof value === "object")) {
      out[key] = structural(value as Schema, `${path}[]`, problems);
    } else {
      out[key] = value;
    }
  }
  if (out["type"] === "array" && out["maxItems"] === undefined)
    problems.push(`${path}: list without maxItems`);
  if (
    out["type"] === "string" &&
    out["maxLength"] === undefined &&
    out["enum"] === undefined &&
    out["format"] !== "date-time"
  ) {
    problems.push(`${path}: string without maxLength`);
  }
  if (
    out["type"] === "object" &&
    out["additionalProperties"] !== undefined &&
    out["maxProperties"] === undefined
  ) {
    problems.push(`${path}: map without maxProperties`);
  }
  return out;
}

function openApiSchema(): Schema {
  const json = z.toJSONSchema(LlamaStackDistribution, {
    target: "openapi-3.0",
    io: "input",
    unrepresentable: "any",
    reused: "inline",
    override: (ctx) => {
      const meta = z.globalRegistry.get(ctx.zodSchema as unknown as z.ZodType) as
        Record<string, unknown> | undefined;
      const replacement = overrideFor(meta, ctx.jsonSchema);
      if (replacement === undefined) return;
      for (const k of Object.keys(ctx.jsonSchema)) delete (ctx.jsonSchema as Schema)[k];
      Object.assign(ctx.jsonSchema, replacement);
    },
  }) as Schema;
  const problems: string[] = [];
  const props = json["properties"] as Record<string, Schema>;
  const root: Schema = {
    type: "object",
    description: json["description"],
    required: ["spec"],
    properties: {
      apiVersion: { type: "string", description: `${API_VERSION}` },
      kind: { type: "string", description: KIND },
      // Only name (and generateName) may be constrained here; declaring it lets
      // the name rule report at metadata.name.
      metadata: { type: "object", properties: { name: { type: "string", maxLength: 253 } } },
      spec: structural(props["spec"] as Schema, "spec", problems),
      status: structural(props["status"] as Schema, "status", problems),
    },
    "x-kubernetes-validations": json["x-kubernetes-validations"],
  };
  if (problems.length > 0)
    throw new Error(`the zod schema does not make a bounded CRD:\n${problems.join("\n")}`);
  return root;
}

export function customResourceDefinition(): Schema {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: {
      name: `${PLURAL}.${GROUP}`,
      labels: { "app.kubernetes.io/name": "llsd-hook", "app.kubernetes.io/part-of": "llama-stack" },
    },
    spec: {
      group: GROUP,
      names: {
        kind: KIND,
        listKind: `${KIND}List`,
        plural: PLURAL,
        singular: KIND.toLowerCase(),
        shortNames: ["llsd"],
      },
      scope: "Namespaced",
      versions: [
        {
          name: VERSION,
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: [
            { name: "Phase", type: "string", jsonPath: ".status.phase" },
            { name: "Distribution", type: "string", jsonPath: ".status.resolvedDistribution.name" },
            { name: "Release", type: "string", jsonPath: ".status.resolvedDistribution.release" },
            {
              name: "Ready",
              type: "string",
              jsonPath: '.status.conditions[?(@.type=="Ready")].status',
            },
            { name: "Age", type: "date", jsonPath: ".metadata.creationTimestamp" },
          ],
          schema: { openAPIV3Schema: openApiSchema() },
        },
      ],
    },
  };
}
