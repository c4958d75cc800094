// The chart's values, described once: each value's name, what it does, its
// JSON Schema, its default and where the chart puts it. values.yaml,
// values.schema.json, the checks template, the values tables of the chart's
// README and docs/operations/helm.md, and the templates' placements are all
// made from this list by generate.ts.
//
// Features are values too: the HTTPS overlay (examples/https) and every
// component of manifests/components/ the base does not include, found by the
// generator. A component's value is `<its directory in camelCase>.enabled` and
// its description the first sentence of its kustomization's comment, so a new
// component needs no code here unless it works only on top of another feature
// (COMPONENT_NEEDS).
import type { Json } from "./tree.js";

/** A feature of the install that kustomize renders: the HTTPS overlay or a component. */
export interface Feature {
  /** Its name in values.yaml, `<key>.enabled`. */
  key: string;
  /** The kustomization (overlay) or Component directory, relative to the repository. */
  dir: string;
  kind: "overlay" | "component";
  description: string;
  /** Features it goes on top of. */
  needs: string[];
}

/** Components that work only on top of another feature: that feature, and why (the check's message). */
export const COMPONENT_NEEDS: Record<string, { needs: string; why: string }> = {
  v1alpha1: {
    needs: "https",
    why: "the API server calls a conversion webhook over HTTPS only, and cert-manager injects the CA of the hook's certificate into the CRD",
  },
  admission: {
    needs: "https",
    why: "the API server calls admission webhooks over HTTPS only, and cert-manager injects the CA of the hook's certificate into the webhook configuration",
  },
  hookMonitoring: {
    needs: "hookServicemonitor",
    why: "its alerts and dashboard read the series of job llsd-hook that the hook's ServiceMonitor has Prometheus scrape (LlsdHookDown fires without it)",
  },
};

/** The HTTPS overlay: examples/https as the chart's https.enabled. */
export const HTTPS: Feature = {
  key: "https",
  dir: "examples/https",
  kind: "overlay",
  description:
    "Metacontroller calls the hook over HTTPS with a bearer token (examples/https; docs/operations/https.md): cert-manager issues the serving certificate, Metacontroller >= 4.16 trusts its CA.",
  needs: [],
};

/** Where a value goes in the objects kustomize rendered (an object is "Kind/name"). */
export type Placement =
  /** The scalar at `path` becomes `{{ expr }}`; the rendered value there is the default. */
  | { kind: "scalar"; object: string; path: string; expr: string }
  /** The subtree at `path` is the value written by toYaml (only when `when`, if given). */
  | { kind: "yaml"; object: string; path: string; when?: string }
  /** Every field equal to `name`, the name of an object the install refers to, becomes `{{ expr }}`. */
  | { kind: "reference"; name: string; expr: string }
  /** The object is rendered only when `when`. */
  | { kind: "object"; object: string; when: string }
  /** Fields kustomize's replacements fill from identity.yaml's `key` (rendered with a sentinel there). */
  | { kind: "identity"; key: "namespace" | "serviceAccount" };

export interface ChartValue {
  name: string;
  description: string;
  schema: Record<string, Json>;
  /** The default, or "rendered": what the manifests render at the value's first placement. */
  default: Json | "rendered";
  placements: Placement[];
}

/** A condition the chart refuses, with the message Helm prints (field, why, fix). */
export interface Check {
  when: string;
  message: string;
}

const DEPLOYMENT = "Deployment/llsd-hook";
const HOOK_CONTAINER = "spec.template.spec.containers[name=hook]";
const OWN_CA =
  "not (or .Values.https.certificate.existingSecret .Values.https.certificate.issuerRef.name)";

