// Golden cases: each folder under test/golden/cases/ holds a case.yaml (a
// compact scenario: the LlamaStackDistribution, the related Secrets and
// ConfigMaps, and optionally earlier states that Metacontroller applied) and
// the files the hook must produce for it:
//   request.yaml   the full sync request the scenario expands to (hook v2 keys)
//   response.yaml  the hook's answer (or the 409 it gives)
//   config.yaml    the generated config.yaml, when there is one
// test/unit/golden.test.ts compares them as text; UPDATE_GOLDEN=1 rewrites them.
// The Llama Stack and Kubernetes suites reuse the same corpus.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parse, stringify } from "yaml";
import {
  LAST_APPLIED_ANNOTATION,
  SyncRequest,
  type KubeObject,
  type SyncResponse,
} from "../../src/api/hook.js";
import { YAML_OPTIONS } from "../../src/config/canonical.js";
import { generateConfig } from "../../src/config/generate.js";
import { toV1alpha2 } from "../../src/convert/convert.js";
import type { JsonObject } from "../../src/lib/json.js";
import { loadCatalog } from "../../src/edge/load-catalog.js";
import { sync, type SyncContext, type SyncOutcome } from "../../src/sync.js";
import { CHILD_TYPES, groupKey, OPTIONAL_CHILD_TYPES } from "../../src/children/types.js";
import type { Deployment } from "kubernetes-types/apps/v1.js";

/** test/golden: the cases, and the files a case names by path. */
const GOLDEN_DIR = join(import.meta.dirname, "..", "golden");
export const CASES_DIR = join(GOLDEN_DIR, "cases");
export const NOW = "2026-11-01T12:00:00Z";
const APPLIED_AT = "2026-11-01T11:00:00Z";

interface RelatedSpec {
  /** Keys present, with placeholder values (the hook only looks at the keys). */
  keys?: string[];
  /** Keys whose value the hook reads (a custom image's base config), as text. */
  data?: Record<string, string>;
  /** Keys whose value is a file's text, by path relative to test/golden. */
  files?: Record<string, string>;
  resourceVersion?: string;
}

/** The data of a related object: placeholders for `keys`, text for `data` and `files`. */
function dataOf(name: string, s: RelatedSpec): Record<string, string> {
  const out: Record<string, string> = Object.fromEntries(
    (s.keys ?? []).map((k) => [k, Buffer.from(`value-of-${name}-${k}`).toString("base64")]),
  );
  Object.assign(out, s.data);
  for (const [key, file] of Object.entries(s.files ?? {}))
    out[key] = readFileSync(join(GOLDEN_DIR, file), "utf8");
  return out;
}

interface PriorState {
  /** The spec Metacontroller last synced and applied. */
  spec: unknown;
  generation?: number;
  secrets?: Record<string, string[] | RelatedSpec>;
  configMaps?: Record<string, string[] | RelatedSpec>;
  /** Whether the Deployment controller finished rolling this state out (default true). */
  rolledOut?: boolean;
  /**
   * The message of the ReplicaFailure condition (reason FailedCreate) the
   * Deployment controller posts when its ReplicaSet cannot create pods (a
   * state that is not rolled out).
   */
  replicaFailure?: string;
  /** Apply the hook's children without Metacontroller's last-applied annotation. */
  withoutLastApplied?: boolean;
  /**
   * Edits by someone with `edit` on the children, after Metacontroller applied
   * them: "Kind/name" → the new last-applied annotation text, or null to remove it.
   */
  lastAppliedEdits?: Record<string, string | null>;
}

export interface CaseFile {
  description: string;
  name?: string;
  namespace?: string;
  generation?: number;
  spec: unknown;
  secrets?: Record<string, string[] | RelatedSpec>;
  configMaps?: Record<string, string[] | RelatedSpec>;
  /** Earlier states, applied in order; their children are what Metacontroller observes now. */
  observed?: PriorState[];
  /** Objects a user labelled with the parent's controller-uid, which Metacontroller adopted. */
  adopted?: KubeObject[];
  /**
   * Kinds of OPTIONAL_CHILD_TYPES the CompositeController declares (a component
   * such as manifests/components/servicemonitor is installed), so that the
   * children map has a key for each.
   */
  optionalChildKinds?: string[];
  /**
   * A llamastack.io/v1alpha1 spec: the parent is what the conversion webhook
   * makes of it (toV1alpha2), its spec and its llamastack.io/v1alpha1-fields
   * annotation; `spec` is then filled in by loadCases.
   */
  fromV1alpha1?: unknown;
  /** The parent's annotations (set by loadCases for fromV1alpha1). */
  annotations?: Record<string, string>;
}

