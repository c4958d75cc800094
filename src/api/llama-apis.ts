// The Llama Stack APIs a LlamaStackDistribution can configure or disable: the
// union of the provider APIs of every supported release (configs/releases.json).
// test/unit/api/llama-apis.test.ts checks this list against configs/*/registry.json,
// so a new release cannot add or drop an API without this file following.

export const LLAMA_APIS = [
  "agents",
  "batches",
  "container_runtime",
  "datasetio",
  "eval",
  "file_processors",
  "files",
  "inference",
  "interactions",
  "messages",
  "post_training",
  "responses",
  "safety",
  "scoring",
  "skills",
  "tool_runtime",
  "vector_io",
] as const;

export type LlamaApi = (typeof LLAMA_APIS)[number];

/** `vector_io` → `vectorIo`: the spec's key for a Llama Stack API. */
export function specKeyOf(api: string): string {
  return api.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
}

/** `vectorIo` → `vector_io`. */
export function apiOfSpecKey(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

export const SPEC_API_KEYS = LLAMA_APIS.map(specKeyOf);
