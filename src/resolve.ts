// The second rung of sync: the parent's spec and the observed objects turned,
// once, into what should run (`Desired`) and the checks the status reports.
// Every later stage reads these facts; none works them out again.
import type { KubeObject } from "./api/hook.js";
import { KEYED_DATA_FIELDS } from "./api/object-data.js";
import { measure, SPEC_BOUNDS } from "./api/bounds.js";
import { API_VERSION, KIND, LlamaStackDistribution, type Spec } from "./api/schema.js";
import { DEFAULT_PORT, ingressOf, serverTlsOf } from "./api/networking.js";
import { DEFAULT_DATA_DIR } from "./api/workload.js";
import type { Desired, DesiredConfig } from "./desired.js";
import { RELEASE_LABEL } from "./children/labels.js";
import { specBindings, type SpecBindings } from "./config/bindings.js";
import type { Catalog } from "./config/catalog.js";
import { sha256Hex } from "./config/canonical.js";
import {
  resolveDistribution,
  type RecordedRelease,
  type ResolvedDistribution,
} from "./config/distribution.js";
import type { GenerateInput, GeneratedConfig } from "./config/generate.js";
import type { CustomBase } from "./config/base-config.js";
import { compareStrings, formatPath, isObject, own } from "./lib/json.js";
import { checkOverrideTls, serverSection } from "./config/server-section.js";
import { CONFIG_FILE } from "./container.js";
import { checkOverrideTrust } from "./config/trust.js";
import { msg } from "./messages.js";
import type { ReleaseHistory, Related, SpecInputs } from "./observe.js";
import { problem, problemsFromZod, type Problem, type Result, type Warning } from "./problems.js";
import { ConditionReason, Reason } from "./reasons.js";
import { collectReferences, type Reference } from "./references.js";
import { releaseFacts } from "./release.js";

export type Check =
  | { ok: true }
  | { ok: false; problems: Problem[] }
  | { ok: "unknown"; reason: string; message: string };

export interface ResolveContext {
  catalog: Catalog;
  /** generateConfig, possibly memoized by the edge. */
  generate: (input: GenerateInput) => Result<GeneratedConfig>;
}

export interface Resolution {
  validation: Check;
  references: Check;
  config: Check;
  /**
   * Warnings about the conversion, the distribution and the config, reported
   * whether or not the checks passed (each is a condition of the status).
   */
  warnings: Warning[];
  /** Set once the spec is valid and its distribution resolved, even if references or the config failed. */
  desired: Desired | undefined;
}

const notChecked: Check = {
  ok: "unknown",
  reason: ConditionReason.SpecInvalid,
  message: msg.referencesNotChecked(),
};
const notGenerated: Check = {
  ok: "unknown",
  reason: ConditionReason.SpecInvalid,
  message: msg.configNotGenerated(),
};

function invalid(problems: Problem[], warnings: Warning[] = []): Resolution {
  return {
    validation: { ok: false, problems },
    references: notChecked,
    config: notGenerated,
    warnings,
    desired: undefined,
  };
}

/**
 * Problems of every failed check, in condition order; `plan` is the children's
 * plan (return-children.ts), reported with the spec's validation.
 */
export function problemsOf(resolution: Resolution, plan: Check | undefined): Problem[] {
  const { validation, references, config } = resolution;
  return [validation, plan, references, config].flatMap((c) => (c?.ok === false ? c.problems : []));
}

function checkOf(problems: Problem[]): Check {
  return problems.length > 0 ? { ok: false, problems } : { ok: true };
}

/** The spec, bounded in depth and width first: everything after it recurses. */
export function parseSpec(spec: unknown, name: string): Result<Spec> {
  const shape = measure(spec, SPEC_BOUNDS);
  if (shape.problem !== undefined) {
    const path = formatPath(["spec", ...shape.problem.path]);
    const problems = [problem(Reason.InvalidSpec, path, shape.problem.detail)];
    return { ok: false, problems, warnings: [] };
  }
  const input = { apiVersion: API_VERSION, kind: KIND, metadata: { name }, spec };
  const parsed = LlamaStackDistribution.safeParse(input);
  return parsed.success
    ? { ok: true, value: parsed.data.spec, warnings: [] }
    : {
        ok: false,
        problems: problemsFromZod(parsed.error, input, LlamaStackDistribution),
        warnings: [],
      };
}

