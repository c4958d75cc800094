// Drives the hook the way Metacontroller's CompositeController does, against
// a real kube-apiserver (Metacontroller's own module cannot be fetched from
// the Go proxy, so its sync loop is done here instead). Read from
// metacontroller/metacontroller v4.17.2 (76b818bd): pkg/controller/composite/
// controller.go (syncParentObject, claimChildren, updateParentStatus),
// pkg/controller/common/manage_children.go (ManageChildren, DynamicApply,
// ServerSideApply), pkg/third_party/kubernetes/controller_ref_manager.go and
// pkg/dynamic/controllerref/ (claim, adopt, release), pkg/dynamic/apply/.
//   claim the children: owned by the parent (controller ownerRef) or orphans;
//     an owned one whose labels no longer match the selector is released, a
//     matching orphan adopted (after an uncached GET of the parent)
//   customize → GET the related objects it names
//   POST /sync (hook v2) with parent, children, related
//   non-200 → change nothing
//   controller-uid added to each desired child (generateSelector), which must
//     then match the parent's selector
//   delete observed children not returned (UID precondition, Background)
//   create or update the others with one of the two apply strategies:
//     dynamic-apply (the default): create with the last-applied annotation and
//       a controller ownerRef; update with a three-way merge (observed, last
//       applied, desired), system metadata and status reverted, PUT only when
//       something changed (InPlace)
//     server-side-apply: controller ownerRef added; system metadata, status and
//       the last-applied annotation removed; an in-process cache (hash of that
//       object + the child's UID, generation, or resourceVersion when it has no
//       generation) skips unchanged applies; InPlace first removes a legacy
//       last-applied annotation with a JSON patch; then PATCH
//       application/apply-patch+yaml with the field manager and force=true
//   write the status through the status subresource, observedGeneration set;
//     even when some child writes failed (their errors are in the round).
// Every write carries Metacontroller's client-go User-Agent, so the API server
// records its Update requests (dynamic apply, adoption, the annotation's
// removal, status) under the manager "metacontroller", as in a real cluster.
// It reads the CompositeController from metacontroller/ so the declared child
// types, update methods and hook version are the ones users install.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { request as httpsRequest } from "node:https";
import { join } from "node:path";
import { parse } from "yaml";
import { LAST_APPLIED_ANNOTATION, type KubeObject } from "../../src/api/hook.js";
import { CHILD_TYPES, groupKey, RELATED_TYPES } from "../../src/children/types.js";
import { canonicalJson } from "../../src/lib/json.js";
import { collectionPath, type Kube, type Status } from "./kube.js";

/** The Metacontroller release this stand-in's behaviour was read from (the README's support table names it). */
export const METACONTROLLER_VERSION = "v4.17.2";

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type JsonObject = { [k: string]: Json };

interface ChildResource {
  apiVersion: string;
  resource: string;
  updateStrategy?: { method?: string };
}

export interface CompositeController {
  apiVersion: string;
  kind: string;
  metadata: { name: string };
  spec: {
    generateSelector?: boolean;
    parentResource: { apiVersion: string; resource: string };
    childResources: ChildResource[];
    hooks: { sync: { version?: string }; customize?: { version?: string } };
  };
}

function loadCompositeController(): CompositeController {
  return parse(
    readFileSync(
      join(import.meta.dirname, "..", "..", "metacontroller", "compositecontroller.yaml"),
      "utf8",
    ),
  ) as CompositeController;
}

/** Metacontroller's --apply-strategy. */
export type ApplyStrategy = "dynamic-apply" | "server-side-apply";

export interface MetacontrollerOptions {
  /** --apply-strategy (default "dynamic-apply", as in Metacontroller). */
  applyStrategy?: ApplyStrategy;
  /** --apply-strategy-ssa-field-manager (default "metacontroller"). */
  fieldManager?: string;
  /**
   * The webhook's caBundle (PEM) and Authorization header value, as Metacontroller resolves
   * them from the CompositeController's caBundle and authorization (hooks.ResolveCABundle,
   * ResolveAuthorization): for a hook URL on https.
   */
  webhook?: { caBundle?: string; authorization?: string; transport?: WebhookTransport };
}

