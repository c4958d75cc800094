// The two annotations that carry what one version has no field for, and the
// 256 KiB that Kubernetes allows for all annotations of one object.
import { ANNOTATIONS_LIMIT } from "../api/budget.js";
import { isObject, own, type Json, type JsonObject } from "../lib/json.js";

/** On a v1alpha2 object: the v1alpha1 fields v1alpha2 has no home for, as a restore list. */
export const V1ALPHA1_FIELDS_ANNOTATION = "llamastack.io/v1alpha1-fields";
/** On a v1alpha1 object: the v1alpha2 fields v1alpha1 has no home for, as a restore list. */
export const V1ALPHA2_FIELDS_ANNOTATION = "llamastack.io/v1alpha2-fields";

export { ANNOTATIONS_LIMIT };

function annotationsOf(obj: JsonObject): JsonObject | undefined {
  const metadata = own(obj, "metadata");
  const annotations = isObject(metadata) ? own(metadata, "annotations") : undefined;
  return isObject(annotations) ? annotations : undefined;
}

export function annotationOf(obj: JsonObject, key: string): Json | undefined {
  return own(annotationsOf(obj) ?? {}, key);
}

/** A copy of `obj` with the annotation set (metadata and annotations created when missing). */
export function withAnnotation(obj: JsonObject, key: string, value: string): JsonObject {
  const metadata = own(obj, "metadata");
  const base = isObject(metadata) ? metadata : {};
  return {
    ...obj,
    metadata: { ...base, annotations: { ...(annotationsOf(obj) ?? {}), [key]: value } },
  };
}

/**
 * A copy of `obj` without the annotation. When it was the only one, the
 * annotations go too: that is how withAnnotation found the object.
 */
export function withoutAnnotation(obj: JsonObject, key: string): JsonObject {
  const metadata = own(obj, "metadata");
  const annotations = annotationsOf(obj);
  if (!isObject(metadata) || annotations === undefined || !Object.hasOwn(annotations, key))
    return obj;
  const rest = Object.fromEntries(Object.entries(annotations).filter(([k]) => k !== key));
  const others = Object.fromEntries(Object.entries(metadata).filter(([k]) => k !== "annotations"));
  return {
    ...obj,
    metadata: Object.keys(rest).length === 0 ? others : { ...others, annotations: rest },
  };
}

/** Bytes of all annotations as the API server counts them (keys and values). */
export function annotationBytes(obj: JsonObject): number {
  let bytes = 0;
  for (const [key, value] of Object.entries(annotationsOf(obj) ?? {})) {
    bytes += Buffer.byteLength(key, "utf8");
    bytes += Buffer.byteLength(typeof value === "string" ? value : JSON.stringify(value), "utf8");
  }
  return bytes;
}
