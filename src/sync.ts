// The hook: sync(request, now) → response, one pure function. It parses the
// parent once, generates the config, builds the children and computes the
// status. When anything is wrong it returns the children as last applied
// (what Metacontroller recorded from the previous answer), so a bad edit never
// deletes or breaks what runs (SPEC §7).
import type { Deployment } from "kubernetes-types/apps/v1.js";
import {
  type KubeObject,
  type ObjectMap,
  type SyncRequest,
  type SyncResponse,
} from "./api/hook.js";
import { measure, SPEC_BOUNDS } from "./api/bounds.js";
import { API_VERSION, KIND, LlamaStackDistribution, type Spec } from "./api/schema.js";
import { DEFAULT_PORT } from "./api/workload.js";
import { planChildren } from "./children/plan.js";
import { serverSection } from "./config/server.js";
import { Status } from "./api/status.js";
import { canonicalObject } from "./children/canonical.js";
import { childNames, CONTAINER_NAME, RELEASE_LABEL } from "./children/labels.js";
import { appliedOf, isOwnedName, keepAll, type Kept, type ParentRef } from "./children/keep.js";
import { DEFAULT_FIELD_MANAGER } from "./children/managed-fields.js";
import { serviceUrl } from "./children/service.js";
import type { Catalog } from "./config/catalog.js";
import { sha256Hex } from "./config/canonical.js";
import {
  resolveDistribution,
  type RecordedRelease,
  type ResolvedDistribution,
} from "./config/distribution.js";
import { checkOverrideTls } from "./config/server.js";
import type { GenerateInput, GeneratedConfig } from "./config/generate.js";
import { formatPath, isObject, own, stableStringify } from "./config/json.js";
import { msg } from "./messages.js";
import {
  formatProblem,
  problem,
  problemsFromZod,
  Reason,
  type Problem,
  type Result,
} from "./problems.js";
import { collectReferences, type Reference } from "./references.js";
import { computeStatus, ConditionReason, type Check } from "./status.js";

export interface SyncContext {
  catalog: Catalog;
  /** Metacontroller's server-side apply field manager (default "metacontroller"). */
  fieldManager?: string;
  /** generateConfig, possibly memoized by the edge. */
  generate: (input: GenerateInput) => Result<GeneratedConfig>;
}

export type SyncOutcome =
  { kind: "ok"; response: SyncResponse } | { kind: "conflict"; message: string };

/** Every object of an object map (hook v1 or v2 keys alike), in a fixed order. */
export function objectsOf(map: ObjectMap): KubeObject[] {
  return Object.values(map)
    .flatMap((byKey) => Object.values(byKey))
    .sort((a, b) => `${a.kind}/${a.metadata.name}`.localeCompare(`${b.kind}/${b.metadata.name}`));
}

interface Related {
  secrets: Map<string, KubeObject>;
  configMaps: Map<string, KubeObject>;
}

function relatedOf(map: ObjectMap, namespace: string): Related {
  const secrets = new Map<string, KubeObject>();
  const configMaps = new Map<string, KubeObject>();
  for (const obj of objectsOf(map)) {
    if ((obj.metadata.namespace ?? namespace) !== namespace) continue;
    if (obj.kind === "Secret") secrets.set(obj.metadata.name, obj);
    if (obj.kind === "ConfigMap") configMaps.set(obj.metadata.name, obj);
  }
  return { secrets, configMaps };
}

/** Keys of a Secret or ConfigMap (never their values). */
function keysOf(obj: KubeObject): Set<string> {
  const keys = new Set<string>();
  for (const field of ["data", "stringData", "binaryData"]) {
    const section = (obj as Record<string, unknown>)[field];
    if (isObject(section as never)) for (const k of Object.keys(section as object)) keys.add(k);
  }
  return keys;
}

