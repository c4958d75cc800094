// Metacontroller's CompositeController (metacontroller.k8s.io/v1alpha1), as
// far as llsd-hook uses it, written down from the CRD Metacontroller v4.17.2
// installs (manifests/production/metacontroller-crds-v1.yaml): the field
// names, types, required fields and enums of every part metacontroller/ and
// examples/https set. Metacontroller's CRD cannot be had from a package
// registry (its Go module is named "metacontroller"), so this stands in for
// it twice: test/unit/install checks our CompositeController against it, and
// test/k8s/install.test.ts installs it as the CRD the README's kubectl apply
// meets, where strict field validation refuses any field not written here.
// A field missing here is a field to look up in Metacontroller's CRD first.

export interface Schema {
  type: "object" | "array" | "string" | "integer" | "boolean";
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  enum?: string[];
  description?: string;
}

const string: Schema = { type: "string" };
const object = (properties: Record<string, Schema>, required?: string[]): Schema => ({
  type: "object",
  properties,
  ...(required === undefined ? {} : { required }),
});

const secretKeyRef = (required: string[]) =>
  object({ name: string, namespace: string, key: string }, required);

const webhook = object({
  url: string,
  path: string,
  timeout: { type: "string", description: "a Go duration, e.g. 10s" },
  service: object(
    { name: string, namespace: string, port: { type: "integer" }, protocol: string },
    ["name", "namespace"],
  ),
  caBundle: object({
    inline: string,
    secretRef: secretKeyRef(["name", "namespace"]),
    configMapRef: secretKeyRef(["name", "namespace"]),
  }),
  authorization: object({ type: string, secretRef: secretKeyRef(["key", "name", "namespace"]) }, [
    "secretRef",
  ]),
  responseUnMarshallMode: { type: "string", enum: ["loose", "strict"] },
});

const hook = object({ version: { type: "string", enum: ["v1", "v2"] }, webhook });

const resourceRef = { apiVersion: string, resource: string };

export const COMPOSITE_CONTROLLER_SPEC: Schema = object(
  {
    parentResource: object({ ...resourceRef, ignoreStatusChanges: { type: "boolean" } }, [
      "apiVersion",
      "resource",
    ]),
    childResources: {
      type: "array",
      items: object(
        {
          ...resourceRef,
          updateStrategy: object({
            method: {
              type: "string",
              enum: ["OnDelete", "Recreate", "InPlace", "RollingRecreate", "RollingInPlace"],
            },
          }),
        },
        ["apiVersion", "resource"],
      ),
    },
    generateSelector: { type: "boolean" },
    resyncPeriodSeconds: { type: "integer" },
    hooks: object({ sync: hook, customize: hook, finalize: hook }),
  },
  ["parentResource"],
);

/** Where `value` departs from `schema`: unknown and missing fields, wrong types, values outside an enum. */
export function schemaErrors(value: unknown, schema: Schema, path = "spec"): string[] {
  switch (schema.type) {
    case "object": {
      if (typeof value !== "object" || value === null || Array.isArray(value))
        return [`${path}: not an object`];
      const obj = value as Record<string, unknown>;
      const props = schema.properties ?? {};
      return [
        ...(schema.required ?? [])
          .filter((k) => obj[k] === undefined)
          .map((k) => `${path}.${k}: required`),
        ...Object.entries(obj).flatMap(([k, v]) => {
          const sub = props[k];
          return sub === undefined
            ? [`${path}.${k}: unknown field`]
            : schemaErrors(v, sub, `${path}.${k}`);
        }),
      ];
    }
    case "array":
      return Array.isArray(value)
        ? value.flatMap((v, i) =>
            schema.items === undefined ? [] : schemaErrors(v, schema.items, `${path}[${i}]`),
          )
        : [`${path}: not an array`];
    case "integer":
      return Number.isInteger(value) ? [] : [`${path}: not an integer`];
    case "boolean":
      return typeof value === "boolean" ? [] : [`${path}: not a boolean`];
    case "string":
      if (typeof value !== "string") return [`${path}: not a string`];
      return schema.enum === undefined || schema.enum.includes(value)
        ? []
        : [`${path}: ${value} is not one of ${schema.enum.join(", ")}`];
    default:
      // A schema of no type (x-kubernetes-int-or-string, as a PrometheusRule's expr) takes either.
      return typeof value === "string" || Number.isInteger(value) ? [] : [`${path}: not a value`];
  }
}

/** A CRD for CompositeController with this schema, to install in the test control plane. */
export function compositeControllerCrd(): Record<string, unknown> {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: {
      name: "compositecontrollers.metacontroller.k8s.io",
      // *.k8s.io groups need this; Metacontroller's CRD carries the same.
      annotations: { "api-approved.kubernetes.io": "unapproved, request not yet submitted" },
    },
    spec: {
      group: "metacontroller.k8s.io",
      scope: "Cluster",
      names: {
        kind: "CompositeController",
        listKind: "CompositeControllerList",
        plural: "compositecontrollers",
        singular: "compositecontroller",
        shortNames: ["cc", "cctl"],
      },
      versions: [
        {
          name: "v1alpha1",
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: {
            openAPIV3Schema: {
              type: "object",
              required: ["spec"],
              properties: {
                apiVersion: { type: "string" },
                kind: { type: "string" },
                metadata: { type: "object" },
                spec: COMPOSITE_CONTROLLER_SPEC,
                status: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
              },
            },
          },
        },
      ],
    },
  };
}
