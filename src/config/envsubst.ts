// Llama Stack's `${env.NAME}` placeholders (replace_env_vars in
// llama_stack/core/stack.py): `${env.X}` (bare: X must be set or startup
// aborts), `${env.X:=default}` and `${env.X:+value-if-set}`. NAME is [A-Z0-9_]+.

import { isObject, type Json } from "../lib/json.js";
import type { ValidateOptions } from "../lib/jsonschema.js";

const PLACEHOLDER = /\$\{env\.([A-Z0-9_]+)(?::([=+])([^}]*))?\}/g;

export interface Placeholder {
  name: string;
  operator: "" | "=" | "+";
  argument: string;
}

export function placeholdersIn(text: string): Placeholder[] {
  return [...text.matchAll(PLACEHOLDER)].map((m) => ({
    name: m[1] ?? "",
    operator: m[2] === "=" || m[2] === "+" ? m[2] : "",
    argument: m[3] ?? "",
  }));
}

/** `text` with each placeholder replaced by what `value` makes of it. */
export function substitute(text: string, value: (p: Placeholder) => string): string {
  return text.replace(PLACEHOLDER, (_match, name: string, op?: string, argument?: string) =>
    value({ name, operator: op === "=" || op === "+" ? op : "", argument: argument ?? "" }),
  );
}

export function hasPlaceholder(text: string): boolean {
  return placeholdersIn(text).length > 0;
}

/** `${env.NAME}`: how a generated config refers to a container env var. */
/** How a Llama Stack config is checked against its schema: a placeholder passes any scalar type. */
export const LLAMA_STACK_VALUES: ValidateOptions = { isDeferred: hasPlaceholder };

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

/** Every bare `${env.X}` in a document, with where it is, in document order. */
export function barePlaceholders(
  doc: Json,
  path: readonly (string | number)[] = [],
): { name: string; path: (string | number)[] }[] {
  const found: { name: string; path: (string | number)[] }[] = [];
  collectBare(doc, [...path], found);
  return found;
}

/** Walks `node` at `path` (a stack it restores), appending each bare placeholder to `found`. */
function collectBare(
  node: Json,
  path: (string | number)[],
  found: { name: string; path: (string | number)[] }[],
): void {
  if (typeof node === "string") {
    if (!node.includes("${env.")) return;
    for (const m of node.matchAll(PLACEHOLDER))
      if (m[2] === undefined) found.push({ name: m[1] ?? "", path: [...path] });
  } else if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) {
      path.push(i);
      collectBare(node[i] ?? null, path, found);
      path.pop();
    }
  } else if (isObject(node)) {
    for (const key of Object.keys(node)) {
      path.push(key);
      collectBare(node[key] ?? null, path, found);
      path.pop();
    }
  }
}
