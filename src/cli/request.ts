// `llsd-hook request <cr.yaml>`: the JSON request Metacontroller would POST to
// /sync (or, with --customize, to /customize) for the resource in a file, to
// send to a running hook with curl. Pure: the caller reads the files and
// prints the result.
//   - The parent as the API server holds it after `kubectl apply`: namespace
//     defaulted as kubectl does, converted from v1alpha1 as the conversion
//     webhook does, and uid, resourceVersion and generation filled in where the
//     file has none (a uid derived from the parent's identity, so the same file
//     gives the same bytes).
//   - related: the Secrets and ConfigMaps the customize hook asks for (the
//     hook's own customize(), run on that parent), taken from the file; those
//     the spec names that the file lacks are sent as if they existed, with
//     the keys it reads and empty values, as render assumes them.
//   - children: a group for every child type the CompositeController declares,
//     keyed as its sync hook's version keys them; empty, or with --observed the
//     children of an earlier answer as Metacontroller applies them (dynamic
//     apply): the controller-uid label of generateSelector, the last-applied
//     annotation recording what was applied, the controller owner reference,
//     and what the API server fills in on create (uid, resourceVersion,
//     creationTimestamp, and generation for the kinds that have one); the
//     answer's status becomes the parent's, as Metacontroller writes it. Not
//     filled in: the defaults the API server adds to a child's spec and the
//     managedFields, which the hook does not read under dynamic apply, and a
//     Deployment's status, which is the Deployment controller's.
import { createHash } from "node:crypto";
import { z } from "zod";
import {
  KubeObject,
  LAST_APPLIED_ANNOTATION,
  type CustomizeRequest,
  type ObjectMap,
} from "../api/hook.js";
import { API_VERSION } from "../api/schema.js";
import { V1ALPHA1_API_VERSION } from "../api/v1alpha1.js";
import { CONTROLLER_UID_LABEL } from "../children/labels.js";
import { CHILD_TYPES, groupKey, OPTIONAL_CHILD_TYPES } from "../children/types.js";
import { customize } from "../customize.js";
import { canonicalJson, formatPath, isObject } from "../lib/json.js";
import { parseStrictly, RenderError, requestOf, type RenderRequest } from "./render.js";

/** A file the command reads: its text, and the name errors give it. */
export interface SourceText {
  text: string;
  source: string;
}

export interface HookRequestOptions {
  /** kubectl's --namespace. */
  namespace?: string | undefined;
  /** A body /sync answered earlier, observed as Metacontroller applied it. */
  observed?: SourceText | undefined;
  /** The /customize request instead of the /sync one. */
  customize?: boolean | undefined;
}

export interface HookRequest {
  /** The request body: JSON, keys sorted as Metacontroller's Go encoder sorts them. */
  json: string;
  /** What was assumed, sent or left out, for stderr. */
  notes: string[];
}

/** The kinds whose API server sets metadata.generation on create (their registry strategies; every custom resource). */
const WITH_GENERATION = new Set([
  "Deployment",
  "HorizontalPodAutoscaler",
  "Ingress",
  "NetworkPolicy",
  "PodDisruptionBudget",
  "ServiceMonitor",
]);

const Hook = z.looseObject({ version: z.enum(["v1", "v2"]).optional() });

/** What the request reads of a CompositeController; the rest is sent as the file has it. */
const CompositeController = z.looseObject({
  apiVersion: z.literal("metacontroller.k8s.io/v1alpha1"),
  kind: z.literal("CompositeController"),
  metadata: z.looseObject({ name: z.string().min(1) }),
  spec: z.looseObject({
    generateSelector: z.boolean().optional(),
    childResources: z
      .array(z.looseObject({ apiVersion: z.string(), resource: z.string() }))
      .optional(),
    hooks: z.looseObject({ sync: Hook.optional() }).optional(),
  }),
});
type CompositeController = z.infer<typeof CompositeController>;

/** The answer of /sync that --observed reads. */
const Answer = z.looseObject({
  status: z.record(z.string(), z.unknown()).optional(),
  children: z.array(KubeObject),
});

/** A uid derived from an object's identity: the same file, the same bytes. */
function uidOf(kind: string, namespace: string, name: string): string {
  const hex = createHash("sha256").update(`${kind}\0${namespace}\0${name}`).digest("hex");
  return [
    hex.slice(0, 8),
    hex.slice(8, 12),
    hex.slice(12, 16),
    hex.slice(16, 20),
    hex.slice(20, 32),
  ].join("-");
}

const controllerFix = (source: string) =>
  `give a CompositeController such as metacontroller/compositecontroller.yaml, or the cluster's (kubectl get compositecontroller llsd-hook -o yaml > ${source})`;