function checkReferences(
  refs: readonly Reference[],
  related: Related,
  namespace: string,
): Problem[] {
  const problems: Problem[] = [];
  const reported = new Set<string>();
  for (const ref of refs) {
    const obj = (ref.kind === "Secret" ? related.secrets : related.configMaps).get(ref.name);
    if (obj === undefined) {
      const key = `${ref.kind}/${ref.name}`;
      if (reported.has(key)) continue;
      reported.add(key);
      problems.push(
        ref.kind === "Secret"
          ? problem(Reason.SecretNotFound, ref.path, msg.secretNotFound(ref.name, namespace))
          : problem(Reason.ConfigMapNotFound, ref.path, msg.configMapNotFound(ref.name, namespace)),
      );
      continue;
    }
    const keys = keysOf(obj);
    for (const key of ref.keys) {
      if (keys.has(key)) continue;
      problems.push(
        ref.kind === "Secret"
          ? problem(
              Reason.SecretKeyNotFound,
              ref.path,
              msg.secretKeyNotFound(ref.name, key, namespace),
            )
          : problem(
              Reason.ConfigMapKeyNotFound,
              ref.path,
              msg.configMapKeyNotFound(ref.name, key, namespace),
            ),
      );
    }
  }
  return problems;
}

/** A change to any referenced object (a rotated key, an edited override) changes this hash and rolls the pods. */
function inputsHash(refs: readonly Reference[], related: Related): string {
  const lines = [...new Set(refs.map((r) => `${r.kind}/${r.name}`))].sort().map((id) => {
    const [kind, name] = id.split("/") as [string, string];
    const obj = (kind === "Secret" ? related.secrets : related.configMaps).get(name);
    return `${id}@${obj?.metadata.resourceVersion ?? "missing"}`;
  });
  return sha256Hex(lines.join("\n")).slice(0, 16);
}

/** Metacontroller applied our Deployment and the Deployment controller finished rolling it out. */
export function isRolledOut(
  observed: KubeObject | undefined,
  desired: Deployment,
  parent: ParentRef,
): boolean {
  if (observed === undefined) return false;
  const applied = appliedOf(observed, parent);
  if (!applied.ok || stableStringify(applied.object) !== stableStringify(desired)) return false;
  const dep = observed as unknown as Deployment;
  const status = dep.status ?? {};
  const replicas = dep.spec?.replicas ?? 1;
  return (
    (status.observedGeneration ?? 0) >= (observed.metadata.generation ?? 0) &&
    (status.updatedReplicas ?? 0) >= replicas &&
    (status.replicas ?? 0) <= (status.updatedReplicas ?? 0) &&
    (status.availableReplicas ?? 0) >= replicas
  );
}

interface Plan {
  tls: boolean;
  children: KubeObject[];
  desiredDeployment: Deployment;
  configSource: "generated" | "override";
  generated: GeneratedConfig | undefined;
  resolved: ResolvedDistribution;
  port: number;
}

/**
 * The release a running resource was resolved to before, so that a spec that
 * names none stays on it: what the hook wrote in the status, else the
 * Deployment's release label, else the running image. All of it is
 * user-editable, so only a value naming a release that ships the distribution
 * counts (the status's value always, to report one no longer supported).
 */
const RELEASE = /^\d+\.\d+\.\d+$/;

function recordedRelease(
  name: string | undefined,
  observed: Status,
  deployment: KubeObject | undefined,
  catalog: Catalog,
): RecordedRelease | undefined {
  if (name === undefined) return undefined;
  const images = own(catalog.images, name) ?? {};
  const status = observed.resolvedDistribution;
  // Only a release-shaped value: it is repeated in the status if no longer supported.
  if (status?.name === name && status.release !== undefined && RELEASE.test(status.release))
    return { release: status.release, from: "status.resolvedDistribution.release" };
  const label = own(deployment?.metadata.labels, RELEASE_LABEL);
  if (label !== undefined && own(images, label) !== undefined)
    return { release: label, from: `the Deployment's ${RELEASE_LABEL} label` };
  const running = (deployment as Deployment | undefined)?.spec?.template?.spec?.containers?.find(
    (c) => c.name === CONTAINER_NAME,
  )?.image;
  const byImage = Object.keys(images).find(
    (r) => running !== undefined && own(images, r)?.image === running,
  );
  if (byImage !== undefined) return { release: byImage, from: `the running image ${running}` };
  return undefined;
}

