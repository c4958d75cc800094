// The field shapes more than one section of the spec uses: the bounds on
// lists and strings, an object's name, a value read from a Secret, a provider
// id, a free-form JSON value.
import { z } from "zod";
import { DNS1123_SUBDOMAIN } from "./names.js";

/** Limits keep every list and string bounded, so CEL rules stay inside the cost budget. */
export const LIMITS = {
  providersPerApi: 16,
  models: 256,
  shields: 32,
  tools: 32,
  disabledProviders: 64,
  secretRefsPerProvider: 16,
  settingsKeys: 64,
  shortString: 253,
  url: 2048,
} as const;

const SECRET_KEY = /^[-._a-zA-Z0-9]+$/;
export const PROVIDER_ID = /^[a-z0-9]([-a-z0-9_.]*[a-z0-9])?$/;

export const objectName = (what: string) =>
  z
    .string()
    .min(1)
    .max(LIMITS.shortString)
    .regex(DNS1123_SUBDOMAIN, `must be a valid ${what} name (lower-case DNS subdomain)`);

const SecretKeySelector = z
  .strictObject({
    name: objectName("Secret").describe(
      "Name of a Secret in the LlamaStackDistribution's namespace.",
    ),
    key: z
      .string()
      .min(1)
      .max(LIMITS.shortString)
      .regex(SECRET_KEY, "must be a valid Secret key ([-._a-zA-Z0-9]+)")
      .describe("Key within the Secret."),
  })
  .describe("A key of a Secret in the same namespace.");

export const SecretRef = z
  .strictObject({
    secretKeyRef: SecretKeySelector.describe("The Secret key that holds the value."),
  })
  .describe(
    "A value read from a Secret. It reaches the server as an environment variable and never appears in the ConfigMap.",
  );
export type SecretRef = z.infer<typeof SecretRef>;

export const JsonValue: z.ZodType<unknown> = z.json();
