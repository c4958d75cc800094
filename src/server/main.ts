// npm start: the hook on PORT (default 8080).
import { pino } from "pino";
import { createApp } from "./app.js";
import { imageOverridesFromEnv, loadCatalog } from "./catalog.js";

const logger = pino({ level: process.env["LOG_LEVEL"] ?? "info" });

function main(): void {
  const catalog = loadCatalog({
    ...(process.env["CONFIGS_DIR"] === undefined ? {} : { configsDir: process.env["CONFIGS_DIR"] }),
    imageOverrides: imageOverridesFromEnv(process.env),
  });
  const app = createApp({ catalog, logger });
  const port = Number(process.env["PORT"] ?? "8080");
  const server = app.listen(port, () =>
    logger.info({ port, releases: catalog.releases }, "llsd-hook listening"),
  );
  const stop = (signal: string) => {
    logger.info({ signal }, "shutting down");
    server.close(() => process.exit(0));
    setTimeout(() => process.exit(0), 10_000).unref();
  };
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
}

try {
  main();
} catch (err) {
  logger.fatal({ err: { message: (err as Error).message } }, "llsd-hook could not start");
  process.exit(1);
}
