// The field mapping between llamastack.io/v1alpha1 and v1alpha2, both ways:
// the plain moves of the field table (table.ts), then the fields whose meaning
// needs more than a move. It maps only what has a home; the restore list
// (restore.ts) keeps the rest, so neither function needs to be lossless.
import { isDeepStrictEqual } from "node:util";
import { API_VERSION, KIND } from "../api/schema.js";
import { clone, isObject, own, type JsonObject } from "../lib/json.js";
import type { Problem } from "../problems.js";
import { distributionDown, distributionUp } from "./distribution.js";
import { deleteAt, ensureAt, pathOf, setAt } from "./json-path.js";
import {
  isZero,
  namespaceOf,
  read,
  readInteger,
  reader,
  readString,
  type Reader,
} from "./reader.js";
import { FIELD_RULES, type FieldRule } from "./table.js";
import { V1ALPHA1_API_VERSION } from "../api/v1alpha1.js";

export { V1ALPHA1_API_VERSION };
export const V1ALPHA2_API_VERSION = API_VERSION;

export interface Mapped {
  value: JsonObject;
  /** Fields of the wrong type: the object cannot be mapped. */
  problems: Problem[];
}

type Direction = "up" | "down";

/** apiVersion, kind and metadata, which are the same in both versions. */
function frame(src: JsonObject, apiVersion: string): JsonObject {
  const out: JsonObject = { apiVersion, kind: KIND };
  const metadata = own(src, "metadata");
  if (metadata !== undefined) out["metadata"] = clone(metadata);
  return out;
}

/** One plain move of the field table. */
function move(r: Reader, out: JsonObject, rule: FieldRule, direction: Direction): void {
  if (rule.v1alpha2 === null || rule.custom !== undefined) return;
  const [from, to] =
    direction === "up" ? [rule.v1alpha1, rule.v1alpha2] : [rule.v1alpha2, rule.v1alpha1];
  const value = read(r, from, rule.kind);
  if (value === undefined) return;
  if (direction === "up" && rule.zeroIsDefault === true && isZero(value)) return;
  if (rule.presenceOnly === true) ensureAt(out, pathOf(to));
  else if (rule.kind === "quantity" && typeof value === "number")
    setAt(out, pathOf(to), String(value));
  else setAt(out, pathOf(to), clone(value));
}

const V1ALPHA2_PHASES = ["Pending", "Initializing", "Ready", "Failed"];

/** v1alpha1 → v1alpha2: every field that has a v1alpha2 home, in its v1alpha2 meaning. */
export function mapUp(src: JsonObject): Mapped {
  const r = reader(src, V1ALPHA1_API_VERSION);
  const out = frame(src, V1ALPHA2_API_VERSION);
  for (const rule of FIELD_RULES) move(r, out, rule, "up");
  distributionUp(r, out);
  userConfigUp(r, out);
  caBundleUp(r, out);
  exposeUp(r, out);
  allowedFromUp(r, out);
  autoscalingUp(r, out);
  disruptionBudgetUp(r, out);
  const phase = readString(r, "status.phase");
  if (phase !== undefined && V1ALPHA2_PHASES.includes(phase))
    setAt(out, ["status", "phase"], phase);
  return { value: out, problems: [...r.problems.values()] };
}

/** v1alpha2 → v1alpha1: every field that has a v1alpha1 home. */
export function mapDown(src: JsonObject): Mapped {
  const r = reader(src, V1ALPHA2_API_VERSION);
  const out = frame(src, V1ALPHA1_API_VERSION);
  for (const rule of FIELD_RULES) move(r, out, rule, "down");
  distributionDown(r, out);
  userConfigDown(r, out);
  caBundleDown(r, out);
  exposeDown(r, out);
  allowedFromDown(r, out);
  autoscalingDown(r, out);
  disruptionBudgetDown(r, out);
  const phase = readString(r, "status.phase");
  if (phase !== undefined) setAt(out, ["status", "phase"], phase);
  return { value: out, problems: [...r.problems.values()] };
}

// ---------------------------------------------------------------- userConfig ↔ overrideConfig

/** Only a ConfigMap in the object's own namespace has a v1alpha2 meaning. */
function userConfigUp(r: Reader, out: JsonObject): void {
  if (read(r, "spec.server.userConfig", "object") === undefined) return;
  const name = readString(r, "spec.server.userConfig.configMapName");
  const namespace = readString(r, "spec.server.userConfig.configMapNamespace");
  if (name === undefined || name === "") return;
  if (namespace === undefined || namespace === "" || namespace === namespaceOf(r.root))
    setAt(out, ["spec", "overrideConfig"], { configMapName: name });
}

function userConfigDown(r: Reader, out: JsonObject): void {
  if (read(r, "spec.overrideConfig", "object") === undefined) return;
  const name = readString(r, "spec.overrideConfig.configMapName");
  if (name !== undefined) setAt(out, ["spec", "server", "userConfig"], { configMapName: name });
}

// ---------------------------------------------------------------- tlsConfig.caBundle ↔ trust.caBundle

/**
 * spec.trust.caBundle takes one key of a ConfigMap in the resource's own
 * namespace; a bundle spread over several keys, or one in another namespace,
 * has no v1alpha2 meaning and stays in the annotation (notes.ts says so).
 * Without configMapKeys (or with an empty list) the retired operator mounted
 * the key ca-bundle.crt (llamastack/llama-stack-k8s-operator: DefaultCABundleKey
 * in controllers/llamastackdistribution_controller.go @ 0126182, mounted by
 * subPath in controllers/resource_helper.go @ 138f0f2), which is also
 * trust.caBundle's default key: the key is left out.
 */