/** The CompositeController in `file`, its child types ones the hook returns. */
function readController(file: SourceText): CompositeController {
  const found = parseStrictly(file.text, file.source).find(
    (d) => (d as { kind?: unknown } | null)?.kind === "CompositeController",
  );
  if (found === undefined)
    throw new RenderError(
      `${file.source}: no document of kind CompositeController; ${controllerFix(file.source)}`,
    );
  const parsed = CompositeController.safeParse(found);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new RenderError(
      `${file.source}: ${formatPath(issue?.path ?? [])}: ${issue?.message ?? "invalid"}; ${controllerFix(file.source)}`,
    );
  }
  for (const [i, r] of (parsed.data.spec.childResources ?? []).entries())
    if (typeOf(r) === undefined)
      throw new RenderError(
        `${file.source}: spec.childResources[${i}]: ${r.resource} (${r.apiVersion}) is none of the types llsd-hook returns; remove it, or ${controllerFix(file.source)}`,
      );
  return parsed.data;
}

/** The child type a childResources entry declares, if the hook returns it. */
function typeOf(r: { apiVersion: string; resource: string }) {
  return [...CHILD_TYPES, ...OPTIONAL_CHILD_TYPES].find(
    (t) => t.apiVersion === r.apiVersion && t.resource === r.resource,
  );
}

/** The group of every child type the controller declares: Metacontroller sends each, objects or not. */
function childGroups(controller: CompositeController): string[] {
  return (controller.spec.childResources ?? []).flatMap((r) => {
    const t = typeOf(r);
    return t === undefined ? [] : [groupKey(t)];
  });
}

/** `objects` as an object map, every group of `groups` present, keyed as the sync hook's version keys them. */
function objectMap(
  objects: readonly KubeObject[],
  groups: readonly string[],
  version: "v1" | "v2",
): ObjectMap {
  const map: ObjectMap = Object.fromEntries(groups.map((g) => [g, {}]));
  for (const o of objects) {
    const key = version === "v2" ? `${o.metadata.namespace}/${o.metadata.name}` : o.metadata.name;
    (map[groupKey(o)] ??= {})[key] = o;
  }
  return map;
}

/** The body /sync answered, read strictly; children and status as --observed uses them. */
function readAnswer(file: SourceText): z.infer<typeof Answer> {
  const fix = `give the body /sync answered with 200, as it was (curl -s … -o ${file.source})`;
  let value: unknown;
  try {
    value = JSON.parse(file.text);
  } catch (err) {
    throw new RenderError(`${file.source}: not JSON (${(err as Error).message}); ${fix}`, {
      cause: err,
    });
  }
  if (isObject(value) && typeof value["error"] === "string" && !("children" in value))
    throw new RenderError(
      `${file.source}: an error the hook answered, not children: ${value["error"]}; act on it, sync again and give that answer`,
    );
  const parsed = Answer.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new RenderError(
      `${file.source}: ${formatPath(issue?.path ?? []) || "the body"}: ${issue?.message ?? "invalid"}; ${fix}`,
    );
  }
  return parsed.data;
}

/** When the answer was given: its status's latest condition time (RFC 3339 sorts as text). */
function answeredAt(status: Record<string, unknown> | undefined): string | undefined {
  const conditions = Array.isArray(status?.["conditions"]) ? status["conditions"] : [];
  const times = conditions
    .map((c) => (isObject(c) ? c["lastTransitionTime"] : undefined))
    .filter((t): t is string => typeof t === "string")
    .sort();
  return times.at(-1);
}

interface Parent {
  apiVersion: string;
  kind: string;
  name: string;
  namespace: string;
  uid: string;
}

/**
 * A child of the answer as it is after Metacontroller's dynamic apply created
 * it: the label of generateSelector, then the record of what was applied, then
 * the owner reference, then what the API server sets.
 */
function appliedChild(
  child: KubeObject,
  parent: Parent,
  generateSelector: boolean,
  created: { resourceVersion: string; at: string | undefined },
): KubeObject {
  const labels = { ...child.metadata.labels };
  if (generateSelector && !(CONTROLLER_UID_LABEL in labels))
    labels[CONTROLLER_UID_LABEL] = parent.uid;
  const desired: KubeObject = {
    ...child,
    metadata: { ...child.metadata, namespace: parent.namespace, labels },
  };
  const owner = {
    apiVersion: parent.apiVersion,
    kind: parent.kind,
    name: parent.name,
    uid: parent.uid,
    controller: true,
    blockOwnerDeletion: true,
  };
  return {
    ...desired,
    metadata: {
      ...desired.metadata,
      annotations: {
        ...child.metadata.annotations,
        [LAST_APPLIED_ANNOTATION]: canonicalJson(desired),
      },
      ownerReferences: [owner],
      uid: uidOf(child.kind, parent.namespace, child.metadata.name),
      resourceVersion: created.resourceVersion,
      ...(created.at === undefined ? {} : { creationTimestamp: created.at }),
      ...(WITH_GENERATION.has(child.kind) ? { generation: 1 } : {}),
    },
  };
}

/**
 * The answer's children in its order, as Metacontroller observes them after
 * applying them; those it would never observe are left out with a note.
 */
