// npm start: the hook on PORT (default 8080). With --version: prints the version and exits
// (the image's entrypoint is this file, so `<image> --version` answers it).
//   PORT                   listen port (8080)
//   CONFIGS_DIR            the catalog (default: configs/ beside the code)
//   IMAGE_OVERRIDES_FILE   YAML of distribution name (or name:release) → image
//   TLS_CERT_FILE, TLS_KEY_FILE   serve HTTPS with this certificate (reloaded when the files change)
//   HOOK_TOKEN_FILE        require "Authorization: Bearer <token>" on /sync and /customize
//   LOG_LEVEL              pino level (info)
//   BODY_LIMIT_MIB         the largest request body accepted (4); see docs/operations/hook-server.md
//   BODY_BUDGET_MIB        request-body bytes held at once across all requests (16); docs/adr/0010-request-body-limits.md
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
import { readFileSync, statSync } from "node:fs";
import http from "node:http";
import https from "node:https";
import { fileURLToPath } from "node:url";
import { pino } from "pino";
import { BODY_LIMIT_BYTES, CACHE_BYTES, createApp, poolOf } from "./app.js";
import { BODY_BUDGET_BYTES } from "./body-budget.js";
import { gracefulShutdown } from "./shutdown.js";
import { poolLimitsFromEnv } from "./pool.js";
import { timeoutOptions } from "./timeouts.js";
import { createMetrics, createMetricsApp, type HookMetrics } from "./metrics.js";
import { DEFAULT_PARENTS_MAX } from "./condition-metrics.js";
import { parseAllowedPodFields } from "../api/pod-security.js";
import { imageOverridesFromEnv, loadCatalog } from "../edge/load-catalog.js";
import { packageVersion } from "../edge/package-version.js";

const logger = pino({ level: process.env["LOG_LEVEL"] ?? "info" });

function mebibytes(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const text = env[name];
  if (text === undefined || text === "") return fallback;
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0)
    throw new Error(`${name}=${text} is not a positive number of MiB`);
  return Math.round(value * 2 ** 20);
}

function seconds(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const text = env[name];
  if (text === undefined || text === "") return fallback * 1000;
  const value = Number(text);
  if (!Number.isFinite(value) || value < 0)
    throw new Error(`${name}=${text} is not a number of seconds (0 or more)`);
  return Math.round(value * 1000);
}

function readToken(file: string | undefined): string | undefined {
  if (file === undefined || file === "") return undefined;
  const token = readFileSync(file, "utf8").trim();
  if (token === "") throw new Error(`HOOK_TOKEN_FILE=${file} is empty`);
  return token;
}

function count(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const text = env[name];
  if (text === undefined || text === "") return fallback;
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < 0)
    throw new Error(`${name}=${text} is not a whole number (0 or more)`);
  return value;
}

function flag(env: NodeJS.ProcessEnv, name: string): boolean {
  const text = env[name] ?? "";
  if (text === "" || text === "false") return false;
  if (text === "true") return true;
  throw new Error(`${name}=${text} is neither true nor false`);
}

function metricsFromEnv(env: NodeJS.ProcessEnv, version: string): HookMetrics {
  const memoryLimitBytes = mebibytes(env, "MEMORY_LIMIT_MIB", 0);
  return createMetrics({
    parentLabels: flag(env, "METRICS_PARENT_LABELS"),
    parentsMax: count(env, "METRICS_PARENTS_MAX", DEFAULT_PARENTS_MAX),
    ...(memoryLimitBytes > 0 ? { memoryLimitBytes } : {}),
    processMetrics: true,
    version,
  });
}

/** GET /metrics on a port of its own, plain HTTP: the NetworkPolicy admits Prometheus there only. */
function serveMetrics(metrics: HookMetrics, port: number): http.Server {
  const server = http.createServer(timeoutOptions(), createMetricsApp(metrics));
  listen(server, port, "METRICS_PORT", "llsd-hook metrics listening", {});
  return server;
}

/** Listens, or stops the process with a line naming the variable to change (not a stack trace). */
function listen(
  server: http.Server,
  port: number,
  variable: string,
  message: string,
  fields: Record<string, unknown>,
): void {
  server.on("error", (err: NodeJS.ErrnoException) => {
    logger.fatal(
      { port, code: err.code },
      `llsd-hook could not listen on ${variable} ${port} (${err.code ?? err.message}); set ${variable} to a free port`,
    );
    process.exit(1);
  });
  server.listen(port, () => logger.info({ port, ...fields }, message));
}

