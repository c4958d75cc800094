// What was applied before — the only module that reads it. Metacontroller
// deletes every observed child the hook leaves out, so when the hook cannot
// (or must not) build a child afresh it returns the child as it was applied:
//   - every child, while the spec is invalid or a reference is missing;
//   - the ConfigMaps the pods may still mount, while a rollout runs;
//   - the PersistentVolumeClaim, after spec.workload.storage was removed.
//
// Everything in a child is user input: anyone with `edit` on it can rewrite its
// labels and its metacontroller.k8s.io/last-applied-configuration annotation.
// So one policy holds for all three cases:
//   1. The observed child must be one this parent may have: a declared child
//      kind and apiVersion, in the parent's namespace, with a name from
//      childNames for this parent.
//   2. What is kept is what Metacontroller applied: the last-applied
//      annotation, only if it parses to that same object (apiVersion, kind,
//      namespace, name) and is no deeper than anything the hook builds;
//      otherwise, under server-side apply, the live child projected onto its
//      field manager's Apply entry (managed-fields.ts: every value from the
//      live object). Content beyond identity is not checked: whoever can write
//      the record can already edit the live child.
//   3. Without a trustworthy annotation, a claim or a content-hashed ConfigMap
//      is rebuilt from the live object (identity from the observed child,
//      contents the pods already use) by its builder's module: claimFromLive
//      (pvc.ts), configMapFromLive (configmap.ts). Any other child cannot be kept.
//   4. A child that cannot be kept makes the whole answer a 409 naming it:
//      never a shorter list, since a dropped child is a deleted child.
import { msg } from "../messages.js";
import { LAST_APPLIED_ANNOTATION, type KubeObject } from "../api/hook.js";
import { isObject, own, type JsonObject } from "../lib/json.js";
import { textMemo } from "../lib/text-memo.js";
import { measure, SPEC_BOUNDS } from "../api/bounds.js";
import { configMapFromLive } from "./configmap.js";
import { childNames, CONTROLLER_UID_LABEL } from "./labels.js";
import { applyManagers, DEFAULT_FIELD_MANAGER, projectAppliedBounded } from "./managed-fields.js";
import { claimFromLive } from "./pvc.js";
import { CHILD_TYPES, OPTIONAL_CHILD_TYPES } from "./types.js";

/** Deeper than any child the hook builds (a Deployment's affinity is about 16). */
const MAX_KEPT_DEPTH = 48;

export interface ParentRef {
  name: string;
  namespace: string;
  /** The field manager Metacontroller applies with in server-side apply mode. */
  fieldManager?: string | undefined;
}

/** Why a child's applied state cannot be trusted; completes "<Kind> <ns>/<name> …". */
type Untrusted = {
  ok: false;
  why: string;
  /**
   * foreign: not one of this parent's children (rule 1); unreadable: its record
   * of what was applied cannot be trusted (rule 2); unrecorded: it has none.
   */
  kind: "foreign" | "unreadable" | "unrecorded";
};
export type Applied = { ok: true; object: KubeObject } | Untrusted;

const CONFIG_MAP_NAME = /^[0-9a-f]{10}$/;

/** The one name a child of each other kind has. */
const NAME_OF: ReadonlyMap<string, (llsd: string) => string> = new Map([
  ["Deployment", childNames.deployment],
  ["Service", childNames.service],
  ["ServiceAccount", childNames.serviceAccount],
  ["PersistentVolumeClaim", childNames.pvc],
  ["Ingress", childNames.ingress],
  ["NetworkPolicy", childNames.networkPolicy],
  ["HorizontalPodAutoscaler", childNames.hpa],
  ["PodDisruptionBudget", childNames.pdb],
  ["ServiceMonitor", childNames.serviceMonitor],
]);

/** Whether `name` is a name this parent's children of `kind` may have. */
export function isOwnedName(kind: string, name: string, llsd: string): boolean {
  if (kind === "ConfigMap") {
    const prefix = childNames.configMapPrefix(llsd);
    return name.startsWith(prefix) && CONFIG_MAP_NAME.test(name.slice(prefix.length));
  }
  return NAME_OF.get(kind)?.(llsd) === name;
}

