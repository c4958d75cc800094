// What the status of a converted object should say about the v1alpha1 fields
// its annotation keeps without applying them: a ConfigMap in another namespace
// (no safe v1alpha2 meaning: an error, so that nothing changes), a CA bundle
// spec.trust.caBundle cannot take, and fields whose v1alpha2 home is only
// planned (warnings). Pure: observe() calls it with the parent, and resolve()
// reports the errors as the spec's problems and the warnings with the others
// (each reason a condition of the status).
import { isObject, own, formatPath, type JsonObject } from "../lib/json.js";
import { msg } from "../messages.js";
import { type Problem, type Warning } from "../problems.js";
import { Reason } from "../reasons.js";
import { V1ALPHA1_FIELDS_ANNOTATION, annotationOf } from "./annotations.js";
import { OBJECT_BOUNDS } from "./convert.js";
import { getAt, pathOf } from "./json-path.js";
import { namespaceOf } from "./reader.js";
import { decodeRestore, treeOf } from "./restore.js";
import { FIELD_RULES } from "./table.js";

/** A note is a Problem or a Warning: the status reports it like any other (src/resolve.ts). */
export interface ConversionNotes {
  /** The object must not run as it is (the hook keeps what runs). */
  errors: Problem[];
  warnings: Warning[];
}

/** Notes for a v1alpha2 object from its llamastack.io/v1alpha1-fields annotation. */
export function conversionNotes(obj: JsonObject): ConversionNotes {
  const notes: ConversionNotes = { errors: [], warnings: [] };
  const text = annotationOf(obj, V1ALPHA1_FIELDS_ANNOTATION);
  if (typeof text !== "string") return notes;
  const decoded = decodeRestore(text, OBJECT_BOUNDS);
  if ("error" in decoded) return notes;
  const kept = treeOf(decoded.entries);
  const at = formatPath(["metadata", "annotations", V1ALPHA1_FIELDS_ANNOTATION]);
  const userConfig = getAt(kept, pathOf("spec.server.userConfig"));
  const spec = own(obj, "spec");
  const hasOverride = isObject(spec) && own(spec, "overrideConfig") !== undefined;
  if (isObject(userConfig) && !hasOverride) {
    const name = own(userConfig, "configMapName");
    const namespace = own(userConfig, "configMapNamespace");
    if (typeof name === "string" && typeof namespace === "string" && name !== "")
      notes.errors.push({
        reason: Reason.CrossNamespaceConfigMap,
        path: "spec.overrideConfig",
        detail: msg.crossNamespaceConfigMap(namespace, name, namespaceOf(obj) ?? ""),
      });
  }
  const caBundle = getAt(kept, pathOf("spec.server.tlsConfig.caBundle"));
  if (isObject(caBundle) && !(isObject(spec) && own(spec, "trust") !== undefined))
    notes.warnings.push({
      reason: Reason.FieldNotApplied,
      path: at,
      detail: msg.caBundleNotConverted(V1ALPHA1_FIELDS_ANNOTATION),
    });
  for (const rule of FIELD_RULES) {
    if (rule.v1alpha2 !== null || rule.planned === undefined) continue;
    if (getAt(kept, pathOf(rule.v1alpha1)) === undefined) continue;
    notes.warnings.push({
      reason: Reason.FieldNotApplied,
      path: at,
      detail: msg.plannedFieldNotApplied(rule.v1alpha1, rule.planned, V1ALPHA1_FIELDS_ANNOTATION),
    });
  }
  return notes;
}
