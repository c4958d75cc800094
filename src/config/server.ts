// The config's server section from spec.networking and spec.workload.
import type { Spec } from "../api/schema.js";
import { parse } from "yaml";
import type { KubeObject } from "../api/hook.js";
import { msg } from "../messages.js";
import { problem, Reason, type Problem } from "../problems.js";
import { OVERRIDE_CONFIG_KEY } from "../references.js";
import type { ReleaseData } from "./catalog.js";
import { isObject, own, type Json, type JsonObject } from "./json.js";
import { TLS_FILES } from "./runtime.js";

/** Releases whose server refuses to start without TLS unless server.insecure is true (OGX 1.2+). */
export function hasStrictTls(release: ReleaseData | undefined): boolean {
  const props = release?.serverConfigSchema?.["properties"];
  return isObject(props as Json) && Object.hasOwn(props as object, "insecure");
}

/** An overrideConfig on a strict-TLS release that would not start: a warning with the fix. */
export function checkOverrideTls(
  configMap: KubeObject,
  release: ReleaseData | undefined,
): Problem | undefined {
  if (release === undefined || !hasStrictTls(release)) return undefined;
  const text = own((configMap as { data?: Record<string, string> }).data, OVERRIDE_CONFIG_KEY);
  if (typeof text !== "string") return undefined;
  let doc: unknown;
  try {
    doc = parse(text, { maxAliasCount: 100 });
  } catch {
    return undefined; // Not YAML: the server reports that itself.
  }
  const server = isObject(doc as Json) ? own(doc as JsonObject, "server") : undefined;
  const s = isObject(server ?? null) ? (server as JsonObject) : {};
  const tls = typeof s["tls_certfile"] === "string" && typeof s["tls_keyfile"] === "string";
  if (tls || s["insecure"] === true) return undefined;
  return problem(
    Reason.OverrideNeedsTls,
    "spec.overrideConfig.configMapName",
    msg.overrideNeedsTls(configMap.metadata.name, release.release),
  );
}

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
