// Builds the CustomResourceDefinition from the zod schema: structure,
// descriptions, defaults and bounds from zod, the CEL rules attached with
// withRules(), the embedded core/v1 schemas from k8s-schemas.json.
// scripts/generate-crd.ts writes it to manifests/crd/; a test fails when the
// committed file is stale.
import { z } from "zod";
import type { JsonSchema } from "../lib/jsonschema.js";
import { CRD_SCHEMA_META_KEY } from "./k8s.js";
import { V1ALPHA1, V1ALPHA1_API_VERSION, V1alpha1LlamaStackDistribution } from "./v1alpha1.js";
import { API_VERSION, GROUP, KIND, LlamaStackDistribution, PLURAL, VERSION } from "./schema.js";

function overrideFor(
  meta: Record<string, unknown> | undefined,
  generated: JsonSchema,
): JsonSchema | undefined {
  if (meta === undefined) return undefined;
  const description = meta["description"] ?? generated["description"];
  const withDescription = (s: JsonSchema): JsonSchema =>
    description === undefined ? s : { ...s, description };
  if (meta[CRD_SCHEMA_META_KEY] !== undefined)
    return withDescription(meta[CRD_SCHEMA_META_KEY] as JsonSchema);
  if (meta["x-kubernetes-int-or-string"] === true) {
    return withDescription({
      "x-kubernetes-int-or-string": true,
      anyOf: [{ type: "integer" }, { type: "string" }],
    });
  }
  if (meta["x-kubernetes-preserve-unknown-fields"] === true) {
    const out: JsonSchema = { type: "object", "x-kubernetes-preserve-unknown-fields": true };
    if (meta["maxProperties"] !== undefined) out["maxProperties"] = meta["maxProperties"];
    return withDescription(out);
  }
  return undefined;
}

/** zod's `looseObject` in JSON schema: properties plus an empty additionalProperties. */
function isLooseObject(node: JsonSchema): boolean {
  const extra = node["additionalProperties"];
  return (
    node["properties"] !== undefined &&
    typeof extra === "object" &&
    extra !== null &&
    Object.keys(extra).length === 0
  );
}

/** The bounds Kubernetes needs to price CEL rules; only a strict (v1alpha2) schema must have them. */
function checkBounds(out: JsonSchema, path: string, problems: string[]): void {
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
}

/**
 * Makes zod's JSON schema structural (Kubernetes' rules) and checks every bound
 * is set. `loose` (v1alpha1, the retired operator's objects): a looseObject
 * keeps unknown fields (x-kubernetes-preserve-unknown-fields) instead of being
 * refused, and bounds are not required (that version has no costly CEL rules).
 */
function structural(node: JsonSchema, path: string, problems: string[], loose = false): JsonSchema {
  const out: JsonSchema = {};
  const preserve = loose && isLooseObject(node);
  for (const [key, value] of Object.entries(node)) {
    if (key === "$schema" || key === "propertyNames" || key === "id") continue;
    if (key === "additionalProperties" && (value === false || preserve)) continue;
    if (key === "properties") {
      out[key] = Object.fromEntries(
        Object.entries(value as Record<string, JsonSchema>).map(([k, v]) => [
          k,
          structural(v, `${path}.${k}`, problems, loose),
        ]),
      );
    } else if (key === "items" || (key === "additionalProperties" && typeof value === "object")) {
      out[key] = structural(value as JsonSchema, `${path}[]`, problems, loose);
    } else {
      out[key] = value;
    }
  }
  if (preserve) out["x-kubernetes-preserve-unknown-fields"] = true;
  if (!loose) checkBounds(out, path, problems);
  return out;
}

/** zod's JSON schema of `schema`, with the CRD overrides of its metadata applied. */
function jsonSchemaOf(schema: z.ZodType): JsonSchema {
  return z.toJSONSchema(schema, {
    target: "openapi-3.0",
    io: "input",
    unrepresentable: "any",
    reused: "inline",
    override: (ctx) => {
      const meta = z.globalRegistry.get(ctx.zodSchema as unknown as z.ZodType);
      const replacement = overrideFor(meta, ctx.jsonSchema);
      if (replacement === undefined) return;
      for (const k of Object.keys(ctx.jsonSchema)) delete ctx.jsonSchema[k];
      Object.assign(ctx.jsonSchema, replacement);
    },
  });
}

