// Metacontroller's CompositeController hook requests and responses (hook
// versions v1 and v2 differ only in the keys of the object maps, which we do
// not rely on: objects are identified by their own metadata).
import { z } from "zod";
import type { Status } from "./status.js";

const ObjectMeta = z.looseObject({
  name: z.string().min(1),
  namespace: z.string().optional(),
  uid: z.string().optional(),
  generation: z.number().int().optional(),
  resourceVersion: z.string().optional(),
  creationTimestamp: z.string().optional(),
  labels: z.record(z.string(), z.string()).optional(),
  annotations: z.record(z.string(), z.string()).optional(),
});

/** Any Kubernetes object: kind, apiVersion and metadata are all we require. */
export const KubeObject = z.looseObject({
  apiVersion: z.string().min(1),
  kind: z.string().min(1),
  metadata: ObjectMeta,
});
export type KubeObject = z.infer<typeof KubeObject>;

/** `{ "Deployment.apps/v1": { "<name or ns/name>": object } }` */
const ObjectMap = z.record(z.string(), z.record(z.string(), KubeObject));
export type ObjectMap = z.infer<typeof ObjectMap>;

const Parent = z.looseObject({
  apiVersion: z.string().min(1),
  kind: z.string().min(1),
  metadata: ObjectMeta.extend({ namespace: z.string().min(1) }),
  spec: z.unknown(),
  status: z.unknown().optional(),
});
type Parent = z.infer<typeof Parent>;

export const SyncRequest = z.looseObject({
  controller: z.unknown().optional(),
  parent: Parent,
  children: ObjectMap.optional().default({}),
  related: ObjectMap.optional().default({}),
  finalizing: z.boolean().optional().default(false),
});
export type SyncRequest = z.infer<typeof SyncRequest>;

export const CustomizeRequest = z.looseObject({
  controller: z.unknown().optional(),
  parent: Parent,
});
export type CustomizeRequest = z.infer<typeof CustomizeRequest>;

export interface SyncResponse<S = Status> {
  status: S;
  children: KubeObject[];
  resyncAfterSeconds?: number;
}

export interface RelatedResourceRule {
  apiVersion: string;
  resource: string;
  namespace: string;
  names: string[];
}

export interface CustomizeResponse {
  relatedResources: RelatedResourceRule[];
}

/** The annotation where Metacontroller keeps what the hook last returned for a child. */
export const LAST_APPLIED_ANNOTATION = "metacontroller.k8s.io/last-applied-configuration";
