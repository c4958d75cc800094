// The config's server section from spec.networking and spec.workload.
import type { Spec } from "../api/schema.js";
import type { JsonObject } from "./json.js";
import { TLS_FILES } from "./runtime.js";

export function serverSection(spec: Spec): JsonObject {
  const server: JsonObject = {};
  const tls = spec.networking?.tls;
  if (tls?.enabled === true) {
    server["tls_certfile"] = TLS_FILES.cert;
    server["tls_keyfile"] = TLS_FILES.key;
    if (tls.requireClientCertificate === true) server["tls_cafile"] = TLS_FILES.ca;
  }
  if (spec.workload?.workers !== undefined) server["workers"] = spec.workload.workers;
  return server;
}