/** A case whose parent was converted from v1alpha1 gets the converted spec and annotations. */
function converted(c: CaseFile): CaseFile {
  if (c.fromV1alpha1 === undefined) return c;
  const result = toV1alpha2({
    apiVersion: "llamastack.io/v1alpha1",
    kind: "LlamaStackDistribution",
    metadata: { name: c.name ?? "llama", namespace: c.namespace ?? "default" },
    spec: c.fromV1alpha1 as JsonObject,
  });
  if (!result.ok) throw new Error(`fromV1alpha1 does not convert: ${JSON.stringify(result)}`);
  const obj = result.value as { spec: unknown; metadata: { annotations?: Record<string, string> } };
  return { ...c, spec: obj.spec, annotations: obj.metadata.annotations ?? {} };
}

export interface GoldenCase {
  name: string;
  dir: string;
  file: CaseFile;
}

export function loadCases(): GoldenCase[] {
  return readdirSync(CASES_DIR)
    .sort()
    .map((name) => {
      const dir = join(CASES_DIR, name);
      const file = converted(parse(readFileSync(join(dir, "case.yaml"), "utf8")) as CaseFile);
      return { name, dir, file };
    });
}

let context: SyncContext | undefined;
export function syncContext(): SyncContext {
  context ??= { catalog: loadCatalog(), generate: generateConfig };
  return context;
}

type Format = "v1" | "v2";

function keyOf(obj: KubeObject, format: Format): string {
  return format === "v2" ? `${obj.metadata.namespace}/${obj.metadata.name}` : obj.metadata.name;
}

function toMap(objects: readonly KubeObject[], format: Format, groups: readonly string[] = []) {
  const map: Record<string, Record<string, KubeObject>> = Object.fromEntries(
    groups.map((g) => [g, {}]),
  );
  for (const obj of objects) (map[groupKey(obj)] ??= {})[keyOf(obj, format)] = obj;
  return map;
}

/** The child types the CompositeController declares: Metacontroller always sends each group. */
export const CHILD_GROUPS = CHILD_TYPES.map(groupKey);

/** The groups of a case's CompositeController: the base install's and its components'. */
function childGroupsOf(c: CaseFile): string[] {
  const optional = (c.optionalChildKinds ?? []).map((kind) => {
    const t = OPTIONAL_CHILD_TYPES.find((o) => o.kind === kind);
    if (t === undefined)
      throw new Error(`optionalChildKinds: ${kind} is not an optional child type`);
    return groupKey(t);
  });
  return [...CHILD_GROUPS, ...optional];
}

function relatedObjects(
  c: { secrets?: CaseFile["secrets"]; configMaps?: CaseFile["configMaps"] },
  namespace: string,
): KubeObject[] {
  const make = (kind: string, entries: Record<string, string[] | RelatedSpec> | undefined) =>
    Object.entries(entries ?? {}).map(([name, spec]) => {
      const s = Array.isArray(spec) ? { keys: spec } : spec;
      return {
        apiVersion: "v1",
        kind,
        metadata: {
          name,
          namespace,
          resourceVersion: s.resourceVersion ?? "1",
          uid: `uid-${kind}-${name}`,
        },
        data: dataOf(name, s),
      };
    });
  return [...make("Secret", c.secrets), ...make("ConfigMap", c.configMaps)];
}

/** What a child looks like after Metacontroller applied it (dynamic apply). */
export function applied(
  child: KubeObject,
  opts: { parentUid: string; rolledOut: boolean; lastApplied: boolean; replicaFailure?: string },
): KubeObject {
  const annotations = { ...(child.metadata.annotations ?? {}) };
  if (opts.lastApplied) annotations[LAST_APPLIED_ANNOTATION] = JSON.stringify(child);
  const out: KubeObject = {
    ...structuredClone(child),
    metadata: {
      ...structuredClone(child.metadata),
      labels: { ...(child.metadata.labels ?? {}), "controller-uid": opts.parentUid },
      annotations,
      uid: `uid-${child.kind}-${child.metadata.name}`,
      resourceVersion: "100",
      generation: 1,
      creationTimestamp: APPLIED_AT,
    },
  };
  if (child.kind === "Deployment") {
    const replicas = (child as { spec?: { replicas?: number } }).spec?.replicas ?? 1;
    out["status"] = opts.rolledOut
      ? {
          observedGeneration: 1,
          replicas,
          updatedReplicas: replicas,
          readyReplicas: replicas,
          availableReplicas: replicas,
          conditions: [
            {
              type: "Available",
              status: "True",
              reason: "MinimumReplicasAvailable",
              message: "Deployment has minimum availability.",
            },
            {
              type: "Progressing",
              status: "True",
              reason: "NewReplicaSetAvailable",
              message: "ReplicaSet has successfully progressed.",
            },
          ],
        }
      : {
          observedGeneration: 1,
          replicas,
          updatedReplicas: 0,
          unavailableReplicas: replicas,
          conditions: [
            {
              type: "Available",
              status: "False",
              reason: "MinimumReplicasUnavailable",
              message: "Deployment does not have minimum availability.",
            },
            ...(opts.replicaFailure === undefined
              ? []
              : [
                  {
                    type: "ReplicaFailure",
                    status: "True",
                    reason: "FailedCreate",
                    message: opts.replicaFailure,
                  },
                ]),
          ],
        };
  }
  return out;
}

