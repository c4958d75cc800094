// Where a Secret or ConfigMap holds its data. In a file of its own, without
// imports, so that the main thread's server/memo.ts reads it without loading
// the schemas.

/**
 * The fields of a Secret or ConfigMap whose keys the hook reads (resolve.ts),
 * never their values: also what the plan memo's key reads of a Secret
 * (server/memo.ts), so that the two cannot differ.
 */
export const KEYED_DATA_FIELDS = ["data", "stringData", "binaryData"] as const;