/**
 * How a hook request reaches the hook: by default straight to the hook URL (over https
 * trusting only the caBundle). test/node/hook.ts passes one that routes the Service's
 * name as kube-proxy does, with Go's timeout and keep-alive.
 */
export type WebhookTransport = (
  url: string,
  body: string,
  headers: Record<string, string>,
) => Promise<{ status: number; text: string }>;

/**
 * What client-go's rest.DefaultKubernetesUserAgent() gives Metacontroller's
 * binary (/usr/bin/metacontroller, built outside Kubernetes' tree): the API
 * server takes the part before "/" as the field manager of its Update requests.
 */
const METACONTROLLER_USER_AGENT = "metacontroller/v0.0.0 (linux/amd64) kubernetes/$Format";

export interface SyncRound {
  httpStatus: number;
  body: unknown;
  /** Children the API server created. */
  created: string[];
  /** Children whose contents (but status, resourceVersion, managedFields) the API server changed. */
  updated: string[];
  deleted: string[];
  /** Server-side apply only: every apply PATCH sent (whether or not it changed anything). */
  applied: string[];
  /** Server-side apply only: children whose last-applied annotation was removed. */
  annotationRemoved: string[];
  /** Orphans adopted and children released while claiming. */
  adopted: string[];
  released: string[];
  /** Write errors Metacontroller would aggregate into the sync's error (and an event). */
  errors: string[];
  statusWritten: boolean;
  /** The parent's status as the API server stored it after this round. */
  storedStatus: unknown;
}

/** ObjectMeta's read-only, system-populated fields (manage_children.go objectMetaSystemFields). */
const SYSTEM_FIELDS = [
  "selfLink",
  "uid",
  "resourceVersion",
  "generation",
  "creationTimestamp",
  "deletionTimestamp",
  "deletionGracePeriodSeconds",
  "managedFields",
];
/** Metacontroller's merge keys for lists of objects, in its order of precedence. */
const LIST_MERGE_KEYS = ["containerPort", "port", "mountPath", "name", "uid", "ip", "path"];
const CONTROLLER_UID = "controller-uid";

function isObj(v: Json | undefined): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function mergeKeyOf(...lists: Json[][]): string | undefined {
  const items = lists.flat();
  if (items.length === 0 || !items.every(isObj)) return undefined;
  return LIST_MERGE_KEYS.find((k) => items.every((i) => i[k] !== undefined));
}

/** kubectl-apply-style three-way merge: desired wins, fields we stopped returning go. */
function merge3(observed: Json | undefined, last: Json | undefined, desired: Json): Json {
  if (isObj(desired)) {
    const obs = isObj(observed) ? observed : {};
    const lst = isObj(last) ? last : {};
    const out: JsonObject = { ...obs };
    for (const k of Object.keys(lst)) if (!(k in desired)) delete out[k];
    for (const [k, v] of Object.entries(desired)) out[k] = merge3(obs[k], lst[k], v);
    return out;
  }
  if (Array.isArray(desired) && Array.isArray(observed)) {
    const lastList = Array.isArray(last) ? last : [];
    const key = mergeKeyOf(desired, observed, lastList);
    if (key === undefined) return desired;
    const find = (list: Json[], item: Json) =>
      list.find((o) => (o as JsonObject)[key] === (item as JsonObject)[key]);
    return desired.map((d) => merge3(find(observed, d), find(lastList, d), d));
  }
  return desired;
}

