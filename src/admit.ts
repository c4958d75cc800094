// The admission check behind POST /validate (docs/adr/0020-admission-webhook.md):
// a LlamaStackDistribution as the API server is about to store it, checked
// by the rungs /sync runs — observe, resolve, the children's plan — so that a
// refusal is what the status would report as an invalid spec, in the same
// words, and a warning what it would report as a warning condition.
//
// What needs the cluster is left to the status, never refused here: the
// Secrets and ConfigMaps the spec names (GitOps applies in any order), so the
// config generated on a ConfigMap's base config and an overrideConfig's
// contents too; the children observed; and which optional child types the
// CompositeController declares (each is assumed declared).
import {
  admissionReview,
  type AdmissionReviewAnswer,
  type RefusalStatus,
} from "./api/admission.js";
import { measure } from "./api/bounds.js";
import { SyncRequest } from "./api/hook.js";
import { API_VERSION, GROUP, KIND, PLURAL } from "./api/schema.js";
import { V1ALPHA1_API_VERSION } from "./api/v1alpha1.js";
import { CHILD_TYPES, groupKey, OPTIONAL_CHILD_TYPES } from "./children/types.js";
import { joinProblems } from "./compute-status.js";
import { OBJECT_BOUNDS, toV1alpha2 } from "./convert/convert.js";
import { formatPath, jsonEqual, isObject, own, type JsonObject } from "./lib/json.js";
import { msg } from "./messages.js";
import { observe, specInputsOf } from "./observe.js";
import { formatProblem, problem, problemsFromZod, type Problem, type Warning } from "./problems.js";
import { Reason } from "./reasons.js";
import { problemsOf, resolve, type Check } from "./resolve.js";
import { plan } from "./return-children.js";
import type { SyncContext } from "./sync.js";

/** What the check reads besides the review: /sync's context (its field manager aside). */
export type AdmitContext = Omit<SyncContext, "fieldManager">;

/** What the check found: refused when there is a problem; the warnings either way. */
interface Verdict {
  problems: Problem[];
  warnings: Warning[];
}

/** Every child type as declared: whether an optional one is, is the cluster's to say (a warning of the status). */
const DECLARED = Object.fromEntries(
  [...CHILD_TYPES, ...OPTIONAL_CHILD_TYPES].map((t) => [groupKey(t), {}]),
);

/** The referenced objects, left to the status: their absence never refuses a resource. */
const LEFT_TO_THE_STATUS: Check = {
  ok: "unknown",
  reason: "NotCheckedAtAdmission",
  message: "The referenced objects are checked by /sync.",
};

/**
 * A v1alpha2 object, its metadata as the API server will store it (namespace
 * and name set), checked as /sync checks it, without the objects it refers to.
 */
function checkObject(object: JsonObject, ctx: AdmitContext): Verdict {
  const input = { parent: object, children: DECLARED, related: {} };
  const parsed = SyncRequest.safeParse(input);
  if (!parsed.success) {
    const problems = problemsFromZod(parsed.error, input).map((p) => ({
      ...p,
      path: p.path.replace(/^parent\./, ""),
    }));
    return { problems, warnings: [] };
  }
  const inputs = specInputsOf(observe(parsed.data));
  const resolution = { ...resolve(inputs, ctx), references: LEFT_TO_THE_STATUS };
  const { check, planned } = plan(resolution, inputs, ctx.allowedPodFields);
  return {
    problems: problemsOf(resolution, check),
    warnings: [...resolution.warnings, ...(planned?.warnings ?? [])],
  };
}

/** A request the hook reads: the parts of an admission.k8s.io/v1 AdmissionRequest it uses. */
interface Request {
  uid: string;
  operation: unknown;
  subResource: unknown;
  resource: string;
  object: unknown;
  oldObject: unknown;
  namespace: unknown;
}

const str = (value: unknown, max = 253): string =>
  typeof value === "string" ? value.slice(0, max) : "";

/** The request part, or why it is not one. */
function requestOf(review: unknown): Request | string {
  if (
    !isObject(review) ||
    own(review, "apiVersion") !== "admission.k8s.io/v1" ||
    own(review, "kind") !== "AdmissionReview"
  )
    return "is not an admission.k8s.io/v1 AdmissionReview";
  const request = own(review, "request");
  if (!isObject(request)) return "has no request";
  const uid = own(request, "uid");
  if (typeof uid !== "string" || uid === "") return "has no request.uid";
  const resource = own(request, "resource");
  if (!isObject(resource)) return "has no request.resource";
  return {
    uid,
    operation: own(request, "operation"),
    subResource: own(request, "subResource"),
    resource: `${str(own(resource, "resource"))}.${str(own(resource, "group"))}`,
    object: own(request, "object"),
    oldObject: own(request, "oldObject"),
    namespace: own(request, "namespace"),
  };
}

