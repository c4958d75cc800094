// spec.trust: which certificate authorities the server trusts when it calls
// out to its providers (docs/guide/trust.md). The bundle is ADDED to
// the image's system trust store, never put in its place: SSL_CERT_FILE would
// replace the store and break public endpoints such as api.openai.com.
// src/config/trust.ts puts it in the providers' network.tls; the Deployment
// mounts it (src/children/deployment.ts).
import { z } from "zod";
import { caBundle } from "./ca-bundle.js";

/** The key read from the ConfigMap when caBundle.key is not given. */
const DEFAULT_CA_BUNDLE_KEY = "ca-bundle.crt";

const CaBundle = caBundle(DEFAULT_CA_BUNDLE_KEY).describe(
  "One or more PEM certificates (concatenated in one key) of the CAs to trust besides the system's. Every generated provider with network settings (the remote inference providers) gets them; editing the ConfigMap rolls the pods.",
);

export const Trust = z
  .strictObject({
    caBundle: CaBundle,
  })
  .describe(
    "Certificate authorities the server trusts when it calls its providers, added to the image's system trust store (public endpoints keep working).",
  );
export type Trust = z.infer<typeof Trust>;
