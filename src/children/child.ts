// What every builder returns. kubernetes-types makes apiVersion, kind and
// metadata.name optional (a patch may omit them); a child always has them, so
// a builder's result is a Child<T>: the real Kubernetes type with those three
// present, which is assignable to the hook's KubeObject as it is.
import type { ObjectMeta } from "kubernetes-types/meta/v1.js";
import { labelsFor } from "./labels.js";

/**
 * `T` with `apiVersion`, `kind` and `metadata.name` present. Built with `Omit`
 * rather than `T & {…}`: kubernetes-types declares interfaces, and an interface
 * (unlike the object type `Omit` yields) is not assignable to KubeObject's
 * index signature.
 */
export type Child<T extends { apiVersion?: string; kind?: string; metadata?: ObjectMeta }> = Omit<
  T,
  "apiVersion" | "kind" | "metadata"
> & {
  apiVersion: NonNullable<T["apiVersion"]>;
  kind: NonNullable<T["kind"]>;
  metadata: ChildMetadata;
};

export type ChildMetadata = Omit<ObjectMeta, "name"> & { name: string };

/** Which LlamaStackDistribution a child belongs to. */
export interface Owner {
  llsd: string;
  namespace: string;
}

/** A child's metadata: its name, the owner's namespace and the labels every child carries. */
export function childMetadata(
  owner: Owner,
  name: string,
  annotations?: Record<string, string>,
): ChildMetadata {
  return {
    name,
    namespace: owner.namespace,
    labels: labelsFor(owner.llsd),
    ...(annotations === undefined ? {} : { annotations }),
  };
}