function openApiSchema(): JsonSchema {
  const json = jsonSchemaOf(LlamaStackDistribution);
  const problems: string[] = [];
  const props = json["properties"] as Record<string, JsonSchema>;
  const root: JsonSchema = {
    type: "object",
    description: json["description"],
    required: ["spec"],
    properties: {
      apiVersion: { type: "string", description: `${API_VERSION}` },
      kind: { type: "string", description: KIND },
      // Only name (and generateName) may be constrained here; declaring it lets
      // the name rule report at metadata.name.
      metadata: { type: "object", properties: { name: { type: "string", maxLength: 253 } } },
      spec: structural(props["spec"] as JsonSchema, "spec", problems),
      status: structural(props["status"] as JsonSchema, "status", problems),
    },
    "x-kubernetes-validations": json["x-kubernetes-validations"],
  };
  if (problems.length > 0)
    throw new Error(`the zod schema does not make a bounded CRD:\n${problems.join("\n")}`);
  return root;
}

export function customResourceDefinition(): JsonSchema {
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
            // Why it is not Ready (the reasons table in docs/operations/status.md).
            {
              name: "Reason",
              type: "string",
              jsonPath: '.status.conditions[?(@.type=="Ready")].reason',
            },
            { name: "Age", type: "date", jsonPath: ".metadata.creationTimestamp" },
            // kubectl get -o wide only.
            {
              name: "Image",
              type: "string",
              priority: 1,
              jsonPath: ".status.resolvedDistribution.image",
            },
            { name: "URL", type: "string", priority: 1, jsonPath: ".status.serviceURL" },
          ],
          schema: { openAPIV3Schema: openApiSchema() },
        },
      ],
    },
  };
}

/**
 * The service the API server calls for conversions: its api-server port
 * (manifests/hook/service.yaml), the port of the API server's endpoints
 * (src/server/classes.ts API_SERVER_CLASS), not the hook's.
 */
const CONVERT_SERVICE = { namespace: "llsd-hook", name: "llsd-hook", port: 9443, path: "/convert" };
/** cert-manager's Certificate whose CA the CRD's caBundle takes (examples/https). */
const SERVING_CERTIFICATE = "llsd-hook/llsd-hook-tls";

/** The v1alpha1 version's schema: the retired operator's fields, unknown fields kept. */
function v1alpha1Schema(): JsonSchema {
  const json = jsonSchemaOf(V1alpha1LlamaStackDistribution);
  const props = json["properties"] as Record<string, JsonSchema>;
  const problems: string[] = [];
  return {
    type: "object",
    description: `${KIND} at ${V1ALPHA1_API_VERSION}, the retired llama-stack-k8s-operator's version; served by conversion to ${API_VERSION} (docs/conversion.md).`,
    required: ["spec"],
    properties: {
      apiVersion: { type: "string", description: V1ALPHA1_API_VERSION },
      kind: { type: "string", description: KIND },
      metadata: { type: "object" },
      spec: structural(props["spec"] as JsonSchema, "spec", problems, true),
      status: structural(props["status"] as JsonSchema, "status", problems, true),
    },
  };
}

/** The CRD's v1alpha1 version: served, not stored. */
function v1alpha1Version(): JsonSchema {
  return {
    name: V1ALPHA1,
    served: true,
    storage: false,
    deprecated: true,
    deprecationWarning: `${V1ALPHA1_API_VERSION} ${KIND} is converted to ${API_VERSION} by llsd-hook; use ${API_VERSION}`,
    subresources: { status: {} },
    additionalPrinterColumns: [
      { name: "Phase", type: "string", jsonPath: ".status.phase" },
      { name: "Age", type: "date", jsonPath: ".metadata.creationTimestamp" },
    ],
    schema: { openAPIV3Schema: v1alpha1Schema() },
  };
}

/**
 * The JSON patch (RFC 6902) that manifests/components/v1alpha1 applies to the
 * CRD: serve v1alpha1 too, converted by the hook's POST /convert over HTTPS,
 * with cert-manager injecting the serving certificate's CA as the caBundle.
 */
export function conversionPatch(): JsonSchema[] {
  return [
    { op: "add", path: "/spec/versions/-", value: v1alpha1Version() },
    {
      op: "add",
      path: "/spec/conversion",
      value: {
        strategy: "Webhook",
        webhook: {
          conversionReviewVersions: ["v1"],
          clientConfig: { service: CONVERT_SERVICE },
        },
      },
    },
    {
      op: "add",
      path: "/metadata/annotations",
      value: { "cert-manager.io/inject-ca-from": SERVING_CERTIFICATE },
    },
  ];
}