function parentOf(c: CaseFile, spec: unknown, generation: number, status: unknown) {
  return {
    apiVersion: "llamastack.io/v1alpha2",
    kind: "LlamaStackDistribution",
    metadata: {
      name: c.name ?? "llama",
      namespace: c.namespace ?? "default",
      uid: "uid-parent",
      generation,
      ...(c.annotations === undefined ? {} : { annotations: c.annotations }),
    },
    spec,
    ...(status === undefined ? {} : { status }),
  };
}

/** Expands a case into the sync request Metacontroller would send, in one hook format. */
export function buildRequest(c: CaseFile, format: Format): SyncRequest {
  const namespace = c.namespace ?? "default";
  let children = new Map<string, KubeObject>();
  let status: unknown;
  for (const [i, prior] of (c.observed ?? []).entries()) {
    const related = relatedObjects(
      prior.secrets !== undefined || prior.configMaps !== undefined ? prior : c,
      namespace,
    );
    const req = SyncRequest.parse({
      parent: parentOf(c, prior.spec, prior.generation ?? i + 1, status),
      children: toMap([...children.values()], format, childGroupsOf(c)),
      related: toMap(related, format),
    });
    // An earlier sync happens when Metacontroller applied its answer, at the
    // children's creationTimestamp: not at the case's own time.
    const outcome = sync(req, APPLIED_AT, syncContext());
    if (outcome.kind !== "ok")
      throw new Error(`observed[${i}] of the case did not sync: ${outcome.message}`);
    const next = new Map<string, KubeObject>();
    for (const child of outcome.response.children) {
      const id = `${child.kind}/${child.metadata.name}`;
      next.set(
        id,
        applied(child, {
          parentUid: "uid-parent",
          rolledOut: prior.rolledOut ?? true,
          lastApplied: prior.withoutLastApplied !== true,
          ...(prior.replicaFailure === undefined ? {} : { replicaFailure: prior.replicaFailure }),
        }),
      );
    }
    for (const [id, text] of Object.entries(prior.lastAppliedEdits ?? {})) {
      const child = next.get(id);
      if (child === undefined) throw new Error(`lastAppliedEdits: no child ${id}`);
      const annotations = { ...(child.metadata.annotations ?? {}) };
      if (text === null) delete annotations[LAST_APPLIED_ANNOTATION];
      else annotations[LAST_APPLIED_ANNOTATION] = text;
      next.set(id, { ...child, metadata: { ...child.metadata, annotations } });
    }
    children = next;
    status = outcome.response.status;
  }
  return SyncRequest.parse({
    controller: {
      apiVersion: "metacontroller.k8s.io/v1alpha1",
      kind: "CompositeController",
      metadata: { name: "llsd-hook" },
    },
    parent: parentOf(c, c.spec, c.generation ?? (c.observed?.length ?? 0) + 1, status),
    children: toMap([...children.values(), ...(c.adopted ?? [])], format, childGroupsOf(c)),
    related: toMap(relatedObjects(c, namespace), format, ["Secret.v1", "ConfigMap.v1"]),
    finalizing: false,
  });
}

export function runCase(c: CaseFile, format: Format): SyncOutcome {
  return sync(buildRequest(c, format), NOW, syncContext());
}

export function toYaml(value: unknown): string {
  return stringify(value, YAML_OPTIONS);
}

export function outcomeYaml(outcome: SyncOutcome): string {
  return toYaml(
    outcome.kind === "ok" ? outcome.response : { httpStatus: 409, error: outcome.message },
  );
}

/** The generated config.yaml the response's Deployment mounts, if there is one. */
export function configOf(response: SyncResponse): string | undefined {
  const deployment = response.children.find((c) => c.kind === "Deployment") as
    | {
        spec?: {
          template?: { spec?: { volumes?: { name: string; configMap?: { name?: string } }[] } };
        };
      }
    | undefined;
  const name = deployment?.spec?.template?.spec?.volumes?.find((v) => v.name === "config")
    ?.configMap?.name;
  const cm = response.children.find((c) => c.kind === "ConfigMap" && c.metadata.name === name);
  return (cm as { data?: Record<string, string> } | undefined)?.data?.["config.yaml"];
}

/** The llama-stack container's environment as the Deployment defines it. */
/** Secret-backed variables get test values. */
export function containerEnv(response: SyncResponse): Record<string, string> {
  const deployment = response.children.find((c) => c.kind === "Deployment") as
    Deployment | undefined;
  const container = deployment?.spec?.template.spec?.containers.find(
    (c) => c.name === "llama-stack",
  );
  return Object.fromEntries(
    (container?.env ?? []).map((e) => [
      e.name,
      e.value ??
        `test-value-of-${e.valueFrom?.secretKeyRef?.name}-${e.valueFrom?.secretKeyRef?.key}`,
    ]),
  );
}
