// The ConversionReview the conversion webhook answers, and its Failure form:
// what the HTTP edge sends when it cannot read a review at all, without
// loading the converter (src/convert/review.ts answers the rest).
import type { Json } from "../lib/json.js";

export const REVIEW_API_VERSION = "apiextensions.k8s.io/v1";

/** The ConversionReview the webhook answers. */
export interface ConversionReviewAnswer {
  apiVersion: typeof REVIEW_API_VERSION;
  kind: "ConversionReview";
  response: {
    uid: string;
    convertedObjects: Json[];
    result: { status: "Success" } | { status: "Failure"; message: string };
  };
}

export function reviewResponse(
  uid: string,
  result: ConversionReviewAnswer["response"]["result"],
  convertedObjects: Json[] = [],
): ConversionReviewAnswer {
  return {
    apiVersion: REVIEW_API_VERSION,
    kind: "ConversionReview",
    response: { uid, convertedObjects, result },
  };
}

/** A Failure answer: `message` says why, naming the field, never a value. */
export const conversionFailure = (uid: string, message: string) =>
  reviewResponse(uid, { status: "Failure", message });