export function sync(request: SyncRequest, now: string, ctx: SyncContext): SyncOutcome {
  const parent = request.parent;
  const llsd = parent.metadata.name;
  const namespace = parent.metadata.namespace;
  const generation = parent.metadata.generation ?? 0;
  const observedChildren = objectsOf(request.children);
  const related = relatedOf(request.related, namespace);
  const observedStatus = Status.safeParse(parent.status ?? {});
  const observed: Status = observedStatus.success ? observedStatus.data : {};
  const observedDeployment = observedChildren.find(
    (c) => c.kind === "Deployment" && c.metadata.name === childNames.deployment(llsd),
  );

  let validation: Check = { ok: true };
  let references: Check = {
    ok: "unknown",
    reason: ConditionReason.SpecInvalid,
    message: "Not checked: the spec is invalid.",
  };
  let config: Check & { source?: "generated" | "override" } = {
    ok: "unknown",
    reason: ConditionReason.SpecInvalid,
    message: "Not generated: the spec is invalid.",
  };
  const configWarnings: Problem[] = [];
  const workloadWarnings: Problem[] = [];
  let plan: Plan | undefined;

  // Depth and width first: everything after it recurses over the spec.
  const shape = measure(parent.spec, SPEC_BOUNDS);
  const parsed =
    shape.problem === undefined
      ? LlamaStackDistribution.safeParse({
          apiVersion: API_VERSION,
          kind: KIND,
          metadata: { name: llsd },
          spec: parent.spec,
        })
      : undefined;
  if (parsed === undefined || !parsed.success) {
    validation = {
      ok: false,
      problems:
        parsed === undefined
          ? [
              problem(
                Reason.InvalidSpec,
                formatPath(["spec", ...(shape.problem?.path ?? [])]),
                shape.problem?.detail ?? "",
              ),
            ]
          : problemsFromZod(parsed.error),
    };
  } else {
    const spec = parsed.data.spec as Spec;
    const resolved = resolveDistribution(
      spec.distribution,
      ctx.catalog,
      recordedRelease(spec.distribution.name, observed, observedDeployment, ctx.catalog),
    );
    configWarnings.push(...resolved.warnings);
    if (!resolved.ok) {
      validation = { ok: false, problems: resolved.problems };
    } else {
      const refs = collectReferences(spec);
      const refProblems = checkReferences(refs, related, namespace);
      references = refProblems.length > 0 ? { ok: false, problems: refProblems } : { ok: true };
      let generated: GeneratedConfig | undefined;
      if (spec.overrideConfig !== undefined) {
        config = { ok: true, source: "override" };
        const release = resolved.value.release;
        const override = related.configMaps.get(spec.overrideConfig.configMapName);
        if (release !== undefined && override !== undefined) {
          const tls = checkOverrideTls(override, own(ctx.catalog.byRelease, release));
          if (tls !== undefined) configWarnings.push(tls);
        }
      } else if (resolved.value.name === undefined || resolved.value.release === undefined) {
        config = {
          ok: false,
          problems: [
            problem(
              Reason.BaseConfigRequired,
              "spec.distribution.image",
              msg.baseConfigRequired(resolved.value.image),
            ),
          ],
        };
      } else {
        const result = ctx.generate({
          spec,
          distribution: {
            ...resolved.value,
            name: resolved.value.name,
            release: resolved.value.release,
          },
          catalog: ctx.catalog,
          userEnvNames: (spec.workload?.overrides?.env ?? []).map((e) => e.name),
          port: spec.networking?.port ?? DEFAULT_PORT,
          server: serverSection(spec),
        });
        configWarnings.push(...result.warnings);
        if (result.ok) {
          generated = result.value;
          config = { ok: true, source: "generated" };
        } else {
          config = { ok: false, problems: result.problems };
        }
      }
      const planned = planChildren({
        llsd,
        namespace,
        spec,
        image: resolved.value.image,
        release: resolved.value.release,
        generated,
        inputsHash: inputsHash(refs, related),
        observedChildren,
      });
      if (!planned.ok) {
        validation = { ok: false, problems: planned.problems };
      } else if (references.ok === true && config.ok === true) {
        workloadWarnings.push(...planned.warnings);
        plan = {
          children: planned.children,
          desiredDeployment: planned.desiredDeployment,
          configSource: config.source ?? "generated",
          generated,
          resolved: resolved.value,
          port: spec.networking?.port ?? DEFAULT_PORT,
          tls: spec.networking?.tls?.enabled === true,
        };
      }
    }
  }

  const fieldManager = ctx.fieldManager ?? DEFAULT_FIELD_MANAGER;
  const parentRef = { name: llsd, namespace, fieldManager };
  let children: KubeObject[];
  let rolledOut = false;
  if (plan !== undefined) {
    rolledOut = isRolledOut(observedDeployment, plan.desiredDeployment, parentRef);
    const desired = new Set(plan.children.map((c) => `${c.kind}/${c.metadata.name}`));
    const isOurs = (c: KubeObject, kind: string) =>
      c.kind === kind &&
      !desired.has(`${kind}/${c.metadata.name}`) &&
      isOwnedName(kind, c.metadata.name, llsd);
    // The ConfigMaps the running pods may still mount, until the rollout is done.
    const oldConfigMaps = rolledOut ? [] : observedChildren.filter((c) => isOurs(c, "ConfigMap"));
    // A claim is never deleted by an edit: removing workload.storage keeps it with its data.
    const claims = observedChildren.filter((c) => isOurs(c, "PersistentVolumeClaim"));
    for (const [toKeep, situation] of [
      [oldConfigMaps, msg.keepBecauseRollout()],
      [claims, msg.keepBecauseStorageRemoved()],
    ] as const) {
      const kept = keepAll(toKeep, parentRef);
      if (!kept.ok) return conflict(kept, namespace, fieldManager, situation);
      plan.children.push(...kept.children);
    }
    children = plan.children;
  } else {
    const kept = keepAll(observedChildren, parentRef);
    const first = [validation, references, config].flatMap((c) =>
      c.ok === false ? c.problems : [],
    )[0];
    if (!kept.ok)
      return conflict(
        kept,
        namespace,
        fieldManager,
        msg.keepBecauseInvalid(first === undefined ? "see the status" : formatProblem(first)),
      );
    children = kept.children;
  }

  const generated = plan?.generated;
  const observedConfigMap =
    generated === undefined
      ? undefined
      : observedChildren.find(
          (c) =>
            c.kind === "ConfigMap" &&
            c.metadata.name === childNames.configMap(llsd, generated.configHash),
        );
  const status = computeStatus({
    generation,
    now,
    observed,
    validation,
    references,
    config,
    deploymentUpdated: plan !== undefined,
    firstSync: observedChildren.length === 0,
    observedDeployment: observedDeployment as Deployment | undefined,
    rolledOut,
    warnings: configWarnings,
    workloadWarnings,
    resolvedDistribution:
      plan === undefined
        ? observed.resolvedDistribution
        : {
            ...(plan.resolved.name === undefined ? {} : { name: plan.resolved.name }),
            ...(plan.resolved.release === undefined ? {} : { release: plan.resolved.release }),
            image: plan.resolved.image,
            configSource: plan.configSource,
          },
    configGeneration:
      plan === undefined
        ? observed.configGeneration
        : generated === undefined
          ? undefined
          : {
              configMapName: childNames.configMap(llsd, generated.configHash),
              configHash: generated.configHash,
              ...(observedConfigMap?.metadata.creationTimestamp === undefined
                ? {}
                : { generatedAt: observedConfigMap.metadata.creationTimestamp }),
              providerCount: generated.providerCount,
              resourceCount: generated.resourceCount,
            },
    serviceURL:
      plan === undefined
        ? observed.serviceURL
        : serviceUrl({ llsd, namespace, port: plan.port, tls: plan.tls }),
  });
  return {
    kind: "ok",
    response: {
      status: status as Record<string, unknown>,
      children: children.map(canonicalObject),
    },
  };
}

function conflict(
  kept: Extract<Kept, { ok: false }>,
  namespace: string,
  fieldManager: string,
  situation: string,
): SyncOutcome {
  const { child, untrusted } = kept;
  const fix =
    untrusted.kind === "foreign"
      ? msg.fixForeignChild()
      : untrusted.kind === "unrecorded"
        ? msg.fixUnrecordedChild(fieldManager)
        : msg.fixUnreadableChild();
  return {
    kind: "conflict",
    message: msg.cannotKeep(
      `${child.kind} ${child.metadata.namespace ?? namespace}/${child.metadata.name}`,
      untrusted.why,
      situation,
      fix,
    ),
  };
}
