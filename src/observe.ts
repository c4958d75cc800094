// The first rung of sync: what Metacontroller observed, read once. Every
// object here is user input; nothing is trusted beyond its kind, namespace and
// name (the keep module in children/keep.ts decides what may be returned).
import type { Deployment } from "kubernetes-types/apps/v1.js";
import type { KubeObject, ObjectMap, SyncRequest } from "./api/hook.js";
import { Status } from "./api/status.js";
import { childNames } from "./children/labels.js";
import { conversionNotes, type ConversionNotes } from "./convert/notes.js";
import { compareStrings, isObject } from "./lib/json.js";

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