function tlsServer(app: http.RequestListener, certFile: string, keyFile: string): https.Server {
  const load = () => ({ cert: readFileSync(certFile), key: readFileSync(keyFile) });
  const server = https.createServer({ ...load(), minVersion: "TLSv1.2", ...timeoutOptions() }, app);
  // cert-manager renews certificates in place: pick up new files without a restart.
  let stamp = `${statSync(certFile).mtimeMs}:${statSync(keyFile).mtimeMs}`;
  setInterval(() => {
    try {
      const now = `${statSync(certFile).mtimeMs}:${statSync(keyFile).mtimeMs}`;
      if (now === stamp) return;
      server.setSecureContext(load());
      stamp = now;
      logger.info({ certFile }, "reloaded TLS certificate");
    } catch (err) {
      logger.error(
        { err: { message: (err as Error).message } },
        "could not reload the TLS certificate; keeping the old one",
      );
    }
  }, 60_000).unref();
  return server;
}

/** ALLOWED_POD_FIELDS (the confused-deputy rule); an unknown name stops the hook at start. */
function allowedPodFieldsFrom(env: NodeJS.ProcessEnv): string[] {
  const parsed = parseAllowedPodFields(env["ALLOWED_POD_FIELDS"]);
  if (!parsed.ok) throw new Error(parsed.error);
  return [...parsed.value].sort();
}

async function main(): Promise<void> {
  // dist/server/main.js: package.json is two folders up (the image copies it to /app).
  const version = packageVersion(fileURLToPath(new URL("../../package.json", import.meta.url)));
  if (process.argv[2] === "--version") {
    process.stdout.write(`${version}\n`);
    return;
  }
  const env = process.env;
  const catalog = loadCatalog({
    ...(env["CONFIGS_DIR"] === undefined ? {} : { configsDir: env["CONFIGS_DIR"] }),
    imageOverrides: imageOverridesFromEnv(env),
  });
  const token = readToken(env["HOOK_TOKEN_FILE"]);
  const metrics = metricsFromEnv(env, version);
  const metricsPort = Number(env["METRICS_PORT"] || "9464");
  const app = createApp({
    metrics,
    catalog,
    logger,
    bodyLimitBytes: mebibytes(env, "BODY_LIMIT_MIB", BODY_LIMIT_BYTES),
    bodyBudgetBytes: mebibytes(env, "BODY_BUDGET_MIB", BODY_BUDGET_BYTES),
    cacheBytes: mebibytes(env, "CACHE_MIB", CACHE_BYTES),
    pool: poolLimitsFromEnv(env),
    ...(env["SSA_FIELD_MANAGER"] === undefined || env["SSA_FIELD_MANAGER"] === ""
      ? {}
      : { fieldManager: env["SSA_FIELD_MANAGER"] }),
    ...(token === undefined ? {} : { bearerToken: token }),
    allowedPodFields: allowedPodFieldsFrom(env),
  });
  const certFile = env["TLS_CERT_FILE"];
  const keyFile = env["TLS_KEY_FILE"];
  if ((certFile === undefined) !== (keyFile === undefined))
    throw new Error("set both TLS_CERT_FILE and TLS_KEY_FILE, or neither");
  const server =
    certFile !== undefined && keyFile !== undefined
      ? tlsServer(app, certFile, keyFile)
      : // A request that has not arrived by these limits is a stalled client,
        // whose buffered body would otherwise be held for Node's default of 300 s.
        http.createServer(timeoutOptions(), app);
  // The workers start before the port opens: one that cannot start stops the hook here.
  await poolOf(app).ready();
  const port = Number(env["PORT"] ?? "8080");
  if (metricsPort === port) throw new Error(`METRICS_PORT must differ from PORT (${port})`);
  const metricsServer = serveMetrics(metrics, metricsPort);
  listen(server, port, "PORT", "llsd-hook listening", {
    tls: certFile !== undefined,
    auth: token !== undefined,
    releases: catalog.releases,
  });
  const stop = gracefulShutdown(server, [metricsServer], {
    delayMs: seconds(env, "SHUTDOWN_DELAY_SECONDS", 5),
    // Metacontroller gives up on a hook request after 10 s (its default timeout).
    forceAfterMs: 10_000,
    logger,
    exit: (code) => process.exit(code),
  });
  process.on("SIGTERM", () => stop("SIGTERM"));
  // Interactive: no delay.
  process.on("SIGINT", () => stop("SIGINT", 0));
}

main().catch((err: unknown) => {
  logger.fatal({ err: { message: (err as Error).message } }, "llsd-hook could not start");
  process.exit(1);
});
