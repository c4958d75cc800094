// npm start: the hook on PORT (default 8080). With --version: prints the version and exits
// (the image's entrypoint is this file, so `<image> --version` answers it). Its settings come
// from the environment, parsed by ./settings.ts (which lists them); this file wires the parts:
// the catalog, the worker pool (started before the port opens), the app, the metrics port and
// the shutdown.
import { readFileSync, statSync } from "node:fs";
import http from "node:http";
import https from "node:https";
import { fileURLToPath } from "node:url";
import { pino } from "pino";
import { serverMsg } from "../server-messages.js";
import { createApp, generationCacheBytes, type AppOptions } from "./app.js";
import { API_SERVER_CLASS, HOOK_CLASS, type EndpointClass } from "./classes.js";
import { limitConnections, METRICS_MAX_CONNECTIONS } from "./connections.js";
import { gracefulShutdown } from "./shutdown.js";
import { createPool } from "./pool/index.js";
import { settingsFromEnv, type Settings } from "./settings.js";
import { timeoutOptions } from "./timeouts.js";
import { createMetrics, createMetricsApp, type HookMetrics } from "./metrics.js";
import { imageOverridesFromEnv, loadCatalog } from "../edge/load-catalog.js";
import { packageVersion } from "../edge/package-version.js";

const logger = pino({ level: process.env["LOG_LEVEL"] ?? "info" });

function readToken(file: string | undefined): string | undefined {
  if (file === undefined || file === "") return undefined;
  const token = readFileSync(file, "utf8").trim();
  if (token === "") throw new Error(serverMsg.emptyTokenFile(file));
  return token;
}

/**
 * GET /metrics on a port of its own, plain HTTP: the NetworkPolicy admits
 * Prometheus there only; where it is not enforced, METRICS_MAX_CONNECTIONS
 * holds its connections as the other ports' limits hold theirs.
 */
function serveMetrics(metrics: HookMetrics, port: number): http.Server {
  const server = http.createServer(timeoutOptions(), createMetricsApp(metrics));
  metrics.watchConnections("metrics", limitConnections(server, METRICS_MAX_CONNECTIONS).counts);
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
      serverMsg.cannotListen(variable, port, err.code ?? err.message),
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

/**
 * A class's port: HTTPS when a certificate is set, else plain HTTP; at most
 * `maxConnections` open (./connections.ts).
 */
function classServer(
  app: http.RequestListener,
  settings: Settings,
  of: { endpointClass: EndpointClass; maxConnections: number; metrics: HookMetrics },
): http.Server {
  const { tls } = settings;
  // A request that has not arrived by these limits is a stalled client,
  // whose buffered body would otherwise be held for Node's default of 300 s.
  const server =
    tls === undefined
      ? http.createServer(timeoutOptions(), app)
      : tlsServer(app, tls.certFile, tls.keyFile);
  const limit = limitConnections(server, of.maxConnections);
  of.metrics.watchConnections(of.endpointClass.name, limit.counts);
  return server;
}

/** A port to open: its server and what its start line says. */
interface ClassPort {
  server: http.Server;
  port: number;
  variable: string;
  message: string;
  fields: Record<string, unknown>;
}

/** The hook's port and the API server's (docs/adr/0018-endpoint-classes.md), each with its app. */
function classPorts(
  settings: Settings,
  shared: Pick<AppOptions, "pool" | "catalog" | "logger"> & { metrics: HookMetrics },
  token: string | undefined,
): ClassPort[] {
  const common = {
    ...shared,
    bodyLimitBytes: settings.bodyLimitBytes,
    ...(token === undefined ? {} : { bearerToken: token }),
  };
  const hook = createApp({
    ...common,
    bodyBudgetBytes: settings.bodyBudgetBytes,
    cacheBytes: settings.cacheBytes,
  });
  const apiServer = createApp({
    ...common,
    endpoints: API_SERVER_CLASS,
    bodyBudgetBytes: settings.apiServerBodyBudgetBytes,
  });
  const tls = settings.tls !== undefined;
  return [
    {
      server: classServer(hook, settings, {
        endpointClass: HOOK_CLASS,
        maxConnections: settings.maxConnections,
        metrics: shared.metrics,
      }),
      port: settings.port,
      variable: HOOK_CLASS.portVariable,
      message: "llsd-hook listening",
      fields: {
        tls,
        auth: token !== undefined,
        maxConnections: settings.maxConnections,
        releases: shared.catalog.releases,
      },
    },
    {
      server: classServer(apiServer, settings, {
        endpointClass: API_SERVER_CLASS,
        maxConnections: settings.apiServerMaxConnections,
        metrics: shared.metrics,
      }),
      port: settings.apiServerPort,
      variable: API_SERVER_CLASS.portVariable,
      message: "llsd-hook listening for the API server",
      fields: {
        tls,
        maxConnections: settings.apiServerMaxConnections,
        routes: Object.keys(API_SERVER_CLASS.routes),
      },
    },
  ];
}

async function main(): Promise<void> {
  // dist/server/main.js: package.json is two folders up (the image copies it to /app).
  const version = packageVersion(fileURLToPath(new URL("../../package.json", import.meta.url)));
  if (process.argv[2] === "--version") {
    process.stdout.write(`${version}\n`);
    return;
  }
  const env = process.env;
  const settings = settingsFromEnv(env);
  const catalog = loadCatalog({
    ...(settings.configsDir === undefined ? {} : { configsDir: settings.configsDir }),
    imageOverrides: imageOverridesFromEnv(env),
  });
  const token = readToken(settings.tokenFile);
  const metrics = createMetrics({
    parentLabels: settings.parentLabels,
    parentsMax: settings.parentsMax,
    ...(settings.memoryLimitBytes === undefined
      ? {}
      : { memoryLimitBytes: settings.memoryLimitBytes }),
    processMetrics: true,
    version,
  });
  const pool = createPool({
    catalog,
    limits: settings.pool,
    cacheBytes: generationCacheBytes(settings.cacheBytes),
    ...(settings.fieldManager === undefined ? {} : { fieldManager: settings.fieldManager }),
    ...(settings.allowedPodFields === undefined
      ? {}
      : { allowedPodFields: settings.allowedPodFields }),
  });
  const ports = classPorts(settings, { pool, metrics, catalog, logger }, token);
  // The workers start before the ports open: one that cannot start stops the hook here.
  await pool.ready();
  const metricsServer = serveMetrics(metrics, settings.metricsPort);
  for (const p of ports) listen(p.server, p.port, p.variable, p.message, p.fields);
  const stop = gracefulShutdown(
    ports.map((p) => p.server),
    [metricsServer],
    {
      delayMs: settings.shutdownDelayMs,
      // Metacontroller gives up on a hook request after 10 s (its default timeout).
      forceAfterMs: 10_000,
      logger,
      exit: (code) => process.exit(code),
    },
  );
  process.on("SIGTERM", () => stop("SIGTERM"));
  // Interactive: no delay.
  process.on("SIGINT", () => stop("SIGINT", 0));
}

main().catch((err: unknown) => {
  logger.fatal({ err: { message: (err as Error).message } }, "llsd-hook could not start");
  process.exit(1);
});
