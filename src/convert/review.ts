// The conversion webhook's answer: an apiextensions.k8s.io/v1 ConversionReview
// in, the ConversionReview response out — uid echoed, every object converted
// to request.desiredAPIVersion, or Failure with a message naming the object,
// the field and the fix. Pure; the HTTP route lives in src/server.
import { formatProblem } from "../problems.js";
import { formatPath, isObject, own, type Json } from "../lib/json.js";
import { measure, SPEC_BOUNDS, type Bounds } from "../api/bounds.js";
import { msg } from "../messages.js";
import { toV1alpha1, toV1alpha2 } from "./convert.js";
import { V1ALPHA1_API_VERSION, V1ALPHA2_API_VERSION } from "./map.js";
import {
  conversionFailure,
  REVIEW_API_VERSION,
  reviewResponse as response,
  type ConversionReviewAnswer,
} from "./failure.js";

/**
 * Each object as the spec's bounds allow it (README "Limits"), one level more
 * for `spec` itself: an object is measured, without recursion, before it is
 * converted or answered as it is.
 */
const OBJECT_BOUNDS: Bounds = { maxDepth: SPEC_BOUNDS.maxDepth + 1, maxEntries: Infinity };
/**
 * Objects converted in one review. The API server sends one object for a
 * get, a write or a watch event, and for a list the page's items not yet at
 * the desired version (kubectl lists in pages of 500). 1,000 typical objects
 * take 66-180 ms of CPU, a tenth of the worker's deadline; 24,000 small
 * ones (4 MB) ran to it (issue 34), holding the API server's worker.
 */
export const MAX_REVIEW_OBJECTS = 1000;
/** Problems quoted in one Failure message; the rest are counted. */
const MAX_PROBLEMS = 5;

/** namespace/name of an object for messages, shortened. */
function nameOf(obj: unknown): string {
  const metadata = isObject(obj) ? own(obj, "metadata") : undefined;
  const part = (key: string) => {
    const value = isObject(metadata) ? own(metadata, key) : undefined;
    return typeof value === "string" ? value.slice(0, 253) : undefined;
  };
  const name = part("name") ?? "unnamed";
  const namespace = part("namespace");
  return namespace === undefined ? name : `${namespace}/${name}`;
}

function versionOf(obj: unknown): string {
  const version = isObject(obj) ? own(obj, "apiVersion") : undefined;
  return typeof version === "string" ? version.slice(0, 80) : "no apiVersion";
}

/** request.uid when there is one, to echo even in a Failure. */
function uidOf(review: unknown): string {
  const request = isObject(review) ? own(review, "request") : undefined;
  const uid = isObject(request) ? own(request, "uid") : undefined;
  return typeof uid === "string" ? uid : "";
}

/** The request part, or why it is not one. */
function requestOf(review: unknown): { uid: string; desired: string; objects: Json[] } | string {
  if (
    !isObject(review) ||
    own(review, "apiVersion") !== REVIEW_API_VERSION ||
    own(review, "kind") !== "ConversionReview"
  )
    return "is not an apiextensions.k8s.io/v1 ConversionReview";
  const request = own(review, "request");
  if (!isObject(request)) return "has no request";
  const uid = own(request, "uid");
  if (typeof uid !== "string" || uid === "") return "has no request.uid";
  const desired = own(request, "desiredAPIVersion");
  if (desired !== V1ALPHA1_API_VERSION && desired !== V1ALPHA2_API_VERSION)
    return `asks for ${typeof desired === "string" ? JSON.stringify(desired.slice(0, 80)) : "no version"} (request.desiredAPIVersion); llsd-hook converts to ${V1ALPHA1_API_VERSION} and ${V1ALPHA2_API_VERSION}`;
  const objects = own(request, "objects");
  if (!Array.isArray(objects)) return "has no request.objects list";
  return { uid, desired, objects };
}

/** The ConversionReview response for `review`; never throws. */
export function convertReview(review: unknown): ConversionReviewAnswer {
  const request = requestOf(review);
  if (typeof request === "string")
    return conversionFailure(uidOf(review), msg.convertReviewInvalid(request));
  if (request.objects.length > MAX_REVIEW_OBJECTS)
    return conversionFailure(
      request.uid,
      msg.convertTooManyObjects(request.objects.length, MAX_REVIEW_OBJECTS),
    );
  const converted: Json[] = [];
  for (const [index, obj] of request.objects.entries()) {
    // Bounded first, at either version: one at the desired version is answered as it is.
    const shape = measure(obj, OBJECT_BOUNDS);
    if (shape.problem !== undefined) {
      const where = formatPath(shape.problem.path) || "the object";
      const problem = `${where}: ${shape.problem.detail}`;
      const message = msg.convertObjectFailed(
        index,
        nameOf(obj),
        versionOf(obj),
        request.desired,
        problem,
      );
      return conversionFailure(request.uid, message);
    }
    if (versionOf(obj) === request.desired) {
      converted.push(obj);
      continue;
    }
    const result = request.desired === V1ALPHA2_API_VERSION ? toV1alpha2(obj) : toV1alpha1(obj);
    if (!result.ok) {
      const quoted = result.problems.slice(0, MAX_PROBLEMS).map(formatProblem);
      const more = result.problems.length - quoted.length;
      const problems = quoted.join("; ") + (more > 0 ? `; and ${more} more` : "");
      const message = msg.convertObjectFailed(
        index,
        nameOf(obj),
        versionOf(obj),
        request.desired,
        problems,
      );
      return conversionFailure(request.uid, message);
    }
    converted.push(result.value);
  }
  return response(request.uid, { status: "Success" }, converted);
}