export function resolve(observed: SpecInputs, ctx: ResolveContext): Resolution {
  const spec = parseSpec(observed.spec, observed.name);
  if (!spec.ok) return invalid(spec.problems);
  // A parent converted from v1alpha1 may keep fields it cannot apply (src/convert/notes.ts).
  const converted = observed.conversion;
  if (converted.errors.length > 0) return invalid(converted.errors, converted.warnings);
  const recorded = recordedRelease(spec.value.distribution.name, observed.history, ctx.catalog);
  const distribution = resolveDistribution(spec.value.distribution, ctx.catalog, recorded);
  if (!distribution.ok)
    return invalid(distribution.problems, [...converted.warnings, ...distribution.warnings]);
  const bindings = specBindings(spec.value);
  const references = collectReferences(spec.value, bindings);
  const layout = layoutOf(spec.value);
  const config = resolveConfig(
    { spec: spec.value, bindings },
    distribution.value,
    layout,
    observed.related,
    ctx,
  );
  const desired: Desired = {
    llsd: observed.name,
    namespace: observed.namespace,
    spec: spec.value,
    distribution: distribution.value,
    releaseFacts: releaseFacts(distribution.value.release),
    ...layout,
    references,
    inputsHash: inputsHash(references, observed.related),
    config: config.desired,
  };
  return {
    validation: { ok: true },
    references: checkOf(checkReferences(references, observed.related, observed.namespace)),
    config: config.check,
    warnings: [...converted.warnings, ...distribution.warnings, ...config.warnings],
    desired,
  };
}

/** The Deployment's replicas (undefined when an HPA owns them) and the fewest pods that run. */
function replicasOf(workload: Spec["workload"]): Pick<Desired, "replicas" | "minReplicas"> {
  const autoscaling = workload?.autoscaling;
  const replicas = workload?.replicas ?? 1;
  return autoscaling === undefined
    ? { replicas, minReplicas: replicas }
    : { replicas: undefined, minReplicas: autoscaling.minReplicas };
}

/** The facts several children share: each default is applied here, once. */
export function layoutOf(
  spec: Spec,
): Pick<Desired, "port" | "tls" | "ingress" | "dataDir" | "replicas" | "minReplicas"> {
  return {
    port: spec.networking?.port ?? DEFAULT_PORT,
    tls: serverTlsOf(spec.networking),
    ingress: ingressOf(spec.networking),
    dataDir: (spec.workload?.storage?.mountPath ?? DEFAULT_DATA_DIR).replace(/\/+$/, ""),
    ...replicasOf(spec.workload),
  };
}

interface ConfigResolution {
  check: Check;
  warnings: Warning[];
  /** Undefined only when the config cannot be had. */
  desired: DesiredConfig | undefined;
}

const baseNotRead: Check = {
  ok: "unknown",
  reason: ConditionReason.BaseConfigNotRead,
  message: msg.baseConfigNotRead(),
};

/** What the config's server section reads of the layout. */
type ServerLayout = Pick<Desired, "port" | "tls">;

/** What an overrideConfig's own config.yaml lacks: TLS on a strict release, a use of the CA bundle. */
function overrideWarnings(
  spec: Spec,
  configMapName: string,
  override: KubeObject | undefined,
  release: string | undefined,
  ctx: ResolveContext,
): Warning[] {
  if (override === undefined) return [];
  const tls =
    release === undefined
      ? undefined
      : checkOverrideTls(override, own(ctx.catalog.byRelease, release));
  const data = override["data"];
  const text = isObject(data) ? own(data, CONFIG_FILE) : undefined;
  const trust = checkOverrideTrust(
    spec.trust,
    configMapName,
    typeof text === "string" ? text : undefined,
  );
  return [tls, trust].filter((w) => w !== undefined);
}

function resolveConfig(
  parsed: { spec: Spec; bindings: SpecBindings },
  distribution: ResolvedDistribution,
  layout: ServerLayout,
  related: Related,
  ctx: ResolveContext,
): ConfigResolution {
  const { spec } = parsed;
  const { name, release, image } = distribution;
  if (spec.overrideConfig !== undefined) {
    const configMapName = spec.overrideConfig.configMapName;
    const override = related.configMaps.get(configMapName);
    return {
      check: { ok: true },
      warnings: overrideWarnings(spec, configMapName, override, release, ctx),
      desired: { source: "override", configMapName },
    };
  }
  const baseRef = spec.distribution.baseConfig;
  if (baseRef !== undefined && release !== undefined) {
    const base = baseConfigText(baseRef, related);
    if (base === undefined) return { check: baseNotRead, warnings: [], desired: undefined };
    if ("problem" in base) return failedConfig([base.problem], []);
    const named = { ...distribution, name: baseRef.configMapName, release };
    return generated(parsed, named, layout, ctx, { ...baseRef, text: base.text });
  }
  if (name === undefined || release === undefined) {
    const path = "spec.distribution.image";
    const required = problem(Reason.BaseConfigRequired, path, msg.baseConfigRequired(image));
    return failedConfig([required], []);
  }
  return generated(parsed, { ...distribution, name, release }, layout, ctx, undefined);
}

function failedConfig(problems: Problem[], warnings: Warning[]): ConfigResolution {
  return { check: { ok: false, problems }, warnings, desired: undefined };
}

/** The config generated on the distribution's base, or the custom image's `base`. */
function generated(
  parsed: { spec: Spec; bindings: SpecBindings },
  distribution: GenerateInput["distribution"],
  layout: ServerLayout,
  ctx: ResolveContext,
  base: CustomBase | undefined,
): ConfigResolution {
  const { spec, bindings } = parsed;
  const result = ctx.generate({
    spec,
    bindings,
    distribution,
    catalog: ctx.catalog,
    userEnvNames: (spec.workload?.overrides?.env ?? []).map((e) => e.name),
    port: layout.port,
    server: serverSection(spec, layout.tls),
    base,
  });
  return result.ok
    ? {
        check: { ok: true },
        warnings: result.warnings,
        desired: { source: "generated", generated: result.value },
      }
    : failedConfig(result.problems, result.warnings);
}

