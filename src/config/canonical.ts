// Canonical config.yaml: the same config always gives the same bytes, so its
// hash (and the ConfigMap name) only changes when the config does. Keys are
// sorted, except where a fixed order reads better (top level, provider
// entries); list order is kept, because it means something (the first
// inference provider, the order of providers).
import { createHash } from "node:crypto";
import { stringify } from "yaml";
import { isObject, type Json, type JsonObject } from "./json.js";

const TOP_LEVEL_ORDER = [
  "version",
  "distro_name",
  "image_name",
  "apis",
  "providers",
  "storage",
  "registered_resources",
  "server",
  "vector_stores",
  "safety",
  "connectors",
];
const PROVIDER_ORDER = ["provider_id", "provider_type", "module", "config"];

function ordered(keys: string[], preferred: readonly string[]): string[] {
  const first = preferred.filter((k) => keys.includes(k));
  const rest = keys.filter((k) => !preferred.includes(k)).sort();
  return [...first, ...rest];
}

function canonicalNode(value: Json, preferred: readonly string[] = []): Json {
  if (Array.isArray(value)) return value.map((v) => canonicalNode(v));
  if (!isObject(value)) return value;
  const out: JsonObject = {};
  const isProvider = Object.hasOwn(value, "provider_id") && Object.hasOwn(value, "provider_type");
  for (const key of ordered(Object.keys(value), isProvider ? PROVIDER_ORDER : preferred)) {
    const child = value[key];
    if (child === undefined) continue;
    out[key] = canonicalNode(child);
  }
  return out;
}

/** A canonical copy of a config document. */
export function canonicalize(config: JsonObject): JsonObject {
  return canonicalNode(config, TOP_LEVEL_ORDER) as JsonObject;
}

/** Fixed YAML options: every document llsd-hook writes uses these. */
export const YAML_OPTIONS = {
  version: "1.1",
  lineWidth: 0,
  minContentWidth: 0,
  indentSeq: true,
  aliasDuplicateObjects: false,
} as const;

export function toCanonicalYaml(config: JsonObject): string {
  return stringify(canonicalize(config), YAML_OPTIONS);
}

export function sha256Hex(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}
