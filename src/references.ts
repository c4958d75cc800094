// The Secrets and ConfigMaps a spec refers to (docs/guide/secrets.md): /customize asks
// Metacontroller for them, and sync checks they exist with the keys used.
// Only names, keys and resourceVersions are ever read; never Secret data.
import type { Spec } from "./api/schema.js";
import { ingressOf, serverTlsOf } from "./api/networking.js";
import { SPEC_BOUNDS } from "./api/bounds.js";
import { isObject, own } from "./lib/json.js";
import { CONFIG_FILE, TLS_KEYS } from "./container.js";
import { authCaOf } from "./config/auth.js";
import { SECRET_NAME_KEYS, type SpecBindings } from "./config/bindings.js";
import type { SecretBinding } from "./config/secrets.js";

export interface Reference {
  kind: "Secret" | "ConfigMap";
  name: string;
  /** Keys the spec uses (empty: only existence matters). */
  keys: string[];
  /** Where in the spec. */
  path: string;
  /** Where a missing key is reported, when the spec names the key in a field of its own. */
  keyPath?: string;
  /**
   * Named by no field: the default spec.auth.kubernetes falls back to (the
   * namespace's kube-root-ca.crt), so a missing one is not a name to fix.
   */
  kubeRootCa?: true;
}

/** Keys storage.<kind>.secretName must have. */
const POSTGRES_SECRET_KEYS = Object.values(SECRET_NAME_KEYS).sort();
const SERVER_TLS_KEYS = [TLS_KEYS.cert, TLS_KEYS.key];

function bindingReference(b: SecretBinding): Reference {
  return { kind: "Secret", name: b.secretName, keys: [b.key], path: b.specPath };
}

/** The Secrets the spec's bindings read: one reference per binding, one per storage secretName. */
function bindingReferences(spec: Spec, bindings: SpecBindings): Reference[] {
  const refs: Reference[] = [];
  for (const [, entries] of bindings.providers)
    for (const p of entries) {
      if (p.apiKey !== undefined) refs.push(bindingReference(p.apiKey));
      refs.push(...p.secretRefs.map(([, b]) => bindingReference(b)));
    }
  for (const kind of ["kv", "sql"] as const) {
    const secretName = spec.storage?.[kind]?.secretName;
    if (secretName !== undefined) {
      refs.push({
        kind: "Secret",
        name: secretName,
        keys: POSTGRES_SECRET_KEYS,
        path: `spec.storage.${kind}.secretName`,
      });
      continue;
    }
    for (const f of bindings.storage[kind] ?? [])
      if (typeof f.value === "object") refs.push(bindingReference(f.value));
  }
  return refs;
}

/** Every reference of a valid spec, in a fixed order; `bindings` are the spec's own. */
export function collectReferences(spec: Spec, bindings: SpecBindings): Reference[] {
  const refs = bindingReferences(spec, bindings);
  const tls = serverTlsOf(spec.networking);
  if (tls !== undefined) {
    const keys = tls.requireClientCertificate ? [TLS_KEYS.ca, ...SERVER_TLS_KEYS] : SERVER_TLS_KEYS;
    refs.push({
      kind: "Secret",
      name: tls.secretName,
      keys,
      path: "spec.networking.tls.secretName",
    });
  }
  const ingressTlsSecret = ingressOf(spec.networking)?.tlsSecretName;
  if (ingressTlsSecret !== undefined) {
    refs.push({
      kind: "Secret",
      name: ingressTlsSecret,
      keys: SERVER_TLS_KEYS,
      path: "spec.networking.expose.tlsSecretName",
    });
  }
  const caBundle = spec.trust?.caBundle;
  if (caBundle !== undefined) {
    refs.push({
      kind: "ConfigMap",
      name: caBundle.configMapName,
      keys: [caBundle.key],
      path: "spec.trust.caBundle.configMapName",
      keyPath: "spec.trust.caBundle.key",
    });
  }
  const base = spec.distribution.baseConfig;
  if (base !== undefined) {
    refs.push({
      kind: "ConfigMap",
      name: base.configMapName,
      keys: [base.key],
      path: "spec.distribution.baseConfig.configMapName",
      keyPath: "spec.distribution.baseConfig.key",
    });
  }
  refs.push(...authReferences(spec));
  refs.push(...overrideReferences(spec));
  if (spec.overrideConfig !== undefined) {
    refs.push({
      kind: "ConfigMap",
      name: spec.overrideConfig.configMapName,
      keys: [CONFIG_FILE],
      path: "spec.overrideConfig.configMapName",
    });
  }
  return refs;
}

