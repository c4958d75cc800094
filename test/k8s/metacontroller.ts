// Drives the hook the way Metacontroller's CompositeController does, against
// a real kube-apiserver (Metacontroller's own module cannot be fetched from
// the Go proxy, so its documented sync loop is done here instead):
//   customize → GET the related objects it names
//   list the children (controller-uid label, owned by the parent)
//   POST /sync (hook v2) with parent, children, related
//   non-200 → change nothing
//   delete observed children not returned; create the new ones with the
//   last-applied annotation and a controller ownerRef; update the others with
//   a three-way merge (observed, last applied, desired), system metadata and
//   status reverted, PUT only when something changed (InPlace)
//   write the status through the status subresource, observedGeneration set.
// It reads the CompositeController from metacontroller/ so the declared child
// types and hook version are the ones users install.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { LAST_APPLIED_ANNOTATION, type KubeObject } from "../../src/api/hook.js";
import { CHILD_TYPES, groupKey, RELATED_TYPES } from "../../src/children/types.js";
import { stableStringify } from "../../src/config/json.js";
import type { Kube } from "./kube.js";

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

export function loadCompositeController(): CompositeController {
  return parse(
    readFileSync(
      join(import.meta.dirname, "..", "..", "metacontroller", "compositecontroller.yaml"),
      "utf8",
    ),
  ) as CompositeController;
}

export interface SyncRound {
  httpStatus: number;
  body: unknown;
  created: string[];
  updated: string[];
  deleted: string[];
  statusWritten: boolean;
  /** The parent's status as the API server stored it after this round. */
  storedStatus: unknown;
}

const SYSTEM_FIELDS = [
  "selfLink",
  "uid",
  "resourceVersion",
  "generation",
  "creationTimestamp",
  "deletionTimestamp",
  "deletionGracePeriodSeconds",
];
/** Metacontroller's merge keys for lists of objects, in its order of precedence. */
const LIST_MERGE_KEYS = ["containerPort", "port", "mountPath", "name", "uid", "ip", "path"];

function isObj(v: Json | undefined): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function mergeKeyOf(...lists: Json[][]): string | undefined {
  const items = lists.flat();
  if (items.length === 0 || !items.every(isObj)) return undefined;
  return LIST_MERGE_KEYS.find((k) => items.every((i) => (i as JsonObject)[k] !== undefined));
}