function caBundleUp(r: Reader, out: JsonObject): void {
  const at = "spec.server.tlsConfig.caBundle";
  if (read(r, at, "object") === undefined) return;
  const name = readString(r, `${at}.configMapName`);
  const namespace = readString(r, `${at}.configMapNamespace`);
  const keys = read(r, `${at}.configMapKeys`, "list");
  if (name === undefined || name === "") return;
  if (namespace !== undefined && namespace !== "" && namespace !== namespaceOf(r.root)) return;
  if (keys === undefined || (Array.isArray(keys) && keys.length === 0)) {
    setAt(out, pathOf("spec.trust.caBundle"), { configMapName: name });
    return;
  }
  const key = Array.isArray(keys) && keys.length === 1 ? keys[0] : undefined;
  if (typeof key !== "string" || key === "") return;
  setAt(out, pathOf("spec.trust.caBundle"), { configMapName: name, key });
}

function caBundleDown(r: Reader, out: JsonObject): void {
  if (read(r, "spec.trust.caBundle", "object") === undefined) return;
  const name = readString(r, "spec.trust.caBundle.configMapName");
  const key = readString(r, "spec.trust.caBundle.key");
  if (name === undefined) return;
  setAt(out, pathOf("spec.server.tlsConfig.caBundle"), {
    configMapName: name,
    ...(key === undefined ? {} : { configMapKeys: [key] }),
  });
}

// ---------------------------------------------------------------- network ↔ networking

function exposeUp(r: Reader, out: JsonObject): void {
  if (read(r, "spec.network.exposeRoute", "boolean") === true)
    setAt(out, ["spec", "networking", "expose"], { enabled: true });
}

function exposeDown(r: Reader, out: JsonObject): void {
  if (read(r, "spec.networking.expose", "object") === undefined) return;
  const enabled = read(r, "spec.networking.expose.enabled", "boolean");
  setAt(out, ["spec", "network", "exposeRoute"], enabled ?? true);
}

/** v1alpha1's NetworkPolicy always admitted the object's own namespace; v1alpha2's only when listed. */
function allowedFromUp(r: Reader, out: JsonObject): void {
  if (read(r, "spec.network.allowedFrom", "object") === undefined) return;
  const listed = read(r, "spec.network.allowedFrom.namespaces", "list");
  const namespaces = Array.isArray(listed) ? listed : [];
  const own = namespaceOf(r.root);
  const withOwn =
    own === undefined || namespaces.includes("*") || namespaces.includes(own)
      ? namespaces
      : [own, ...namespaces];
  if (withOwn.length > 0)
    setAt(out, pathOf("spec.networking.allowedFrom.namespaces"), clone(withOwn));
}

function allowedFromDown(r: Reader, out: JsonObject): void {
  const listed = read(r, "spec.networking.allowedFrom.namespaces", "list");
  if (!Array.isArray(listed)) return;
  const own = namespaceOf(r.root);
  const namespaces = listed.filter((n) => n !== own);
  if (namespaces.length > 0)
    setAt(out, pathOf("spec.network.allowedFrom.namespaces"), clone(namespaces));
}

// ---------------------------------------------------------------- autoscaling, disruption budget

const AUTOSCALING_V2 = pathOf("spec.workload.autoscaling");

/** No autoscaler with maxReplicas 0; minReplicas as v1alpha1 resolved it. */
function autoscalingUp(r: Reader, out: JsonObject): void {
  if (read(r, "spec.server.autoscaling", "object") === undefined) return;
  const max = readInteger(r, "spec.server.autoscaling.maxReplicas");
  if (max === undefined || max === 0) {
    deleteAt(out, AUTOSCALING_V2);
    return;
  }
  const min = readInteger(r, "spec.server.autoscaling.minReplicas") ?? 0;
  const replicas = readInteger(r, "spec.replicas") ?? 0;
  setAt(out, [...AUTOSCALING_V2, "minReplicas"], Math.max(1, replicas, min));
}

function autoscalingDown(r: Reader, out: JsonObject): void {
  if (read(r, "spec.workload.autoscaling", "object") === undefined) return;
  const autoscaling = ensureAt(out, pathOf("spec.server.autoscaling"));
  const min = readInteger(r, "spec.workload.autoscaling.minReplicas");
  if (min !== undefined) autoscaling["minReplicas"] = min;
}

/** The budget v1alpha1 created for more than one replica when none was given. */
const DEFAULT_BUDGET = { maxUnavailable: 1 };

function disruptionBudgetUp(r: Reader, out: JsonObject): void {
  if (read(r, "spec.server.podDisruptionBudget", "object") !== undefined) return;
  const replicas = readInteger(r, "spec.replicas");
  if (replicas !== undefined && replicas > 1)
    setAt(out, pathOf("spec.workload.podDisruptionBudget"), { ...DEFAULT_BUDGET });
}

function disruptionBudgetDown(r: Reader, out: JsonObject): void {
  const budget = read(r, "spec.workload.podDisruptionBudget", "object");
  if (!isObject(budget)) return;
  const replicas = readInteger(r, "spec.workload.replicas");
  if (replicas !== undefined && replicas > 1 && isDeepStrictEqual(budget, DEFAULT_BUDGET))
    deleteAt(out, pathOf("spec.server.podDisruptionBudget"));
  else ensureAt(out, pathOf("spec.server.podDisruptionBudget"));
}