function declaredApiVersion(kind: string): string | undefined {
  return [...CHILD_TYPES, ...OPTIONAL_CHILD_TYPES].find((t) => t.kind === kind)?.apiVersion;
}

const foreign = (why: string): Untrusted => ({ ok: false, kind: "foreign", why });

/**
 * Rule 1: the observed object is one of this parent's children; why not,
 * otherwise (an object Metacontroller adopted for its controller-uid label).
 */
export function checkIdentity(observed: KubeObject, parent: ParentRef): Untrusted | undefined {
  const declared = declaredApiVersion(observed.kind);
  if (declared === undefined || declared !== observed.apiVersion)
    return foreign(msg.notAChildType(observed.kind));
  if ((observed.metadata.namespace ?? parent.namespace) !== parent.namespace)
    return foreign(msg.notInParentNamespace(parent.namespace));
  if (!isOwnedName(observed.kind, observed.metadata.name, parent.name))
    return foreign(msg.notNamedLikeChild(parent.name));
  return undefined;
}

/** What Metacontroller adds to a returned object, removed again. */
function withoutControllerUid(obj: KubeObject): KubeObject {
  const labels = obj.metadata.labels;
  // A kept record's labels are whatever was written there: check before reading.
  if (!isObject(labels) || !Object.hasOwn(labels, CONTROLLER_UID_LABEL)) return obj;
  const rest = Object.fromEntries(
    Object.entries(labels).filter(([k]) => k !== CONTROLLER_UID_LABEL),
  );
  const { labels: _dropped, ...metadata } = obj.metadata;
  void _dropped;
  return {
    ...obj,
    metadata: Object.keys(rest).length === 0 ? metadata : { ...metadata, labels: rest },
  };
}

const unreadable = (why: string): Untrusted => ({ ok: false, kind: "unreadable", why });
const annotationThat = (what: string) => msg.annotationThat(LAST_APPLIED_ANNOTATION, what);

/**
 * parseRecord's answers, by the annotation's text: a parent at rest sends the
 * same record with every sync. At most 64, weighing at most 2 MiB together
 * (the text at two bytes a character, its parsed value at about six).
 */
const records = textMemo((text) => parseRecord(text), {
  entries: 64,
  bytes: 2 * 1024 * 1024,
  weigh: (text) => 8 * text.length,
});

/** The annotation's text parsed, if it is a JSON object no deeper than anything we write. */
function parseRecord(
  text: string,
): { ok: true; value: JsonObject; metadata: JsonObject } | Untrusted {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return unreadable(annotationThat(msg.notJson()));
  }
  const shape = measure(value, { maxDepth: MAX_KEPT_DEPTH, maxEntries: Infinity });
  if (shape.problem !== undefined)
    return unreadable(
      shape.problem.kind === "key"
        ? annotationThat(msg.withProtoKey())
        : annotationThat(msg.nestedTooDeep()),
    );
  const metadata = isObject(value) ? value["metadata"] : undefined;
  if (!isObject(value) || !isObject(metadata))
    return unreadable(annotationThat(msg.notAKubernetesObject()));
  return { ok: true, value, metadata };
}

/** Rule 2: the annotation, if it describes exactly this object. */
function fromAnnotation(observed: KubeObject, parent: ParentRef): Applied {
  const text = own(observed.metadata.annotations, LAST_APPLIED_ANNOTATION);
  if (text === undefined) return unreadable(msg.noAnnotation(LAST_APPLIED_ANNOTATION));
  const parsed = records(text);
  if (!parsed.ok) return parsed;
  const { value, metadata } = parsed;
  const same =
    value["apiVersion"] === observed.apiVersion &&
    value["kind"] === observed.kind &&
    metadata["name"] === observed.metadata.name &&
    metadata["namespace"] === parent.namespace;
  // What it describes instead is not repeated: it is whatever someone wrote there.
  if (!same) return unreadable(annotationThat(msg.describingAnotherObject()));
  // The record itself, its identity (just compared equal) typed from the observed child.
  const applied: KubeObject = {
    ...value,
    apiVersion: observed.apiVersion,
    kind: observed.kind,
    metadata: { ...metadata, name: observed.metadata.name, namespace: parent.namespace },
  };
  return { ok: true, object: withoutControllerUid(applied) };
}

