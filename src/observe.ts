// The first rung of sync: what Metacontroller observed, read once. Every
// object here is user input; nothing is trusted beyond its kind, namespace and
// name (the keep module in children/keep.ts decides what may be returned).
import type { Deployment } from "kubernetes-types/apps/v1.js";
import type { KubeObject, ObjectMap, SyncRequest } from "./api/hook.js";
import { Status } from "./api/status.js";
import { CONTAINER_NAME, RELEASE_LABEL, childNames } from "./children/labels.js";
import { conversionNotes, type ConversionNotes } from "./convert/notes.js";
import { compareStrings, isObject, own } from "./lib/json.js";

export interface Related {
  secrets: ReadonlyMap<string, KubeObject>;
  configMaps: ReadonlyMap<string, KubeObject>;
}

export type ObservedDeployment = KubeObject & Pick<Deployment, "spec" | "status">;

export interface Observed {
  name: string;
  namespace: string;
  generation: number;
  /** The parent's spec, unparsed. */
  spec: unknown;
  /** Every observed child, in a fixed order. */
  children: KubeObject[];
  /**
   * The keys of the request's children map: Metacontroller sends one for every
   * child type the CompositeController declares, objects or not.
   */
  childGroups: ReadonlySet<string>;
  related: Related;
  /** The status as stored, or {} when it does not parse. */
  status: Status;
  /** Our Deployment, when it exists. */
  deployment: ObservedDeployment | undefined;
  /** What a parent converted from v1alpha1 keeps without applying (its llamastack.io/v1alpha1-fields). */
  conversion: ConversionNotes;
}

/** Every object of an object map (hook v1 or v2 keys alike), in a fixed order. */
export function objectsOf(map: ObjectMap): KubeObject[] {
  return Object.values(map)
    .flatMap((byKey) => Object.values(byKey))
    .sort((a, b) => compareStrings(`${a.kind}/${a.metadata.name}`, `${b.kind}/${b.metadata.name}`));
}

/** The related Secrets and ConfigMaps in the parent's namespace, by name. */
export function relatedOf(map: ObjectMap, namespace: string): Related {
  const secrets = new Map<string, KubeObject>();
  const configMaps = new Map<string, KubeObject>();
  for (const obj of objectsOf(map)) {
    if ((obj.metadata.namespace ?? namespace) !== namespace) continue;
    if (obj.kind === "Secret") secrets.set(obj.metadata.name, obj);
    if (obj.kind === "ConfigMap") configMaps.set(obj.metadata.name, obj);
  }
  return { secrets, configMaps };
}

/**
 * Where a release was recorded before (resolve.ts, recordedRelease): the
 * status's resolved distribution, the Deployment's release label, the image
 * its server container runs. All user-editable; checked where they are read.
 */
export interface ReleaseHistory {
  resolved: { name: string | undefined; release: string | undefined } | undefined;
  label: string | undefined;
  image: string | undefined;
}

export function releaseHistory(observed: Pick<Observed, "status" | "deployment">): ReleaseHistory {
  const resolved = observed.status.resolvedDistribution;
  const label = own(observed.deployment?.metadata.labels, RELEASE_LABEL);
  const image = observed.deployment?.spec?.template?.spec?.containers?.find(
    (c) => c.name === CONTAINER_NAME,
  )?.image;
  return {
    resolved: resolved && { name: resolved.name, release: resolved.release },
    label: typeof label === "string" ? label : undefined,
    image,
  };
}

/**
 * Everything the spec's side of a sync reads of the request (return-children.ts,
 * planSpec: the second rung and the children's plan), and nothing else: the
 * edge memoizes that side keyed by this object whole (server/memo.ts), so a
 * field read there and missing here would serve one parent another's answer.
 * A child's status, the parent's status conditions, the Deployment's rollout
 * are not here: a sync whose spec and references did not change reuses the plan.
 */
export interface SpecInputs {
  name: string;
  namespace: string;
  /** The parent's spec, unparsed. */
  spec: unknown;
  conversion: ConversionNotes;
  history: ReleaseHistory;
  related: Related;
  /** The observed claim of workload.storage (by the name the hook gives it). */
  claim: KubeObject | undefined;
  /** The keys of the request's children map, sorted. */
  childGroups: readonly string[];
}

export function specInputsOf(observed: Observed): SpecInputs {
  const claimName = childNames.pvc(observed.name);
  return {
    name: observed.name,
    namespace: observed.namespace,
    spec: observed.spec,
    conversion: observed.conversion,
    history: releaseHistory(observed),
    related: observed.related,
    claim: observed.children.find(
      (c) => c.kind === "PersistentVolumeClaim" && c.metadata.name === claimName,
    ),
    childGroups: [...observed.childGroups].sort(compareStrings),
  };
}

export function observe(request: SyncRequest): Observed {
  const { metadata } = request.parent;
  const children = objectsOf(request.children);
  const status = Status.safeParse(request.parent.status ?? {});
  const deployment: ObservedDeployment | undefined = children.find(
    (c) => c.kind === "Deployment" && c.metadata.name === childNames.deployment(metadata.name),
  );
  return {
    name: metadata.name,
    namespace: metadata.namespace,
    generation: metadata.generation ?? 0,
    spec: request.parent.spec,
    children,
    childGroups: new Set(Object.keys(request.children)),
    related: relatedOf(request.related, metadata.namespace),
    status: status.success ? status.data : {},
    deployment,
    conversion: conversionNotes({
      metadata: { namespace: metadata.namespace, annotations: { ...metadata.annotations } },
      spec: isObject(request.parent.spec) ? request.parent.spec : {},
    }),
  };
}