/**
 * The text of spec.distribution.baseConfig's key: undefined when the ConfigMap
 * or key is missing (the references check reports it), a problem when the key
 * holds binary data.
 */
function baseConfigText(
  ref: { configMapName: string; key: string },
  related: Related,
): { text: string } | { problem: Problem } | undefined {
  const configMap = related.configMaps.get(ref.configMapName);
  if (configMap === undefined) return undefined;
  const data = configMap["data"];
  const text = isObject(data) ? own(data, ref.key) : undefined;
  if (typeof text === "string") return { text };
  if (!keysOf(configMap).has(ref.key)) return undefined;
  const detail = msg.baseConfigNotText(ref.configMapName, ref.key);
  return { problem: problem(Reason.InvalidBaseConfig, "spec.distribution.baseConfig.key", detail) };
}

/**
 * The release a running resource was resolved to before, so that a spec that
 * names none stays on it: what the hook wrote in the status, else the
 * Deployment's release label, else the running image. All of it is
 * user-editable, so only a value naming a release that ships the distribution
 * counts (the status's value always, to report one no longer supported).
 */
const RELEASE = /^\d+\.\d+\.\d+$/;

export function recordedRelease(
  name: string | undefined,
  history: ReleaseHistory,
  catalog: Catalog,
): RecordedRelease | undefined {
  if (name === undefined) return undefined;
  const images = own(catalog.images, name) ?? {};
  const status = history.resolved;
  // Only a release-shaped value: it is repeated in the status if no longer supported.
  if (status?.name === name && status.release !== undefined && RELEASE.test(status.release))
    return { release: status.release, from: "status.resolvedDistribution.release" };
  const { label, image: running } = history;
  if (label !== undefined && own(images, label) !== undefined)
    return { release: label, from: msg.recordedFromLabel(RELEASE_LABEL) };
  const byImage = Object.keys(images).find(
    (r) => running !== undefined && own(images, r)?.image === running,
  );
  if (byImage !== undefined && running !== undefined)
    return { release: byImage, from: msg.recordedFromImage(running) };
  return undefined;
}

/** Keys of a Secret or ConfigMap (never their values). */
function keysOf(obj: KubeObject): Set<string> {
  const keys = new Set<string>();
  for (const field of KEYED_DATA_FIELDS) {
    const section = obj[field];
    if (isObject(section)) for (const k of Object.keys(section)) keys.add(k);
  }
  return keys;
}

function missingObject(ref: Reference, namespace: string): Problem {
  if (ref.kind === "Secret")
    return problem(Reason.SecretNotFound, ref.path, msg.secretNotFound(ref.name, namespace));
  const detail =
    ref.kubeRootCa === true
      ? msg.kubeRootCaNotFound(ref.name, namespace)
      : msg.configMapNotFound(ref.name, namespace);
  return problem(Reason.ConfigMapNotFound, ref.path, detail);
}

function missingKey(ref: Reference, key: string, namespace: string): Problem {
  const path = ref.keyPath ?? ref.path;
  return ref.kind === "Secret"
    ? problem(Reason.SecretKeyNotFound, path, msg.secretKeyNotFound(ref.name, key, namespace))
    : problem(
        Reason.ConfigMapKeyNotFound,
        path,
        msg.configMapKeyNotFound(ref.name, key, namespace),
      );
}

function lookup(ref: Pick<Reference, "kind" | "name">, related: Related): KubeObject | undefined {
  return (ref.kind === "Secret" ? related.secrets : related.configMaps).get(ref.name);
}

/** Every referenced object exists with the keys used; a missing object is reported once. */
export function checkReferences(
  refs: readonly Reference[],
  related: Related,
  namespace: string,
): Problem[] {
  const problems: Problem[] = [];
  const reported = new Set<string>();
  for (const ref of refs) {
    const obj = lookup(ref, related);
    if (obj === undefined) {
      const id = `${ref.kind}/${ref.name}`;
      if (!reported.has(id)) problems.push(missingObject(ref, namespace));
      reported.add(id);
      continue;
    }
    const keys = keysOf(obj);
    for (const key of ref.keys) if (!keys.has(key)) problems.push(missingKey(ref, key, namespace));
  }
  return problems;
}

/** A change to any referenced object (a rotated key, an edited override) changes this hash and rolls the pods. */
export function inputsHash(refs: readonly Reference[], related: Related): string {
  const byId = new Map(refs.map((r) => [`${r.kind}/${r.name}`, r]));
  const lines = [...byId]
    .sort(([a], [b]) => compareStrings(a, b))
    .map(([id, ref]) => `${id}@${lookup(ref, related)?.metadata.resourceVersion ?? "missing"}`);
  return sha256Hex(lines.join("\n")).slice(0, 16);
}