/** Rule 3: a claim or a content-hashed ConfigMap, rebuilt from what runs. */
function fromLive(observed: KubeObject, parent: ParentRef): KubeObject | undefined {
  // Shallow shapes of the spec's width, checked before zod walks them: a claim or a
  // config the hook wrote has a few keys, and one of 100,000 took 1.4 s and 60 MB
  // to read; a __proto__ key is never ours.
  if (measure(observed, { maxDepth: 8, maxEntries: SPEC_BOUNDS.maxEntries }).problem !== undefined)
    return undefined;
  const owner = { llsd: parent.name, namespace: parent.namespace };
  if (observed.kind === "PersistentVolumeClaim") return claimFromLive(observed, owner);
  if (observed.kind === "ConfigMap") return configMapFromLive(observed, owner);
  return undefined;
}

/**
 * Rule 2, in either apply mode. A last-applied annotation that describes this
 * very object is what dynamic apply last applied. Under server-side apply
 * Metacontroller removes the annotation before every apply (InPlace), so an
 * Apply entry with no annotation beside it is the record; but after a switch
 * back to dynamic apply the Apply entry stays while each update moves fields
 * out of it, so there the annotation is the current one (keeping the stale
 * projection would make dynamic apply's merge delete those fields). An
 * annotation that is not this object's (a forgery) gives way to the Apply
 * entry when there is one. Update entries (kubectl edit, /scale) are never a source.
 */
function fromRecord(observed: KubeObject, parent: ParentRef): Applied {
  const manager = parent.fieldManager ?? DEFAULT_FIELD_MANAGER;
  const annotated = fromAnnotation(observed, parent);
  if (annotated.ok) return annotated;
  if (
    measure(observed, { maxDepth: MAX_KEPT_DEPTH + 16, maxEntries: Infinity }).problem === undefined
  ) {
    const projected = projectAppliedBounded(observed, manager);
    if (projected !== undefined && "tooLarge" in projected) return unreadable(projected.tooLarge);
    if (projected !== undefined) return { ok: true, object: projected.object };
  }
  if (own(observed.metadata.annotations, LAST_APPLIED_ANNOTATION) !== undefined) return annotated;
  const managers = applyManagers(observed);
  return {
    ok: false,
    kind: "unrecorded",
    why: msg.unrecordedChild(manager, managers, LAST_APPLIED_ANNOTATION),
  };
}

/**
 * What Metacontroller applied for this child, if it can be trusted (rules 1–2).
 * Used to keep a child and to tell whether the Deployment runs what we want.
 */
export function appliedOf(observed: KubeObject, parent: ParentRef): Applied {
  return checkIdentity(observed, parent) ?? fromRecord(observed, parent);
}

/** A child to return as it is (rules 1–3). */
export function keepChild(observed: KubeObject, parent: ParentRef): Applied {
  const identity = checkIdentity(observed, parent);
  if (identity !== undefined) return identity;
  const applied = fromRecord(observed, parent);
  if (applied.ok) return applied;
  const rebuilt = fromLive(observed, parent);
  return rebuilt === undefined ? applied : { ok: true, object: rebuilt };
}

export type Kept =
  { ok: true; children: KubeObject[] } | { ok: false; child: KubeObject; untrusted: Untrusted };

/** Every one of `observed`, kept, or the first that cannot be (rule 4). */
export function keepAll(observed: readonly KubeObject[], parent: ParentRef): Kept {
  const children: KubeObject[] = [];
  for (const child of observed) {
    const kept = keepChild(child, parent);
    if (!kept.ok) return { ok: false, child, untrusted: kept };
    children.push(kept.object);
  }
  return { ok: true, children };
}
