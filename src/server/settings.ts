// Every setting the hook's server takes from its environment, parsed in one
// place (src/server/main.ts passes process.env; docs/operations/hook-server.md
// lists them). A value out of range stops the hook at start with a line naming
// the variable and what it takes.
//   PORT                   the hook's port: /sync, /customize (8080)
//   API_SERVER_PORT        the API server's port: /convert (9443); docs/adr/0018-endpoint-classes.md
//   CONFIGS_DIR            the catalog (default: configs/ beside the code)
//   IMAGE_OVERRIDES_FILE   YAML of distribution name (or name:release) → image (read by src/edge/load-catalog.ts)
//   TLS_CERT_FILE, TLS_KEY_FILE   serve HTTPS with this certificate (reloaded when the files change)
//   HOOK_TOKEN_FILE        require "Authorization: Bearer <token>" on /sync and /customize
//   LOG_LEVEL              pino level (info; read first, for the line that reports a bad setting)
//   BODY_LIMIT_MIB         the largest request body accepted (4); see docs/operations/hook-server.md
//   BODY_BUDGET_MIB        request-body bytes held at once across the hook's requests (16); docs/adr/0010-request-body-limits.md
//   API_SERVER_BODY_BUDGET_MIB  the same across the API server's requests (4)
//   MAX_CONNECTIONS        connections the hook's port keeps open (64); at the limit the one idle the
//                          longest is cut to let a new one in; docs/adr/0018-endpoint-classes.md
//   API_SERVER_MAX_CONNECTIONS  the same on the API server's port (16)
//   CACHE_MIB              what the caches (generations, whole responses) may hold together (48)
//   SHUTDOWN_DELAY_SECONDS how long to keep serving after SIGTERM, closing each connection after
//                          its answer (5); see docs/operations/hook-server.md "Shutdown"
//   HOOK_WORKERS           worker threads that read and answer requests (2); docs/adr/0017-worker-pool.md
//   WORKER_HEAP_MIB        each worker's heap bound (64); a worker that reaches it is replaced
//   WORKER_DEADLINE_MS     CPU time one request may take in its worker (2000; in wall time 4× that, 8 s at least)
//   SSA_FIELD_MANAGER      Metacontroller's --apply-strategy-ssa-field-manager (metacontroller)
//   METRICS_PORT           plain-HTTP port of GET /metrics, Prometheus text (9464); docs/operations/metrics.md
//   METRICS_PARENT_LABELS  "true": label sync outcomes with the parent's namespace and name
//                          (one series per parent and outcome; off by default)
//   METRICS_PARENTS_MAX    the most parents with series of their phase and conditions (2000;
//                          0 turns them off); docs/adr/0023-condition-metrics.md
//   MEMORY_LIMIT_MIB       the container's memory limit, for llsd_hook_memory_limit_bytes (the
//                          Deployment sets it from limits.memory)
//   ALLOWED_POD_FIELDS     Pod Security checks or volume types the confused-deputy rule lets pods
//                          have (none); docs/adr/0019-confused-deputy-rule.md
import { parseAllowedPodFields } from "../api/pod-security.js";
import { serverMsg } from "../server-messages.js";
import { BODY_LIMIT_BYTES, CACHE_BYTES } from "./app.js";
import { API_SERVER_CLASS, HOOK_CLASS, type EndpointClass } from "./classes.js";
import { DEFAULT_PARENTS_MAX } from "./condition-metrics.js";
import { DEFAULT_POOL_LIMITS, POOL_SETTINGS, type PoolLimits } from "./pool/limits.js";

/** The highest connection limit accepted (MAX_CONNECTIONS, API_SERVER_MAX_CONNECTIONS). */
const MAX_CONNECTIONS_BOUND = 100_000;

type Env = Readonly<Record<string, string | undefined>>;

export interface Settings {
  port: number;
  apiServerPort: number;
  metricsPort: number;
  configsDir?: string;
  tls?: { certFile: string; keyFile: string };
  tokenFile?: string;
  bodyLimitBytes: number;
  bodyBudgetBytes: number;
  apiServerBodyBudgetBytes: number;
  maxConnections: number;
  apiServerMaxConnections: number;
  cacheBytes: number;
  shutdownDelayMs: number;
  pool: PoolLimits;
  fieldManager?: string;
  parentLabels: boolean;
  parentsMax: number;
  memoryLimitBytes?: number;
  /** Sorted; absent when nothing is allowed. */
  allowedPodFields?: string[];
}

/** The variable's text; undefined when it is unset or empty. */
function text(env: Env, variable: string): string | undefined {
  const value = env[variable];
  return value === undefined || value === "" ? undefined : value;
}

/** A whole number within bounds. */
function whole(env: Env, variable: string, fallback: number, min: number, max: number): number {
  const given = text(env, variable);
  if (given === undefined) return fallback;
  const value = Number(given);
  if (!Number.isInteger(value) || value < min || value > max)
    throw new Error(serverMsg.notWhole(variable, given, min, max));
  return value;
}

/** A whole number, 0 or more. */
function count(env: Env, variable: string, fallback: number): number {
  const given = text(env, variable);
  if (given === undefined) return fallback;
  const value = Number(given);
  if (!Number.isSafeInteger(value) || value < 0)
    throw new Error(serverMsg.notCount(variable, given));
  return value;
}

