// The field reference (docs/reference/llamastackdistribution.md): every field
// of the CRD's v1alpha2 schema — itself generated from the zod schema — with
// its type, bounds, default and description, as Markdown tables. Written by
// npm run crd beside the CRD and held to it by the same kind of staleness
// test. The embedded Kubernetes types (Volume, Affinity, ...) are named, not
// expanded: `kubectl explain` and the Kubernetes API reference document them.
import { customResourceDefinition } from "./crd.js";
import type { JsonSchema } from "../lib/jsonschema.js";
import schemas from "./k8s-schemas.json" with { type: "json" };

export const REFERENCE_FILE = "docs/reference/llamastackdistribution.md";

const EMBEDDED = new Map(
  Object.entries(schemas.types).map(([name, s]) => [JSON.stringify(s), name] as const),
);

function embeddedName(node: JsonSchema): string | undefined {
  return EMBEDDED.get(JSON.stringify(node));
}

const cell = (text: string) => text.replace(/\s*\n\s*/g, " ").replace(/\|/g, "\\|");

/** `string`, `list of object`, `Kubernetes Volume`, ... */
function typeOf(node: JsonSchema): string {
  const k8s = embeddedName(node);
  if (k8s !== undefined) return `Kubernetes \`${k8s}\``;
  if (node["type"] === "array" && typeof node["items"] === "object")
    return `list of ${typeOf(node["items"] as JsonSchema)}`;
  if (node["type"] === "object" && typeof node["additionalProperties"] === "object")
    return `map of ${typeOf(node["additionalProperties"] as JsonSchema)}`;
  if (node["x-kubernetes-preserve-unknown-fields"] === true) return "any JSON";
  return typeof node["type"] === "string" ? node["type"] : "any";
}

/** Enum, bounds, pattern and default, as short phrases. */
function constraints(node: JsonSchema): string[] {
  const out: string[] = [];
  const show = (v: unknown) => `\`${JSON.stringify(v)}\``;
  if (Array.isArray(node["enum"])) out.push(`one of ${node["enum"].map(show).join(", ")}`);
  const bounds: [string, string][] = [
    ["minimum", "≥"],
    ["maximum", "≤"],
    ["minLength", "length ≥"],
    ["maxLength", "length ≤"],
    ["minItems", "items ≥"],
    ["maxItems", "items ≤"],
    ["maxProperties", "entries ≤"],
  ];
  for (const [key, word] of bounds)
    if (typeof node[key] === "number") out.push(`${word} ${String(node[key])}`);
  if (node["default"] !== undefined) out.push(`default ${show(node["default"])}`);
  return out;
}

interface Row {
  path: string;
  type: string;
  required: boolean;
  constraints: string[];
  description: string;
}

function rows(node: JsonSchema, path: string, out: Row[]): void {
  const required = new Set(Array.isArray(node["required"]) ? (node["required"] as string[]) : []);
  for (const [key, child] of Object.entries(
    (node["properties"] ?? {}) as Record<string, JsonSchema>,
  )) {
    const at = `${path}.${key}`;
    out.push({
      path: at,
      type: typeOf(child),
      required: required.has(key),
      constraints: constraints(child),
      description: typeof child["description"] === "string" ? child["description"] : "",
    });
    if (embeddedName(child) !== undefined) continue;
    rows(child, at, out);
    const items = child["items"] as JsonSchema | undefined;
    if (child["type"] === "array" && items !== undefined && embeddedName(items) === undefined)
      rows(items, `${at}[]`, out);
    const values = child["additionalProperties"];
    if (typeof values === "object" && values !== null) rows(values as JsonSchema, `${at}{}`, out);
  }
}

function table(title: string, node: JsonSchema, path: string): string {
  const all: Row[] = [];
  rows(node, path, all);
  const lines = all.map(
    (r) =>
      `| \`${r.path}\` | ${[r.type, ...(r.required ? ["required"] : []), ...r.constraints].map(cell).join("; ")} | ${cell(r.description)} |`,
  );
  return [
    `## ${title}`,
    "",
    "| field | type | description |",
    "| --- | --- | --- |",
    ...lines,
  ].join("\n");
}

/** The reference page for the v1alpha2 schema of the generated CRD object. */
function renderReference(openAPIV3Schema: JsonSchema): string {
  const props = openAPIV3Schema["properties"] as Record<string, JsonSchema>;
  return [
    "# LlamaStackDistribution field reference",
    "",
    "<!-- Generated from src/api (zod) by npm run crd; do not edit. -->",
    "",
    "`llamastack.io/v1alpha2`. Every field of the CRD's schema, with the description",
    "`kubectl explain llamastackdistribution.spec` shows. Rules across fields (an id for every",
    "provider when there are several, shared storage for several replicas, ...) are checked at",
    "apply time and by the hook; the [guide](../README.md) explains each part.",
    "",
    table("spec", props["spec"] ?? {}, "spec"),
    "",
    table("status", props["status"] ?? {}, "status"),
    "",
  ].join("\n");
}

/** The reference page of the CRD npm run crd writes. */
export function referenceOfCrd(): string {
  const crd = customResourceDefinition() as unknown as {
    spec: { versions: { schema: { openAPIV3Schema: JsonSchema } }[] };
  };
  const schema = crd.spec.versions[0]?.schema.openAPIV3Schema;
  if (schema === undefined) throw new Error("the CRD has no version");
  return renderReference(schema);
}
