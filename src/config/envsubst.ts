// Llama Stack's `${env.NAME}` placeholders (replace_env_vars in
// llama_stack/core/stack.py): `${env.X}` (bare: X must be set or startup
// aborts), `${env.X:=default}` and `${env.X:+value-if-set}`. NAME is [A-Z0-9_]+.

import { isObject, type Json } from "./json.js";

const PLACEHOLDER = /\$\{env\.([A-Z0-9_]+)(?::([=+])([^}]*))?\}/g;

export interface Placeholder {
  name: string;
  operator: "" | "=" | "+";
  argument: string;
}

export function placeholdersIn(text: string): Placeholder[] {
  return [...text.matchAll(PLACEHOLDER)].map((m) => ({
    name: m[1] ?? "",
    operator: (m[2] ?? "") as Placeholder["operator"],
    argument: m[3] ?? "",
  }));
}

export function hasPlaceholder(text: string): boolean {
  return placeholdersIn(text).length > 0;
}

/** `${env.NAME}`: how a generated config refers to a container env var. */
export function envRef(name: string): string {
  return `\${env.${name}}`;
}

/**
 * A provider id of the form `${env.X:+id}` is enabled only when X is set;
 * for matching it counts as `id`.
 */
export function conditionalId(providerId: string): { id: string; envVar: string } | undefined {
  const m = /^\$\{env\.([A-Z0-9_]+):\+([^}]*)\}$/.exec(providerId);
  if (m === null) return undefined;
  return { id: m[2] ?? "", envVar: m[1] ?? "" };
}

/** Every bare `${env.X}` in a document, with where it is. */
export function barePlaceholders(
  doc: Json,
  path: (string | number)[] = [],
): { name: string; path: (string | number)[] }[] {
  if (typeof doc === "string") {
    return placeholdersIn(doc)
      .filter((p) => p.operator === "")
      .map((p) => ({ name: p.name, path }));
  }
  if (Array.isArray(doc)) return doc.flatMap((v, i) => barePlaceholders(v, [...path, i]));
  if (isObject(doc))
    return Object.entries(doc).flatMap(([k, v]) => barePlaceholders(v, [...path, k]));
  return [];
}