/** Go's encoding/json: keys sorted, and <, >, &, U+2028, U+2029 escaped. */
function goJson(value: unknown): string {
  return canonicalJson(value).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

interface OwnerRef {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

type Meta = KubeObject["metadata"] & {
  ownerReferences?: OwnerRef[];
  deletionTimestamp?: string;
  generation?: number;
};

const meta = (o: KubeObject) => o.metadata as Meta;

/** MakeControllerRef. */
function controllerRef(parent: KubeObject): OwnerRef {
  return {
    apiVersion: parent.apiVersion,
    kind: parent.kind,
    name: parent.metadata.name,
    uid: parent.metadata.uid ?? "",
    controller: true,
    blockOwnerDeletion: true,
  };
}

/** claimOwnership: the controller ownerRef, unless one with the parent's UID is there. */
function claimOwnership(obj: KubeObject, parent: KubeObject): void {
  const refs = meta(obj).ownerReferences ?? [];
  if (refs.some((r) => r.uid === parent.metadata.uid)) return;
  meta(obj).ownerReferences = [...refs, controllerRef(parent)];
}

/** The object without the last-applied annotation (nullifyLastAppliedAnnotation). */
function nullifyLastApplied(obj: KubeObject): void {
  const annotations = obj.metadata.annotations;
  if (annotations === undefined || !Object.hasOwn(annotations, LAST_APPLIED_ANNOTATION)) return;
  delete annotations[LAST_APPLIED_ANNOTATION];
}

/** sanitizeForSSACompare: no system metadata, status or last-applied annotation. */
function sanitizeForSsa(obj: KubeObject): KubeObject {
  const c = structuredClone(obj) as KubeObject & { status?: unknown };
  const m = c.metadata as unknown as Record<string, unknown>;
  for (const f of SYSTEM_FIELDS) delete m[f];
  delete c.status;
  nullifyLastApplied(c);
  return c;
}

/**
 * A child as Metacontroller's server-side apply sends it for `parent`: with the
 * parent's namespace when it has none, the controller-uid label
 * (generateSelector), the controller ownerRef, then sanitized.
 */
export function ssaPayload(
  child: KubeObject,
  parent: KubeObject,
  controller: CompositeController,
): KubeObject {
  const obj = withControllerUid(defaultNamespace(child, parent), parent, controller);
  claimOwnership(obj, parent);
  return sanitizeForSsa(obj);
}

function defaultNamespace(child: KubeObject, parent: KubeObject): KubeObject {
  const copy = structuredClone(child);
  if (copy.metadata.namespace === undefined || copy.metadata.namespace === "")
    copy.metadata.namespace = parent.metadata.namespace ?? "";
  return copy;
}

/** controller.go: with generateSelector, controller-uid is added unless the child sets it. */
function withControllerUid(
  child: KubeObject,
  parent: KubeObject,
  controller: CompositeController,
): KubeObject {
  if (controller.spec.generateSelector !== true) return child;
  const labels = child.metadata.labels ?? {};
  if (Object.hasOwn(labels, CONTROLLER_UID)) return child;
  return {
    ...child,
    metadata: {
      ...child.metadata,
      labels: { ...labels, [CONTROLLER_UID]: parent.metadata.uid ?? "" },
    },
  };
}

/** manage_children.go lastUpdate: what the server-side apply cache remembers per child. */
interface LastUpdate {
  hash: string;
  generation: number;
  resourceVersion: string;
  uid: string;
}

function isCacheInvalid(cached: LastUpdate | undefined, observed: KubeObject, hash: string) {
  const generation = meta(observed).generation ?? 0;
  if (cached === undefined) return true;
  if (cached.uid !== observed.metadata.uid) return true;
  if (cached.hash !== hash) return true;
  if (generation === 0 && observed.metadata.resourceVersion !== cached.resourceVersion) return true;
  return cached.generation !== generation;
}

interface ChildType {
  apiVersion: string;
  kind: string;
  resource: string;
  method: string;
}

const id = (o: KubeObject) => `${o.kind}/${o.metadata.name}`;

/**
 * An object without status, resourceVersion and managedFields: whether an apply
 * changed it, even when a controller wrote its status meanwhile.
 */
function contentOf(o: KubeObject | undefined): string {
  if (o === undefined) return "";
  const c = structuredClone(o) as KubeObject & { status?: unknown };
  const m = c.metadata as unknown as Record<string, unknown>;
  delete c.status;
  delete m["resourceVersion"];
  delete m["managedFields"];
  return canonicalJson(c);
}

/** POST a JSON body; over https, trusting only `caBundle` when given (as Metacontroller's webhook client does). */
async function postJson(
  url: string,
  body: string,
  headers: Record<string, string>,
  caBundle: string | undefined,
): Promise<{ status: number; text: string }> {
  if (caBundle === undefined) {
    const res = await fetch(url, { method: "POST", headers, body });
    return { status: res.status, text: await res.text() };
  }
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      url,
      {
        method: "POST",
        ca: caBundle,
        headers: { ...headers, "content-length": String(Buffer.byteLength(body)) },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => (text += c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

function statusMessage(body: unknown): string {
  const s = body as Status | undefined;
  return typeof s?.message === "string" ? s.message : JSON.stringify(body);
}

export class Metacontroller {
  readonly controller = loadCompositeController();
  readonly applyStrategy: ApplyStrategy;
  readonly fieldManager: string;
  /** The in-process server-side apply cache (lastUpdatedCache); a restart empties it. */
  private readonly lastUpdated = new Map<string, LastUpdate>();
  private readonly kube: Kube;
  private readonly webhook: NonNullable<MetacontrollerOptions["webhook"]>;

  constructor(
    kube: Kube,
    private readonly hookUrl: string,
    options: MetacontrollerOptions = {},
  ) {
    this.kube = kube.withUserAgent(METACONTROLLER_USER_AGENT);
    this.webhook = options.webhook ?? {};
    this.applyStrategy = options.applyStrategy ?? "dynamic-apply";
    this.fieldManager = options.fieldManager ?? "metacontroller";
  }

  private childTypes(): ChildType[] {
    return this.controller.spec.childResources.map((r) => {
      const t = CHILD_TYPES.find((c) => c.apiVersion === r.apiVersion && c.resource === r.resource);
      if (t === undefined) throw new Error(`unknown child resource ${r.apiVersion} ${r.resource}`);
      return { ...t, method: r.updateStrategy?.method ?? "OnDelete" };
    });
  }

  private typeOf(o: KubeObject): ChildType {
    const t = this.childTypes().find((t) => t.kind === o.kind && t.apiVersion === o.apiVersion);
    if (t === undefined)
      throw new Error(
        `the hook returned ${o.kind} ${o.apiVersion}, which the CompositeController does not declare`,
      );
    return t;
  }

  private async post(path: string, body: unknown): Promise<{ status: number; body: unknown }> {
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (this.webhook.authorization !== undefined)
      headers["authorization"] = this.webhook.authorization;
    const url = `${this.hookUrl}${path}`;
    const res =
      this.webhook.transport === undefined
        ? await postJson(url, JSON.stringify(body), headers, this.webhook.caBundle)
        : await this.webhook.transport(url, JSON.stringify(body), headers);
    const text = res.text;
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // keep text
    }
    return { status: res.status, body: parsed };
  }

  private async related(parent: KubeObject): Promise<Record<string, Record<string, KubeObject>>> {
    const res = await this.post("/customize", { controller: this.controller, parent });
    if (res.status !== 200) throw new Error(`/customize answered ${res.status}`);
    const rules = (
      res.body as {
        relatedResources: {
          apiVersion: string;
          resource: string;
          namespace: string;
          names: string[];
        }[];
      }
    ).relatedResources;
    const out: Record<string, Record<string, KubeObject>> = {};
    for (const rule of rules) {
      const t = RELATED_TYPES.find(
        (r) => r.apiVersion === rule.apiVersion && r.resource === rule.resource,
      );
      if (t === undefined)
        throw new Error(`customize asked for ${rule.resource}, not a related type`);
      const group = (out[groupKey(t)] ??= {});
      for (const name of rule.names) {
        const obj = await this.kube.get(rule.apiVersion, rule.resource, rule.namespace, name);
        if (obj !== undefined)
          group[`${rule.namespace}/${name}`] = { ...obj, apiVersion: t.apiVersion, kind: t.kind };
      }
    }
    return out;
  }

  /** The parent's selector as a predicate on labels (generateSelector only, as ours is). */
  private selectorOf(parent: KubeObject): (labels: Record<string, string> | undefined) => boolean {
    if (this.controller.spec.generateSelector !== true)
      throw new Error("only generateSelector: true is emulated");
    const uid = parent.metadata.uid ?? "";
    return (labels) => labels?.[CONTROLLER_UID] === uid;
  }

  /** The parent's children: labelled with its controller-uid and controlled by it (read only). */
  async children(parent: KubeObject): Promise<KubeObject[]> {
    const uid = parent.metadata.uid ?? "";
    const out: KubeObject[] = [];
    for (const t of this.childTypes()) {
      const list = await this.kube.list(
        t.apiVersion,
        t.resource,
        parent.metadata.namespace,
        `${CONTROLLER_UID}=${uid}`,
      );
      out.push(
        ...list.filter((o) =>
          (meta(o).ownerReferences ?? []).some((r) => r.uid === uid && r.controller === true),
        ),
      );
    }
    return out;
  }

  /** GET, change, PUT with the resourceVersion read; again on a conflict (AtomicUpdate). */
  private async atomicUpdate(
    t: ChildType,
    obj: KubeObject,
    change: (live: KubeObject) => void,
  ): Promise<number> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const live = await this.kube.get(
        t.apiVersion,
        t.resource,
        obj.metadata.namespace,
        obj.metadata.name,
      );
      if (live === undefined) return 404;
      if (live.metadata.uid !== obj.metadata.uid) return 409;
      change(live);
      const res = await this.kube.request({
        method: "PUT",
        path: `${collectionPath(t.apiVersion, t.resource, live.metadata.namespace)}/${live.metadata.name}`,
        body: live,
      });
      if (res.status !== 409) return res.status;
    }
    return 409;
  }

  /**
   * claimChildren: candidates are the objects of each child type in the
   * parent's namespace that the parent controls or that no one controls; an
   * owned one that still matches the selector is kept, one that does not is
   * released; a matching orphan is adopted once an uncached GET shows the
   * parent is not being deleted; anything another controller owns is ignored.
   */
  private async claim(parent: KubeObject, round: SyncRound): Promise<KubeObject[]> {
    const uid = parent.metadata.uid ?? "";
    const matches = this.selectorOf(parent);
    const parentDeleting = meta(parent).deletionTimestamp !== undefined;
    let canAdopt: boolean | undefined;
    const claimed: KubeObject[] = [];
    for (const t of this.childTypes()) {
      for (const o of await this.kube.list(t.apiVersion, t.resource, parent.metadata.namespace)) {
        const ref = (meta(o).ownerReferences ?? []).find((r) => r.controller === true);
        if (ref !== undefined) {
          if (ref.uid !== uid) continue;
          if (matches(o.metadata.labels)) {
            claimed.push(o);
            continue;
          }
          if (parentDeleting) continue;
          const status = await this.atomicUpdate(t, o, (live) => {
            meta(live).ownerReferences = (meta(live).ownerReferences ?? []).filter(
              (r) => r.uid !== uid,
            );
          });
          if (status >= 300 && status !== 404)
            round.errors.push(`release ${id(o)}: HTTP ${status}`);
          else round.released.push(id(o));
          continue;
        }
        if (
          parentDeleting ||
          !matches(o.metadata.labels) ||
          meta(o).deletionTimestamp !== undefined
        )
          continue;
        if (canAdopt === undefined) {
          const { apiVersion, resource } = this.controller.spec.parentResource;
          const fresh = await this.kube.get(
            apiVersion,
            resource,
            parent.metadata.namespace,
            parent.metadata.name,
          );
          canAdopt = fresh?.metadata.uid === uid && meta(fresh).deletionTimestamp === undefined;
        }
        if (!canAdopt) {
          round.errors.push(`can't adopt ${id(o)}: the parent is gone or being deleted`);
          continue;
        }
        const status = await this.atomicUpdate(t, o, (live) => {
          meta(live).ownerReferences = [
            ...(meta(live).ownerReferences ?? []).filter((r) => r.uid !== uid),
            controllerRef(parent),
          ];
        });
        if (status === 404) continue;
        if (status >= 300) {
          round.errors.push(`adopt ${id(o)}: HTTP ${status}`);
          continue;
        }
        round.adopted.push(id(o));
        claimed.push(o);
      }
    }
    return claimed;
  }

  /** One sync of one parent, as Metacontroller runs it. */
  async sync(namespace: string, name: string): Promise<SyncRound | undefined> {
    const { apiVersion, resource } = this.controller.spec.parentResource;
    const parent = await this.kube.get(apiVersion, resource, namespace, name);
    if (parent === undefined) return undefined;
    const round: SyncRound = {
      httpStatus: 0,
      body: undefined,
      created: [],
      updated: [],
      deleted: [],
      applied: [],
      annotationRemoved: [],
      adopted: [],
      released: [],
      errors: [],
      statusWritten: false,
      storedStatus: (parent as { status?: unknown }).status,
    };
    const observed = await this.claim(parent, round);
    const related = await this.related(parent);
    const childMap: Record<string, Record<string, KubeObject>> = Object.fromEntries(
      this.childTypes().map((t) => [groupKey(t), {}]),
    );
    for (const c of observed)
      (childMap[groupKey(c)] ??= {})[`${c.metadata.namespace}/${c.metadata.name}`] = c;
    const res = await this.post("/sync", {
      controller: this.controller,
      parent,
      children: childMap,
      related,
      finalizing: false,
    });
    round.httpStatus = res.status;
    round.body = res.body;
    if (res.status !== 200) return round;
    const answer = res.body as { status?: JsonObject | null; children?: KubeObject[] | null };

    const matches = this.selectorOf(parent);
    const desired = (answer.children ?? []).map((c) =>
      withControllerUid(defaultNamespace(c, parent), parent, this.controller),
    );
    const mismatched = desired.find((d) => !matches(d.metadata.labels));
    if (mismatched !== undefined) {
      // The whole sync fails before anything is applied or the status written.
      round.errors.push(`labels on desired child ${id(mismatched)} don't match parent selector`);
      return round;
    }
    await this.manageChildren(parent, observed, desired, round);

    // updateParentStatus: observedGeneration is the generation this sync saw.
    const status = {
      ...(answer.status ?? {}),
      observedGeneration: parent.metadata.generation ?? 0,
    };
    const fresh = await this.kube.get(apiVersion, resource, namespace, name);
    if (fresh === undefined || fresh.metadata.uid !== parent.metadata.uid) return round;
    const old = (fresh as { status?: unknown }).status;
    if (canonicalJson(old) !== canonicalJson(status)) {
      const stored = (await this.kube.replaceStatus(apiVersion, resource, {
        ...fresh,
        status,
      })) as {
        status?: unknown;
      };
      if (canonicalJson(stored.status) !== canonicalJson(status))
        throw new Error(
          `the API server pruned or changed the status:\n sent   ${canonicalJson(status)}\n stored ${canonicalJson(stored.status)}`,
        );
      round.statusWritten = true;
      round.storedStatus = stored.status;
    } else {
      round.storedStatus = old;
    }
    return round;
  }

  /**
   * ManageChildren for one parent: deletes what is observed and not desired,
   * then creates or updates each desired child with the apply strategy. A
   * failed write is recorded and the others go on.
   */
  async manageChildren(
    parent: KubeObject,
    observed: readonly KubeObject[],
    desired: readonly KubeObject[],
    round: SyncRound,
  ): Promise<void> {
    const desiredIds = new Set(desired.map(id));
    for (const o of observed) {
      if (desiredIds.has(id(o)) || meta(o).deletionTimestamp !== undefined) continue;
      try {
        const t = this.typeOf(o);
        await this.kube.remove(o.apiVersion, t.resource, o.metadata.namespace, o.metadata.name, {
          uid: o.metadata.uid ?? "",
        });
        this.lastUpdated.delete(this.cacheKey(t, o));
        round.deleted.push(id(o));
      } catch (err) {
        round.errors.push(`can't delete ${id(o)}: ${(err as Error).message}`);
      }
    }
    for (const d of desired) {
      const t = this.typeOf(d);
      const current = observed.find((o) => id(o) === id(d));
      if (this.applyStrategy === "server-side-apply")
        await this.serverSideApply(t, parent, current, d, round);
      else await this.dynamicApply(t, parent, current, d, round);
    }
  }

  private cacheKey(t: ChildType, o: KubeObject): string {
    const group = t.apiVersion.includes("/") ? t.apiVersion.split("/")[0] : "";
    return `${group}/${t.kind}/${o.metadata.namespace}/${o.metadata.name}`;
  }

  /** DynamicApply.Apply. */
  private async dynamicApply(
    t: ChildType,
    parent: KubeObject,
    current: KubeObject | undefined,
    desired: KubeObject,
    round: SyncRound,
  ): Promise<void> {
    if (current === undefined) {
      // The annotation is the child as desired, before the ownerRef is added.
      const obj = structuredClone(desired);
      obj.metadata.annotations = {
        ...(obj.metadata.annotations ?? {}),
        [LAST_APPLIED_ANNOTATION]: goJson(desired),
      };
      claimOwnership(obj, parent);
      const created = await this.kube.create(obj.apiVersion, t.resource, obj);
      if (created.status === 409) return; // AlreadyExists is swallowed
      if (created.status >= 300)
        round.errors.push(
          `create ${id(obj)}: HTTP ${created.status}: ${statusMessage(created.body)}`,
        );
      else round.created.push(id(obj));
      return;
    }
    // ApplyUpdate: a last-applied annotation in the desired child is dropped first.
    const d = structuredClone(desired);
    nullifyLastApplied(d);
    const lastApplied = goJson(d);
    const lastText = current.metadata.annotations?.[LAST_APPLIED_ANNOTATION];
    let last: Json | undefined;
    try {
      last = lastText === undefined || lastText === "" ? undefined : (JSON.parse(lastText) as Json);
    } catch (err) {
      round.errors.push(
        `${id(d)}: can't unmarshal ${LAST_APPLIED_ANNOTATION}: ${(err as Error).message}`,
      );
      return;
    }
    const next = merge3(current as unknown as Json, last, d as unknown as Json) as JsonObject;
    const nextMeta = next["metadata"] as JsonObject;
    const curMeta = current.metadata as unknown as JsonObject;
    for (const f of SYSTEM_FIELDS) {
      if (curMeta[f] === undefined) delete nextMeta[f];
      else nextMeta[f] = curMeta[f];
    }
    const curStatus = (current as unknown as JsonObject)["status"];
    if (curStatus === undefined) delete next["status"];
    else next["status"] = curStatus;
    nextMeta["annotations"] = {
      ...((nextMeta["annotations"] as JsonObject | undefined) ?? {}),
      [LAST_APPLIED_ANNOTATION]: lastApplied,
    };
    if (canonicalJson(next) === canonicalJson(current)) return;
    if (meta(current).deletionTimestamp !== undefined) return;
    switch (t.method) {
      case "OnDelete":
        return;
      case "InPlace":
      case "RollingInPlace": {
        const res = await this.kube.request({
          method: "PUT",
          path: `${collectionPath(t.apiVersion, t.resource, current.metadata.namespace)}/${current.metadata.name}`,
          body: next,
        });
        // NotFound and Conflict are swallowed: the next event syncs again.
        if (res.status === 404 || res.status === 409) return;
        if (res.status >= 300)
          round.errors.push(`update ${id(d)}: HTTP ${res.status}: ${statusMessage(res.body)}`);
        else round.updated.push(id(d));
        return;
      }
      default:
        throw new Error(`update strategy ${t.method} is not emulated`);
    }
  }

  /** ServerSideApply.Apply. */
  private async serverSideApply(
    t: ChildType,
    parent: KubeObject,
    current: KubeObject | undefined,
    desired: KubeObject,
    round: SyncRound,
  ): Promise<void> {
    if (current !== undefined && meta(current).deletionTimestamp !== undefined) return;
    const payload = ssaPayload(desired, parent, this.controller);
    const hash = createHash("sha256").update(goJson(payload)).digest("hex");
    const key = this.cacheKey(t, payload);
    const store = (o: KubeObject) =>
      this.lastUpdated.set(key, {
        hash,
        generation: meta(o).generation ?? 0,
        resourceVersion: o.metadata.resourceVersion ?? "",
        uid: o.metadata.uid ?? "",
      });
    const path = `${collectionPath(t.apiVersion, t.resource, payload.metadata.namespace)}/${payload.metadata.name}`;
    let before = current;
    if (current !== undefined) {
      if (!isCacheInvalid(this.lastUpdated.get(key), current, hash)) return;
      switch (t.method) {
        case "OnDelete":
          store(current);
          return;
        case "InPlace":
        case "RollingInPlace": {
          const annotations = current.metadata.annotations ?? {};
          if (Object.hasOwn(annotations, LAST_APPLIED_ANNOTATION)) {
            const escaped = LAST_APPLIED_ANNOTATION.replaceAll("~", "~0").replaceAll("/", "~1");
            const res = await this.kube.request<KubeObject>({
              method: "PATCH",
              path,
              body: `[{"op": "remove", "path": "/metadata/annotations/${escaped}"}]`,
              contentType: "application/json-patch+json",
            });
            if (res.status === 404) return;
            if (res.status >= 300) {
              round.errors.push(
                `remove ${LAST_APPLIED_ANNOTATION} from ${id(desired)}: HTTP ${res.status}: ${statusMessage(res.body)}`,
              );
              return;
            }
            round.annotationRemoved.push(id(desired));
            round.updated.push(id(desired));
            before = res.body;
          }
          break;
        }
        default:
          throw new Error(`update strategy ${t.method} is not emulated`);
      }
    }
    const res = await this.kube.request<KubeObject>({
      method: "PATCH",
      path,
      body: goJson(payload),
      contentType: "application/apply-patch+yaml",
      query: { fieldManager: this.fieldManager, force: "true" },
    });
    if (res.status === 409) return; // a conflict is swallowed: the next event syncs again
    if (res.status >= 300) {
      round.errors.push(`apply ${id(desired)}: HTTP ${res.status}: ${statusMessage(res.body)}`);
      return;
    }
    round.applied.push(id(desired));
    if (res.status === 201) round.created.push(id(desired));
    else if (contentOf(res.body) !== contentOf(before) && !round.updated.includes(id(desired)))
      round.updated.push(id(desired));
    store(res.body);
  }

  /**
   * Syncs until a round changes nothing, as Metacontroller's watches would
   * (every child or status write triggers another sync). Returns every round;
   * a write error fails it unless `tolerateErrors`.
   */
  async reconcile(
    namespace: string,
    name: string,
    opts: { maxRounds?: number; tolerateErrors?: boolean } = {},
  ): Promise<SyncRound[]> {
    const maxRounds = opts.maxRounds ?? 8;
    const rounds: SyncRound[] = [];
    for (let i = 0; i < maxRounds; i++) {
      const round = await this.sync(namespace, name);
      if (round === undefined) return rounds;
      rounds.push(round);
      if (round.errors.length > 0 && opts.tolerateErrors !== true)
        throw new Error(`${namespace}/${name}: sync failed: ${round.errors.join("; ")}`);
      const changed =
        round.created.length +
          round.updated.length +
          round.deleted.length +
          round.adopted.length +
          round.released.length >
          0 || round.statusWritten;
      if (!changed) return rounds;
    }
    throw new Error(
      `${namespace}/${name} did not settle in ${maxRounds} syncs: ${JSON.stringify(rounds.map((r) => ({ ...r, body: undefined })))}`,
    );
  }
}