/** kubectl-apply-style three-way merge: desired wins, fields we stopped returning go. */
export function merge3(observed: Json | undefined, last: Json | undefined, desired: Json): Json {
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

export class Metacontroller {
  readonly controller = loadCompositeController();

  constructor(
    private readonly kube: Kube,
    private readonly hookUrl: string,
  ) {}

  private childTypes() {
    return this.controller.spec.childResources.map((r) => {
      const t = CHILD_TYPES.find((c) => c.apiVersion === r.apiVersion && c.resource === r.resource);
      if (t === undefined) throw new Error(`unknown child resource ${r.apiVersion} ${r.resource}`);
      return { ...t, method: r.updateStrategy?.method ?? "OnDelete" };
    });
  }

  private async post(path: string, body: unknown): Promise<{ status: number; body: unknown }> {
    const res = await fetch(`${this.hookUrl}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const text = await res.text();
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

  /** The parent's children: labelled with its controller-uid and controlled by it. */
  async children(parent: KubeObject): Promise<KubeObject[]> {
    const uid = parent.metadata.uid ?? "";
    const out: KubeObject[] = [];
    for (const t of this.childTypes()) {
      const list = await this.kube.list(
        t.apiVersion,
        t.resource,
        parent.metadata.namespace,
        `controller-uid=${uid}`,
      );
      out.push(
        ...list.filter((o) =>
          (
            (o.metadata as { ownerReferences?: { uid: string; controller?: boolean }[] })
              .ownerReferences ?? []
          ).some((r) => r.uid === uid && r.controller === true),
        ),
      );
    }
    return out;
  }

  /** One sync of one parent, as Metacontroller runs it. */
  async sync(namespace: string, name: string): Promise<SyncRound | undefined> {
    const { apiVersion, resource } = this.controller.spec.parentResource;
    const parent = await this.kube.get(apiVersion, resource, namespace, name);
    if (parent === undefined) return undefined;
    const uid = parent.metadata.uid ?? "";
    const related = await this.related(parent);
    const observed = await this.children(parent);
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
    const round: SyncRound = {
      httpStatus: res.status,
      body: res.body,
      created: [],
      updated: [],
      deleted: [],
      statusWritten: false,
      storedStatus: (parent as { status?: unknown }).status,
    };
    if (res.status !== 200) return round;
    const answer = res.body as { status?: JsonObject; children?: KubeObject[] };
    const desired = (answer.children ?? []).map((c) => {
      const copy = structuredClone(c);
      copy.metadata.namespace ??= namespace;
      if (this.controller.spec.generateSelector === true)
        copy.metadata.labels = { ...(copy.metadata.labels ?? {}), "controller-uid": uid };
      return copy;
    });
    const id = (o: KubeObject) => `${o.kind}/${o.metadata.name}`;
    const desiredIds = new Set(desired.map(id));
    const types = this.childTypes();
    const typeOf = (o: KubeObject) => {
      const t = types.find((t) => t.kind === o.kind && t.apiVersion === o.apiVersion);
      if (t === undefined)
        throw new Error(
          `the hook returned ${o.kind} ${o.apiVersion}, which the CompositeController does not declare`,
        );
      return t;
    };

    for (const o of observed) {
      if (
        desiredIds.has(id(o)) ||
        (o.metadata as { deletionTimestamp?: string }).deletionTimestamp !== undefined
      )
        continue;
      await this.kube.remove(
        o.apiVersion,
        typeOf(o).resource,
        o.metadata.namespace,
        o.metadata.name,
      );
      round.deleted.push(id(o));
    }
    for (const d of desired) {
      const t = typeOf(d);
      const current = observed.find((o) => id(o) === id(d));
      const lastApplied = JSON.stringify(d);
      if (current === undefined) {
        const obj = structuredClone(d) as KubeObject & {
          metadata: { ownerReferences?: unknown[] };
        };
        obj.metadata.annotations = {
          ...(obj.metadata.annotations ?? {}),
          [LAST_APPLIED_ANNOTATION]: lastApplied,
        };
        obj.metadata.ownerReferences = [
          ...(obj.metadata.ownerReferences ?? []),
          {
            apiVersion: parent.apiVersion,
            kind: parent.kind,
            name: parent.metadata.name,
            uid,
            controller: true,
            blockOwnerDeletion: true,
          },
        ];
        const created = await this.kube.create(d.apiVersion, t.resource, obj);
        if (created.status >= 300 && created.status !== 409)
          throw new Error(
            `create ${id(d)}: HTTP ${created.status}: ${JSON.stringify(created.body)}`,
          );
        round.created.push(id(d));
        continue;
      }
      const lastText = current.metadata.annotations?.[LAST_APPLIED_ANNOTATION];
      const last = lastText === undefined ? undefined : (JSON.parse(lastText) as Json);
      const next = merge3(current as unknown as Json, last, d as unknown as Json) as JsonObject;
      const meta = next["metadata"] as JsonObject;
      const curMeta = current.metadata as unknown as JsonObject;
      for (const f of SYSTEM_FIELDS) {
        if (curMeta[f] === undefined) delete meta[f];
        else meta[f] = curMeta[f] as Json;
      }
      meta["annotations"] = {
        ...((meta["annotations"] as JsonObject | undefined) ?? {}),
        [LAST_APPLIED_ANNOTATION]: lastApplied,
      };
      const curStatus = (current as unknown as JsonObject)["status"];
      if (curStatus === undefined) delete next["status"];
      else next["status"] = curStatus;
      if (stableStringify(next) === stableStringify(current)) continue;
      if (t.method !== "InPlace") throw new Error(`update strategy ${t.method} is not emulated`);
      await this.kube.replace(d.apiVersion, t.resource, next as unknown as KubeObject);
      round.updated.push(id(d));
    }

    const fresh = await this.kube.get(apiVersion, resource, namespace, name);
    if (fresh === undefined) return round;
    const status = { ...(answer.status ?? {}), observedGeneration: fresh.metadata.generation ?? 0 };
    const old = (fresh as { status?: unknown }).status;
    if (stableStringify(old) !== stableStringify(status)) {
      const stored = (await this.kube.replaceStatus(apiVersion, resource, {
        ...fresh,
        status,
      } as KubeObject)) as {
        status?: unknown;
      };
      if (stableStringify(stored.status) !== stableStringify(status))
        throw new Error(
          `the API server pruned or changed the status:\n sent   ${stableStringify(status)}\n stored ${stableStringify(stored.status)}`,
        );
      round.statusWritten = true;
      round.storedStatus = stored.status;
    } else {
      round.storedStatus = old;
    }
    return round;
  }

  /**
   * Syncs until a round changes nothing, as Metacontroller's watches would
   * (every child or status write triggers another sync). Returns every round.
   */
  async reconcile(namespace: string, name: string, maxRounds = 8): Promise<SyncRound[]> {
    const rounds: SyncRound[] = [];
    for (let i = 0; i < maxRounds; i++) {
      const round = await this.sync(namespace, name);
      if (round === undefined) return rounds;
      rounds.push(round);
      const changed =
        round.created.length + round.updated.length + round.deleted.length > 0 ||
        round.statusWritten;
      if (!changed) return rounds;
    }
    throw new Error(
      `${namespace}/${name} did not settle in ${maxRounds} syncs: ${JSON.stringify(rounds.map((r) => ({ ...r, body: undefined })))}`,
    );
  }
}
