// The admission webhook's answer (admission.k8s.io/v1 AdmissionReview): the
// uid echoed, allowed or not, a refusal as a Status naming each field, and
// warnings, which kubectl prints as "Warning:" lines (docs/operations/admission.md).
// Also the Status an error answer carries, which the API server's client reads
// as the reason a call failed: a module of its own, so that the HTTP edge
// answers with it without loading the check (src/admit.ts).

const ADMISSION_API_VERSION = "admission.k8s.io/v1";

/** One field a refusal names: kubectl prints `* field: message` for each. */
interface StatusCause {
  reason: "FieldValueInvalid";
  field: string;
  message: string;
}

/** A refusal, as a meta/v1 Status: reason Invalid with causes reads as the API server's own validation does. */
export interface RefusalStatus {
  code: number;
  reason?: "Invalid";
  message: string;
  details?: { group: string; kind: string; name: string; causes: StatusCause[] };
}

export interface AdmissionResponse {
  uid: string;
  allowed: boolean;
  status?: RefusalStatus;
  warnings?: string[];
}

/** The AdmissionReview the webhook answers. */
export interface AdmissionReviewAnswer {
  apiVersion: typeof ADMISSION_API_VERSION;
  kind: "AdmissionReview";
  response: AdmissionResponse;
}

export function admissionReview(response: AdmissionResponse): AdmissionReviewAnswer {
  return { apiVersion: ADMISSION_API_VERSION, kind: "AdmissionReview", response };
}

/**
 * The body of an answer other than 200 (the body budget, the pool's
 * refusals, a fault): a meta/v1 Status, which the API server's client takes
 * as the reason the call failed, so that its error quotes this message.
 */
export function failureStatus(code: number, message: string) {
  return { kind: "Status", apiVersion: "v1", status: "Failure", code, message } as const;
}
