// The config's server section (docs/guide/networking.md, workload.md and
// auth.md): the port, the TLS files, the workers, auth and, where the
// release needs it, `insecure`.
import type { Spec } from "../api/schema.js";
import type { ServerTls } from "../api/networking.js";
import type { KubeObject } from "../api/hook.js";
import { msg } from "../messages.js";
import { warning, type Warning } from "../problems.js";
import { Reason } from "../reasons.js";
import type { ReleaseData } from "./catalog.js";
import { dialectOf } from "./dialect.js";
import { isObject, own, type JsonObject } from "../lib/json.js";
import { readYamlOnce } from "./bounded-yaml.js";
import type { StackConfig } from "./model.js";
import { CONFIG_FILE, TLS_FILES } from "../container.js";
import { authSection } from "./auth.js";

/** Releases whose server refuses to start without TLS unless server.insecure is true (OGX 1.2+). */
export function hasStrictTls(release: ReleaseData | undefined): boolean {
  return release !== undefined && dialectOf(release).strictTls;
}

/**
 * An overrideConfig on a strict-TLS release that would not start, or one too
 * large to check: a warning with the fix.
 */
export function checkOverrideTls(
  configMap: KubeObject,
  release: ReleaseData | undefined,
): Warning | undefined {
  if (release === undefined || !hasStrictTls(release)) return undefined;
  const data = configMap["data"];
  const text = isObject(data) ? own(data, CONFIG_FILE) : undefined;
  // An empty text says nothing (render assumes objects it was not given, empty).
  if (typeof text !== "string" || text.trim() === "") return undefined;
  // As the server's PyYAML reads it (`insecure: yes` is true), within the bounds every user's YAML gets.
  const read = readYamlOnce(text, { version: "1.1", json: false });
  if (!read.ok) {
    if (read.kind === "syntax") return undefined; // Not YAML: the server reports that itself.
    const detail = msg.overrideNotChecked(configMap.metadata.name, CONFIG_FILE, read.detail);
    return warning(Reason.OverrideNotChecked, "spec.overrideConfig.configMapName", detail);
  }
  const doc = read.value;
  const server = isObject(doc) ? own(doc, "server") : undefined;
  const s = isObject(server) ? server : {};
  const tls = typeof s["tls_certfile"] === "string" && typeof s["tls_keyfile"] === "string";
  if (tls || s["insecure"] === true) return undefined;
  return warning(
    Reason.OverrideNeedsTls,
    "spec.overrideConfig.configMapName",
    msg.overrideNeedsTls(configMap.metadata.name, release.release),
  );
}

/** The config's server section: `tls` is the server's TLS when on (serverTlsOf). */
export function serverSection(spec: Spec, tls: ServerTls | undefined): JsonObject {
  const server: JsonObject = {};
  if (tls !== undefined) {
    server["tls_certfile"] = TLS_FILES.cert;
    server["tls_keyfile"] = TLS_FILES.key;
    if (tls.requireClientCertificate) server["tls_cafile"] = TLS_FILES.ca;
  }
  if (spec.workload?.workers !== undefined) server["workers"] = spec.workload.workers;
  if (spec.auth !== undefined) server["auth"] = authSection(spec.auth);
  return server;
}

/**
 * The config with `port` and `settings` (serverSection's) in its server
 * section. A strict-TLS release without a certificate gets `insecure: true`:
 * traffic stays plain HTTP inside the cluster, as on the releases before.
 */
export function withServer(
  config: StackConfig,
  port: number | undefined,
  settings: JsonObject | undefined,
): StackConfig {
  const insecure = config.dialect.strictTls && settings?.["tls_certfile"] === undefined;
  if (port === undefined && settings === undefined && !insecure) return config;
  const server: JsonObject = { ...config.server };
  if (port !== undefined) server["port"] = port;
  Object.assign(server, settings);
  if (insecure) server["insecure"] = true;
  return { ...config, server };
}