/**
 * spec.auth's CA: the ConfigMap named, or kube-root-ca.crt for kubernetes.
 * kube-root-ca.crt is in every namespace where kube-controller-manager runs its
 * root-ca-cert-publisher; checking it still turns a cluster without it into a
 * status message instead of pods that never start.
 */
function authReferences(spec: Spec): Reference[] {
  const ca = authCaOf(spec.auth);
  if (ca === undefined) return [];
  const kind = spec.auth?.kubernetes !== undefined ? "kubernetes" : "oauth2";
  const ref: Reference = { kind: "ConfigMap", name: ca.configMapName, keys: [ca.key], path: "" };
  if (spec.auth?.[kind]?.caBundle === undefined)
    return [{ ...ref, path: `spec.auth.${kind}`, kubeRootCa: true }];
  const at = `spec.auth.${kind}.caBundle`;
  return [{ ...ref, path: `${at}.configMapName`, keyPath: `${at}.key` }];
}

/** Secrets and ConfigMaps the pod itself uses through workload.overrides (optional ones excepted). */
function overrideReferences(spec: Spec): Reference[] {
  const o = spec.workload?.overrides;
  if (o === undefined) return [];
  const refs: Reference[] = [];
  (o.env ?? []).forEach((e, i) => {
    const from = e.valueFrom;
    const at = `spec.workload.overrides.env[${i}].valueFrom`;
    if (from?.secretKeyRef !== undefined && from.secretKeyRef.optional !== true) {
      refs.push({
        kind: "Secret",
        name: from.secretKeyRef.name ?? "",
        keys: [from.secretKeyRef.key],
        path: `${at}.secretKeyRef`,
      });
    }
    if (from?.configMapKeyRef !== undefined && from.configMapKeyRef.optional !== true) {
      refs.push({
        kind: "ConfigMap",
        name: from.configMapKeyRef.name ?? "",
        keys: [from.configMapKeyRef.key],
        path: `${at}.configMapKeyRef`,
      });
    }
  });
  (o.volumes ?? []).forEach((v, i) => {
    const at = `spec.workload.overrides.volumes[${i}]`;
    if (v.secret?.secretName !== undefined && v.secret.optional !== true) {
      refs.push({
        kind: "Secret",
        name: v.secret.secretName,
        keys: (v.secret.items ?? []).map((it) => it.key),
        path: `${at}.secret.secretName`,
      });
    }
    if (v.configMap?.name !== undefined && v.configMap.optional !== true) {
      refs.push({
        kind: "ConfigMap",
        name: v.configMap.name,
        keys: (v.configMap.items ?? []).map((it) => it.key),
        path: `${at}.configMap.name`,
      });
    }
  });
  return refs;
}

/**
 * Best effort for a spec that does not parse (/customize must answer anyway):
 * every secretKeyRef, secretName and configMapName found anywhere.
 */
export function scanReferences(rawSpec: unknown): Reference[] {
  const out: Reference[] = [];
  // Iterative and depth-bounded: the spec may be anything the API server stored.
  const stack: { value: unknown; path: string; depth: number }[] = [
    { value: rawSpec, path: "spec", depth: 0 },
  ];
  for (let top = stack.pop(); top !== undefined && out.length < MAX_SCANNED; top = stack.pop()) {
    const { value, path, depth } = top;
    if (depth > SPEC_BOUNDS.maxDepth || !isObject(value)) {
      if (Array.isArray(value) && depth <= SPEC_BOUNDS.maxDepth)
        for (let i = value.length - 1; i >= 0; i--)
          stack.push({ value: value[i], path: `${path}[${i}]`, depth: depth + 1 });
      continue;
    }
    for (const k of Object.keys(value).reverse()) {
      const v = value[k];
      const at = `${path}.${k}`;
      const name = isObject(v) ? own(v, "name") : undefined;
      if (k === "secretKeyRef" && typeof name === "string")
        out.push({ kind: "Secret", name, keys: [], path: at });
      else if ((k === "secretName" || k === "tlsSecretName") && typeof v === "string")
        out.push({ kind: "Secret", name: v, keys: [], path: at });
      else if (k === "configMapName" && typeof v === "string")
        out.push({ kind: "ConfigMap", name: v, keys: [], path: at });
      else stack.push({ value: v, path: at, depth: depth + 1 });
    }
  }
  return out;
}

/** References /customize reports at most for a spec it cannot parse. */
const MAX_SCANNED = 256;

/** Names by kind, sorted and unique. */
export function namesOf(refs: readonly Reference[], kind: Reference["kind"]): string[] {
  return [...new Set(refs.filter((r) => r.kind === kind).map((r) => r.name))].sort();
}