function observedChildren(
  answer: z.infer<typeof Answer>,
  source: string,
  parent: Parent,
  controller: CompositeController,
  notes: string[],
): KubeObject[] {
  const declared = new Set(childGroups(controller));
  const at = answeredAt(answer.status);
  const observed: KubeObject[] = [];
  for (const [i, child] of answer.children.entries()) {
    const id = `${source}: children[${i}] ${child.kind}/${child.metadata.name}`;
    if ((child.metadata.namespace ?? parent.namespace) !== parent.namespace)
      notes.push(
        `note: ${id} is in namespace ${child.metadata.namespace}, where Metacontroller never observes it: not sent`,
      );
    else if (!declared.has(groupKey(child)))
      notes.push(
        `note: ${id}: the CompositeController declares no ${groupKey(child)}, so Metacontroller creates it but never observes it: not sent`,
      );
    else
      observed.push(
        appliedChild(child, parent, controller.spec.generateSelector === true, {
          resourceVersion: String(observed.length + 2),
          at,
        }),
      );
  }
  notes.push(
    `note: observed: ${observed.length} children of ${source} as Metacontroller applies them (last-applied annotation, controller-uid label, owner reference, uid), and its status as the parent's`,
  );
  return observed;
}

/**
 * The related objects the customize hook asks for: the file's, and those the
 * spec names that it lacks (assumed, empty); notes say which, and which of the
 * file's are not sent.
 */
function relatedObjects(
  customizeRequest: CustomizeRequest,
  file: RenderRequest,
  source: string,
  notes: string[],
): KubeObject[] {
  const id = (o: { kind: string; metadata: { name: string } }) => `${o.kind}/${o.metadata.name}`;
  const wanted = new Set(
    customize(customizeRequest).relatedResources.flatMap((rule) =>
      rule.names.map((n) => `${rule.resource === "secrets" ? "Secret" : "ConfigMap"}/${n}`),
    ),
  );
  const assumed = new Set(file.refs.map((r) => `${r.kind}/${r.name}`));
  const all = Object.values(file.request.related).flatMap((byKey) => Object.values(byKey));
  const sent = all
    .filter((o) => wanted.has(id(o)))
    .map((o) => ({
      ...o,
      metadata: {
        ...o.metadata,
        uid: o.metadata.uid ?? uidOf(o.kind, file.namespace, o.metadata.name),
      },
    }));
  const fromFile = sent.filter((o) => !assumed.has(id(o)));
  const notSent = all.filter((o) => !wanted.has(id(o)));
  if (fromFile.length > 0)
    notes.push(
      `note: related, from ${source}: ${fromFile.map(id).join(", ")} (a Secret's values as the file has them)`,
    );
  if (assumed.size > 0)
    notes.push(
      `note: related, not in ${source}, so sent as if they existed in namespace ${file.namespace} with empty values: ${[...assumed].join(", ")}`,
    );
  if (notSent.length > 0)
    notes.push(
      `note: not sent: ${notSent.map(id).join(", ")} of ${source}, which the spec does not name, so Metacontroller would not relate them`,
    );
  return sent;
}

/** The request Metacontroller would send for the resource in `cr`, under the CompositeController in `controllerFile`. */
export function hookRequest(
  cr: SourceText,
  controllerFile: SourceText,
  options: HookRequestOptions = {},
): HookRequest {
  const controller = readController(controllerFile);
  const file = requestOf(cr.text, cr.source, { namespace: options.namespace, command: "request" });
  const { kind, apiVersion, metadata } = file.request.parent;
  const uid = metadata.uid ?? uidOf(kind, file.namespace, metadata.name);
  const generation = metadata.generation ?? 1;
  const ref: Parent = { apiVersion, kind, name: metadata.name, namespace: file.namespace, uid };
  const notes = file.converted
    ? [
        `note: converted from ${V1ALPHA1_API_VERSION} to ${API_VERSION} as the conversion webhook does (docs/conversion.md)`,
      ]
    : [];
  const given = options.observed;
  const answer = given === undefined ? undefined : readAnswer(given);
  const observed =
    given === undefined || answer === undefined
      ? []
      : observedChildren(answer, given.source, ref, controller, notes);
  // After the children, Metacontroller wrote the answer's status to the parent.
  const status = answer?.status;
  const parent = {
    ...file.request.parent,
    metadata: {
      ...metadata,
      uid,
      generation,
      resourceVersion: metadata.resourceVersion ?? String(observed.length + (answer ? 2 : 1)),
    },
    ...(status === undefined ? {} : { status: { ...status, observedGeneration: generation } }),
  };
  if (options.customize === true) return { json: prettyCanonical({ controller, parent }), notes };
  const related = relatedObjects({ controller, parent }, file, cr.source, notes);
  const version = controller.spec.hooks?.sync?.version ?? "v1";
  const body = {
    controller,
    parent,
    children: objectMap(observed, childGroups(controller), version),
    related: objectMap(related, ["Secret.v1", "ConfigMap.v1"], version),
    finalizing: false,
  };
  return { json: prettyCanonical(body), notes };
}

/** JSON with sorted keys (as Go's encoder writes maps), indented for a reader. */
function prettyCanonical(value: unknown): string {
  return `${JSON.stringify(JSON.parse(canonicalJson(value)), null, 2)}\n`;
}
