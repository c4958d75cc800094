// Extracts the schemas of the core/v1 types the LlamaStackDistribution embeds
// (resources, env, volumes, tolerations, affinity, topology spread, ...) from
// the OpenAPI document of the pinned Kubernetes release (the k8s.io/kubernetes
// module the test control plane is built from), inlined into structural CRD
// schemas. npm run k8s-schemas:update writes src/api/k8s-schemas.json; a test
// fails when it is stale.
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const EMBEDDED_TYPES = {
  ResourceRequirements: "io.k8s.api.core.v1.ResourceRequirements",
  EnvVar: "io.k8s.api.core.v1.EnvVar",
  Volume: "io.k8s.api.core.v1.Volume",
  VolumeMount: "io.k8s.api.core.v1.VolumeMount",
  Toleration: "io.k8s.api.core.v1.Toleration",
  Affinity: "io.k8s.api.core.v1.Affinity",
  TopologySpreadConstraint: "io.k8s.api.core.v1.TopologySpreadConstraint",
  LocalObjectReference: "io.k8s.api.core.v1.LocalObjectReference",
} as const;

/** Bounds added where upstream has none, so CEL cost estimates stay finite. */
export const DEFAULT_MAX_ITEMS = 256;
export const DEFAULT_MAX_LENGTH = 65536;
const ALLOWED_EXTENSIONS = new Set([
  "x-kubernetes-preserve-unknown-fields",
  "x-kubernetes-int-or-string",
  "x-kubernetes-list-map-keys",
  "x-kubernetes-list-type",
  "x-kubernetes-map-type",
  "x-kubernetes-embedded-resource",
]);

type Schema = Record<string, unknown>;

/** Quantity and IntOrString: `oneOf` in OpenAPI, the int-or-string form in a structural schema. */
const INT_OR_STRING_TYPES: Record<string, Schema> = {
  "io.k8s.apimachinery.pkg.api.resource.Quantity": {
    "x-kubernetes-int-or-string": true,
    anyOf: [{ type: "integer" }, { type: "string" }],
    pattern:
      "^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$",
  },
  "io.k8s.apimachinery.pkg.util.intstr.IntOrString": {
    "x-kubernetes-int-or-string": true,
    anyOf: [{ type: "integer" }, { type: "string" }],
  },
};
const root = join(import.meta.dirname, "..");

function openApiPath(): string {
  const version = readFileSync(join(root, "test", "k8s", "KUBERNETES_VERSION"), "utf8").trim();
  const out = execFileSync("go", ["mod", "download", "-json", `k8s.io/kubernetes@${version}`], {
    cwd: join(root, "test", "k8s"),
    env: { ...process.env, GOTOOLCHAIN: "local", GOFLAGS: "-mod=mod" },
    encoding: "utf8",
  });
  const dir = (JSON.parse(out) as { Dir: string }).Dir;
  return join(dir, "api", "openapi-spec", "v3", "api__v1_openapi.json");
}

function inline(schemas: Record<string, Schema>, node: Schema, stack: string[]): Schema {
  // Kubernetes' OpenAPI marks Go zero values as defaults ("", {}, 0). A CRD
  // applies and validates defaults, which would change what an embedded value
  // means (and {} is invalid for types with required fields); the API server
  // defaults the real objects the hook creates anyway.
  let s: Schema = Object.fromEntries(Object.entries(node).filter(([k]) => k !== "default"));
  const description = s["description"];
  const allOf = s["allOf"] as Schema[] | undefined;
  if (allOf !== undefined && allOf.length === 1 && typeof allOf[0]?.["$ref"] === "string") {
    const rest: Schema = { ...s };
    delete rest["allOf"];
    s = { ...allOf[0], ...rest };
  }
  const ref = s["$ref"];
  if (typeof ref === "string") {
    const name = ref.replace("#/components/schemas/", "");
    if (stack.includes(name)) throw new Error(`recursive type ${name} cannot be inlined`);
    const target = schemas[name];
    if (target === undefined) throw new Error(`unknown type ${name}`);
    const resolved = INT_OR_STRING_TYPES[name] ?? inline(schemas, target, [...stack, name]);
    const rest: Schema = { ...s };
    delete rest["$ref"];
    s = { ...resolved, ...rest };
    if (description !== undefined) s["description"] = description;
    return s;
  }
  const out: Schema = {};
  for (const [key, value] of Object.entries(s)) {
    if (key.startsWith("x-") && !ALLOWED_EXTENSIONS.has(key)) continue;
    if (key === "properties") {
      out[key] = Object.fromEntries(
        Object.entries(value as Record<string, Schema>).map(([k, v]) => [
          k,
          inline(schemas, v, stack),
        ]),
      );
    } else if (key === "items" || (key === "additionalProperties" && typeof value === "object")) {
      out[key] = inline(schemas, value as Schema, stack);
    } else {
      out[key] = value;
    }
  }
  if (out["type"] === "array" && out["maxItems"] === undefined) out["maxItems"] = DEFAULT_MAX_ITEMS;
  if (
    out["type"] === "object" &&
    out["additionalProperties"] !== undefined &&
    out["maxProperties"] === undefined
  ) {
    out["maxProperties"] = DEFAULT_MAX_ITEMS;
  }
  if (
    out["type"] === "string" &&
    out["maxLength"] === undefined &&
    out["enum"] === undefined &&
    out["format"] === undefined
  ) {
    out["maxLength"] = DEFAULT_MAX_LENGTH;
  }
  return out;
}

export function extract(openapiFile: string): Record<string, Schema> {
  const doc = JSON.parse(readFileSync(openapiFile, "utf8")) as {
    components: { schemas: Record<string, Schema> };
  };
  const schemas = doc.components.schemas;
  return Object.fromEntries(
    Object.entries(EMBEDDED_TYPES).map(([name, id]) => [
      name,
      inline(schemas, schemas[id] as Schema, [id]),
    ]),
  );
}

export const SCHEMAS_FILE = join(root, "src", "api", "k8s-schemas.json");

/** The file's text as the extraction writes it (the suite checks the committed one). */
export function renderSchemas(): { text: string; types: number } {
  const version = readFileSync(join(root, "test", "k8s", "KUBERNETES_VERSION"), "utf8").trim();
  const out = {
    $comment: `Extracted from k8s.io/kubernetes ${version} api/openapi-spec/v3/api__v1_openapi.json by scripts/k8s-schemas.ts; do not edit.`,
    kubernetesVersion: version,
    types: extract(openApiPath()),
  };
  return { text: `${JSON.stringify(out, null, 1)}\n`, types: Object.keys(out.types).length };
}

if (process.argv[1] !== undefined && import.meta.filename === process.argv[1]) {
  const { text, types } = renderSchemas();
  writeFileSync(SCHEMAS_FILE, text);
  console.log(`wrote src/api/k8s-schemas.json (${types} types)`);
}