/** A positive number of MiB, as bytes. */
function mebibytes(env: Env, variable: string, fallback: number): number {
  const given = text(env, variable);
  if (given === undefined) return fallback;
  const value = Number(given);
  if (!Number.isFinite(value) || value <= 0)
    throw new Error(serverMsg.notMebibytes(variable, given));
  return Math.round(value * 2 ** 20);
}

/** A number of seconds (0 or more), as ms. */
function seconds(env: Env, variable: string, fallback: number): number {
  const given = text(env, variable);
  if (given === undefined) return fallback * 1000;
  const value = Number(given);
  if (!Number.isFinite(value) || value < 0) throw new Error(serverMsg.notSeconds(variable, given));
  return Math.round(value * 1000);
}

/** "true" or "false" (unset: false). */
function flag(env: Env, variable: string): boolean {
  const given = text(env, variable) ?? "false";
  if (given === "false") return false;
  if (given === "true") return true;
  throw new Error(serverMsg.notFlag(variable, given));
}

/** The pool's limits from HOOK_WORKERS, WORKER_HEAP_MIB and WORKER_DEADLINE_MS (./pool/limits.ts). */
export function poolLimitsFromEnv(env: Env): PoolLimits {
  const limits = { ...DEFAULT_POOL_LIMITS };
  for (const { variable, limit, min, max } of POOL_SETTINGS)
    limits[limit] = whole(env, variable, DEFAULT_POOL_LIMITS[limit], min, max);
  return limits;
}

/** A class's connection limit (./connections.ts): at least 1. */
function connectionsOf(env: Env, of: EndpointClass): number {
  return whole(env, of.connectionsVariable, of.defaultConnections, 1, MAX_CONNECTIONS_BOUND);
}

/** ALLOWED_POD_FIELDS (src/api/pod-security.ts); an unknown name stops the hook at start. */
function allowedPodFieldsOf(env: Env): string[] {
  const parsed = parseAllowedPodFields(env["ALLOWED_POD_FIELDS"]);
  if (!parsed.ok) throw new Error(parsed.error);
  return [...parsed.value].sort();
}

function tlsOf(env: Env): Settings["tls"] {
  const certFile = env["TLS_CERT_FILE"];
  const keyFile = env["TLS_KEY_FILE"];
  if ((certFile === undefined) !== (keyFile === undefined)) throw new Error(serverMsg.tlsHalf);
  return certFile === undefined || keyFile === undefined ? undefined : { certFile, keyFile };
}

/** The server's settings; throws a message naming the variable when one is out of range. */
export function settingsFromEnv(env: Env): Settings {
  const port = Number(env["PORT"] ?? String(HOOK_CLASS.defaultPort));
  const apiServerPort = Number(env["API_SERVER_PORT"] || String(API_SERVER_CLASS.defaultPort));
  const metricsPort = Number(env["METRICS_PORT"] || "9464");
  if (metricsPort === port) throw new Error(serverMsg.samePorts("METRICS_PORT", "PORT", port));
  if (apiServerPort === port) throw new Error(serverMsg.samePorts("API_SERVER_PORT", "PORT", port));
  if (apiServerPort === metricsPort)
    throw new Error(serverMsg.samePorts("API_SERVER_PORT", "METRICS_PORT", metricsPort));
  const configsDir = env["CONFIGS_DIR"];
  const tls = tlsOf(env);
  const tokenFile = text(env, "HOOK_TOKEN_FILE");
  const fieldManager = text(env, "SSA_FIELD_MANAGER");
  const memoryLimitBytes = mebibytes(env, "MEMORY_LIMIT_MIB", 0);
  const allowedPodFields = allowedPodFieldsOf(env);
  return {
    port,
    apiServerPort,
    metricsPort,
    ...(configsDir === undefined ? {} : { configsDir }),
    ...(tls === undefined ? {} : { tls }),
    ...(tokenFile === undefined ? {} : { tokenFile }),
    bodyLimitBytes: mebibytes(env, "BODY_LIMIT_MIB", BODY_LIMIT_BYTES),
    bodyBudgetBytes: mebibytes(env, HOOK_CLASS.budgetVariable, HOOK_CLASS.defaultBudgetBytes),
    apiServerBodyBudgetBytes: mebibytes(
      env,
      API_SERVER_CLASS.budgetVariable,
      API_SERVER_CLASS.defaultBudgetBytes,
    ),
    maxConnections: connectionsOf(env, HOOK_CLASS),
    apiServerMaxConnections: connectionsOf(env, API_SERVER_CLASS),
    cacheBytes: mebibytes(env, "CACHE_MIB", CACHE_BYTES),
    shutdownDelayMs: seconds(env, "SHUTDOWN_DELAY_SECONDS", 5),
    pool: poolLimitsFromEnv(env),
    ...(fieldManager === undefined ? {} : { fieldManager }),
    parentLabels: flag(env, "METRICS_PARENT_LABELS"),
    parentsMax: count(env, "METRICS_PARENTS_MAX", DEFAULT_PARENTS_MAX),
    ...(memoryLimitBytes > 0 ? { memoryLimitBytes } : {}),
    ...(allowedPodFields.length > 0 ? { allowedPodFields } : {}),
  };
}