/** The values that are not a feature's switch. */
export function settings(resourcesSchema: Record<string, Json>): ChartValue[] {
  return [
    {
      name: "image.repository",
      description: "The hook's image, without its tag.",
      schema: { type: "string", minLength: 1 },
      default: "rendered",
      placements: [
        {
          kind: "scalar",
          object: DEPLOYMENT,
          path: `${HOOK_CONTAINER}.image`,
          expr: 'printf "%s:%s" .Values.image.repository (.Values.image.tag | default .Chart.AppVersion) | quote',
        },
      ],
    },
    {
      name: "image.tag",
      description: "The hook's image tag; empty: the chart's appVersion, the release it is.",
      schema: { type: "string" },
      default: "",
      placements: [],
    },
    {
      name: "replicas",
      description:
        "The hook's replicas. It is stateless: more only add availability (the PodDisruptionBudget lets one go at a time).",
      schema: { type: "integer", minimum: 1 },
      default: "rendered",
      placements: [
        { kind: "scalar", object: DEPLOYMENT, path: "spec.replicas", expr: ".Values.replicas" },
      ],
    },
    {
      name: "resources",
      description:
        "The hook's container resources (docs/operations/hook-server.md, Sizing); raise the memory limit with HOOK_WORKERS or WORKER_HEAP_MIB only.",
      schema: resourcesSchema,
      default: "rendered",
      placements: [{ kind: "yaml", object: DEPLOYMENT, path: `${HOOK_CONTAINER}.resources` }],
    },
    {
      name: "metacontroller.namespace",
      description:
        "Metacontroller's namespace: the hook's NetworkPolicy admits its port from there only (docs/operations/install.md).",
      schema: { type: "string", minLength: 1, maxLength: 63 },
      default: "rendered",
      placements: [{ kind: "identity", key: "namespace" }],
    },
    {
      name: "metacontroller.serviceAccount",
      description:
        "Metacontroller's ServiceAccount, which the ClusterRoleBinding metacontroller-llsd-hook grants what Metacontroller does for the hook.",
      schema: { type: "string", minLength: 1, maxLength: 253 },
      default: "rendered",
      placements: [{ kind: "identity", key: "serviceAccount" }],
    },
    {
      name: "https.certificate.issuerRef",
      description:
        "A cert-manager Issuer or ClusterIssuer of yours for the serving certificate ({name, kind, group}); empty: the chart makes its own CA, as examples/https does.",
      schema: {
        type: "object",
        additionalProperties: false,
        properties: {
          name: { type: "string", minLength: 1 },
          kind: { type: "string", enum: ["Issuer", "ClusterIssuer"] },
          group: { type: "string" },
        },
      },
      default: {},
      placements: [
        { kind: "object", object: "Issuer/llsd-hook-selfsigned", when: OWN_CA },
        { kind: "object", object: "Certificate/llsd-hook-ca", when: OWN_CA },
        { kind: "object", object: "Issuer/llsd-hook-ca", when: OWN_CA },
        {
          kind: "yaml",
          object: "Certificate/llsd-hook-tls",
          path: "spec.issuerRef",
          when: ".Values.https.certificate.issuerRef.name",
        },
      ],
    },
    {
      name: "https.certificate.existingSecret",
      description:
        "A Secret of yours with the serving certificate (tls.crt, tls.key, and ca.crt, which Metacontroller trusts) for the names llsd-hook.llsd-hook.svc and llsd-hook.llsd-hook; no cert-manager objects then.",
      schema: { type: "string" },
      default: "",
      placements: [
        {
          kind: "object",
          object: "Certificate/llsd-hook-tls",
          when: "not .Values.https.certificate.existingSecret",
        },
        {
          kind: "reference",
          name: "llsd-hook-tls",
          expr: '.Values.https.certificate.existingSecret | default "llsd-hook-tls" | quote',
        },
      ],
    },
    {
      name: "https.token.value",
      description:
        "The bearer token Metacontroller sends and the hook checks, kept in the Secret llsd-hook-token: --set-file https.token.value=token.txt (openssl rand -hex 32 > token.txt).",
      schema: { type: "string" },
      default: "",
      placements: [
        {
          kind: "scalar",
          object: "Secret/llsd-hook-token",
          path: "data.token",
          expr: ".Values.https.token.value | b64enc | quote",
        },
      ],
    },
    {
      name: "https.token.existingSecret",
      description:
        "A Secret of yours in the hook's namespace with the token under the key token, instead of https.token.value.",
      schema: { type: "string" },
      default: "",
      placements: [
        {
          kind: "object",
          object: "Secret/llsd-hook-token",
          when: "not .Values.https.token.existingSecret",
        },
        {
          kind: "reference",
          name: "llsd-hook-token",
          expr: '.Values.https.token.existingSecret | default "llsd-hook-token" | quote',
        },
      ],
    },
  ];
}

/** An object a feature has cert-manager's CA injector fill, from a Certificate the chart issues. */
export interface CaInjection {
  feature: string;
  /** "Kind name" of the object. */
  object: string;
  /** The Certificate, "namespace/name", as the cert-manager.io/inject-ca-from annotation names it. */
  certificate: string;
}

/** What the chart refuses beyond the schema: combinations of values. */
export function checks(features: Feature[], injections: CaInjection[]): Check[] {
  const needs = features.flatMap((f) =>
    f.needs.map((n) => ({
      when: `and .Values.${f.key}.enabled (not .Values.${n}.enabled)`,
      message: `${f.key}.enabled: needs ${n}.enabled, since ${COMPONENT_NEEDS[f.key]?.why ?? `it goes on top of ${n}`}; set ${n}.enabled=true as well`,
    })),
  );
  // The fixed checks first, so that a new feature's leaves their lines (and helm's messages) as they are.
  return [
    {
      when: "and .Values.https.enabled (not (or .Values.https.token.value .Values.https.token.existingSecret))",
      message:
        "https.token: https.enabled needs the bearer token Metacontroller sends and the hook checks; pass it with --set-file https.token.value=token.txt (openssl rand -hex 32 > token.txt), or name a Secret of yours with the key token in https.token.existingSecret",
    },
    {
      when: "and .Values.https.token.value .Values.https.token.existingSecret",
      message:
        "https.token: set https.token.value or https.token.existingSecret, not both; unset one",
    },
    {
      when: "and .Values.https.certificate.existingSecret .Values.https.certificate.issuerRef.name",
      message:
        "https.certificate: set https.certificate.existingSecret (a Secret of yours) or https.certificate.issuerRef (cert-manager issues it), not both; unset one",
    },
    ...needs,
    // Without the chart's Certificate nothing fills the caBundle, and the API server cannot call the hook.
    ...injections.map((i) => ({
      when: `and .Values.${i.feature}.enabled .Values.https.certificate.existingSecret`,
      message: `${i.feature}.enabled: cert-manager's CA injector fills the caBundle of ${i.object} from the Certificate ${i.certificate}, which https.certificate.existingSecret leaves out; leave it empty (set https.certificate.issuerRef for an issuer of yours)`,
    })),
  ];
}