const metadataOf = (obj: unknown): JsonObject => {
  const metadata = isObject(obj) ? own(obj, "metadata") : undefined;
  return isObject(metadata) ? metadata : {};
};

/**
 * What is admitted without a check: another operation or a subresource (the
 * status Metacontroller writes), and an update that leaves the spec as it was
 * or of an object being deleted — labels, finalizers, garbage collection and
 * a GitOps tool's own fields are never held to a spec the hook would now
 * refuse (the webhook's matchConditions skip these before the call; this is
 * the same rule for a configuration without them).
 */
function unchecked(request: Request): boolean {
  if (request.operation !== "CREATE" && request.operation !== "UPDATE") return true;
  if (str(request.subResource) !== "") return true;
  if (request.operation === "CREATE") return false;
  if (own(metadataOf(request.object), "deletionTimestamp") !== undefined) return true;
  const spec = (obj: unknown) => (isObject(obj) ? own(obj, "spec") : undefined);
  // Only bounded objects are compared (jsonEqual recurses); the API server stored the old one.
  const bounded = [request.object, request.oldObject].every(
    (o) => measure(o, OBJECT_BOUNDS).problem === undefined,
  );
  return bounded && jsonEqual(spec(request.object), spec(request.oldObject));
}

/** The object as v1alpha2 (a v1alpha1 one converted as /convert converts it), or why it is not one. */
function v1alpha2Of(object: unknown): { object: JsonObject } | { problems: Problem[] } {
  const invalid = (path: string, detail: string) => ({
    problems: [problem(Reason.InvalidSpec, path, detail)],
  });
  if (!isObject(object)) return invalid("object", msg.convertNotAnObject());
  const version = own(object, "apiVersion");
  if (version === V1ALPHA1_API_VERSION) {
    const converted = toV1alpha2(object);
    return converted.ok ? { object: converted.value } : { problems: converted.problems };
  }
  const shape = measure(object, OBJECT_BOUNDS);
  if (shape.problem !== undefined)
    return invalid(formatPath(shape.problem.path) || "object", shape.problem.detail);
  if (version !== API_VERSION)
    return invalid("apiVersion", msg.admissionWrongVersion(JSON.stringify(str(version, 80))));
  if (own(object, "kind") !== KIND)
    return invalid("kind", msg.convertWrongKind(JSON.stringify(str(own(object, "kind"), 80))));
  return { object };
}

/** One line per warning, the condition it will be in the status first: kubectl prints each as `Warning: …`. */
function warningLines(warnings: readonly Warning[]): string[] {
  return [...new Set(warnings.map((w) => `${w.reason}: ${formatProblem(w)}`))];
}

function refusal(name: string, problems: readonly Problem[]): RefusalStatus {
  const lines = new Set<string>();
  const causes = problems.flatMap((p) => {
    const line = formatProblem(p);
    if (lines.has(line)) return [];
    lines.add(line);
    return [{ reason: "FieldValueInvalid" as const, field: p.path, message: p.detail }];
  });
  return {
    code: 422,
    reason: "Invalid",
    message: joinProblems(problems),
    details: { group: GROUP, kind: KIND, name, causes },
  };
}

/** The AdmissionReview answer to `review`; never throws. */
export function admit(review: unknown, ctx: AdmitContext): AdmissionReviewAnswer {
  const request = requestOf(review);
  if (typeof request === "string") {
    const part = isObject(review) ? own(review, "request") : undefined;
    const uid = str(isObject(part) ? own(part, "uid") : undefined, 128);
    const status = { code: 400, message: msg.admissionReviewInvalid(request) };
    return admissionReview({ uid, allowed: false, status });
  }
  const { uid } = request;
  if (request.resource !== `${PLURAL}.${GROUP}`) {
    const warnings = [msg.admissionNotOurs(request.resource)];
    return admissionReview({ uid, allowed: true, warnings });
  }
  if (unchecked(request)) return admissionReview({ uid, allowed: true });
  const found = v1alpha2Of(request.object);
  const name = str(own(metadataOf(request.object), "name"));
  if ("problems" in found)
    return admissionReview({ uid, allowed: false, status: refusal(name, found.problems) });
  // The namespace the API server stores it in: the request's, which the object's may only repeat.
  const metadata = { ...metadataOf(found.object), namespace: str(request.namespace, 63) };
  const verdict = checkObject({ ...found.object, metadata }, ctx);
  const warnings = warningLines(verdict.warnings);
  return admissionReview({
    uid,
    allowed: verdict.problems.length === 0,
    ...(verdict.problems.length === 0 ? {} : { status: refusal(name, verdict.problems) }),
    ...(warnings.length === 0 ? {} : { warnings }),
  });
}
