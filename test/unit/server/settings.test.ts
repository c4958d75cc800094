// The server's settings from its environment (src/server/settings.ts): each
// variable's default, what sets it, and the line a value out of range stops
// the hook with.
import { expect } from "chai";
import { poolLimitsFromEnv, settingsFromEnv } from "../../../src/server/settings.js";

describe("the server's settings", () => {
  describe("limits from the environment", () => {
    it("defaults: 2 workers, 64 MiB each, 2 s of processing", () => {
      expect(poolLimitsFromEnv({})).to.deep.equal({ workers: 2, heapMib: 64, deadlineMs: 2000 });
    });

    it("HOOK_WORKERS, WORKER_HEAP_MIB and WORKER_DEADLINE_MS set them", () => {
      expect(
        poolLimitsFromEnv({ HOOK_WORKERS: "3", WORKER_HEAP_MIB: "128", WORKER_DEADLINE_MS: "500" }),
      ).to.deep.equal({ workers: 3, heapMib: 128, deadlineMs: 500 });
    });

    const refused: [Record<string, string>, string][] = [
      [{ HOOK_WORKERS: "0" }, "HOOK_WORKERS=0 must be a whole number from 1 to 32"],
      [{ HOOK_WORKERS: "two" }, "HOOK_WORKERS=two must be a whole number from 1 to 32"],
      [{ WORKER_HEAP_MIB: "16" }, "WORKER_HEAP_MIB=16 must be a whole number from 32 to 4096"],
      [
        { WORKER_DEADLINE_MS: "1.5" },
        "WORKER_DEADLINE_MS=1.5 must be a whole number from 10 to 60000",
      ],
    ];
    for (const [env, message] of refused)
      it(`${Object.entries(env)[0]?.join("=")}: refused with the variable and its range`, () => {
        expect(() => poolLimitsFromEnv(env)).to.throw(message);
      });
  });

  describe("the other variables", () => {
    it("defaults: ports 8080, 9443 and 9464, 4 MiB bodies within 16 (the hook's) and 4 (the API server's), 64 and 16 connections, 48 MiB of caches, 5 s of shutdown delay", () => {
      expect(settingsFromEnv({})).to.deep.equal({
        port: 8080,
        apiServerPort: 9443,
        metricsPort: 9464,
        bodyLimitBytes: 4 * 2 ** 20,
        bodyBudgetBytes: 16 * 2 ** 20,
        apiServerBodyBudgetBytes: 4 * 2 ** 20,
        maxConnections: 64,
        apiServerMaxConnections: 16,
        cacheBytes: 48 * 2 ** 20,
        shutdownDelayMs: 5000,
        pool: { workers: 2, heapMib: 64, deadlineMs: 2000 },
        parentLabels: false,
        parentsMax: 2000,
      });
    });

    it("each variable sets its setting", () => {
      const env = {
        PORT: "8443",
        API_SERVER_PORT: "9444",
        METRICS_PORT: "9000",
        CONFIGS_DIR: "/configs",
        TLS_CERT_FILE: "/tls/tls.crt",
        TLS_KEY_FILE: "/tls/tls.key",
        HOOK_TOKEN_FILE: "/token/token",
        BODY_LIMIT_MIB: "2.5",
        BODY_BUDGET_MIB: "8",
        API_SERVER_BODY_BUDGET_MIB: "6",
        MAX_CONNECTIONS: "500",
        API_SERVER_MAX_CONNECTIONS: "8",
        CACHE_MIB: "96",
        SHUTDOWN_DELAY_SECONDS: "0.5",
        HOOK_WORKERS: "3",
        SSA_FIELD_MANAGER: "mc",
        METRICS_PARENT_LABELS: "true",
        METRICS_PARENTS_MAX: "0",
        MEMORY_LIMIT_MIB: "384",
      };
      expect(settingsFromEnv(env)).to.deep.equal({
        port: 8443,
        apiServerPort: 9444,
        metricsPort: 9000,
        configsDir: "/configs",
        tls: { certFile: "/tls/tls.crt", keyFile: "/tls/tls.key" },
        tokenFile: "/token/token",
        bodyLimitBytes: 2.5 * 2 ** 20,
        bodyBudgetBytes: 8 * 2 ** 20,
        apiServerBodyBudgetBytes: 6 * 2 ** 20,
        maxConnections: 500,
        apiServerMaxConnections: 8,
        cacheBytes: 96 * 2 ** 20,
        shutdownDelayMs: 500,
        pool: { workers: 3, heapMib: 64, deadlineMs: 2000 },
        fieldManager: "mc",
        parentLabels: true,
        parentsMax: 0,
        memoryLimitBytes: 384 * 2 ** 20,
      });
    });

    const refused: [Record<string, string>, string][] = [
      [{ BODY_LIMIT_MIB: "0" }, "BODY_LIMIT_MIB=0 is not a positive number of MiB"],
      [{ CACHE_MIB: "lots" }, "CACHE_MIB=lots is not a positive number of MiB"],
      [
        { SHUTDOWN_DELAY_SECONDS: "-1" },
        "SHUTDOWN_DELAY_SECONDS=-1 is not a number of seconds (0 or more)",
      ],
      [{ METRICS_PARENTS_MAX: "-1" }, "METRICS_PARENTS_MAX=-1 is not a whole number (0 or more)"],
      [{ MEMORY_LIMIT_MIB: "0" }, "MEMORY_LIMIT_MIB=0 is not a positive number of MiB"],
      [{ METRICS_PARENT_LABELS: "yes" }, "METRICS_PARENT_LABELS=yes is neither true nor false"],
      [{ TLS_CERT_FILE: "/tls/tls.crt" }, "set both TLS_CERT_FILE and TLS_KEY_FILE, or neither"],
      [
        { PORT: "9464" },
        "METRICS_PORT must differ from PORT (9464): each port serves its own callers",
      ],
      [
        { API_SERVER_PORT: "8080" },
        "API_SERVER_PORT must differ from PORT (8080): each port serves its own callers",
      ],
      [
        { API_SERVER_PORT: "9464" },
        "API_SERVER_PORT must differ from METRICS_PORT (9464): each port serves its own callers",
      ],
      [{ WORKER_HEAP_MIB: "16" }, "WORKER_HEAP_MIB=16 must be a whole number from 32 to 4096"],
      [{ MAX_CONNECTIONS: "0" }, "MAX_CONNECTIONS=0 must be a whole number from 1 to 100000"],
      [
        { API_SERVER_MAX_CONNECTIONS: "2.5" },
        "API_SERVER_MAX_CONNECTIONS=2.5 must be a whole number from 1 to 100000",
      ],
    ];
    for (const [env, message] of refused)
      it(`${Object.entries(env)[0]?.join("=")}: refused with the variable and what it takes`, () => {
        expect(() => settingsFromEnv(env)).to.throw(message);
      });
  });
});
