// The classes of endpoints (docs/adr/0018-endpoint-classes.md): who calls
// them decides what they share. Each class has a port, a body budget and a
// share of the workers of its own, so the callers of one can never refuse the
// other's requests, and a NetworkPolicy can open one port to one caller.
//   hook        POST /sync, /customize: Metacontroller, with the bearer token when one is set
//   api-server  POST /convert, /validate: the API server, which sends no token
import type { Route } from "./answer.js";

export interface EndpointClass {
  name: "hook" | "api-server";
  /** Its paths and the route each is: add an endpoint the same caller calls here. */
  routes: Readonly<Record<string, Route>>;
  /** Whether HOOK_TOKEN_FILE's bearer token is required (the API server sends none to webhooks). */
  token: boolean;
  /** The port's variable and default. */
  portVariable: string;
  defaultPort: number;
  /** The body budget's variable and default (./body-budget.ts). */
  budgetVariable: string;
  defaultBudgetBytes: number;
  /** The most connections its port keeps open: variable and default (./connections.ts). */
  connectionsVariable: string;
  defaultConnections: number;
}

const MiB = 2 ** 20;

export const HOOK_CLASS: EndpointClass = {
  name: "hook",
  routes: { "/sync": "sync", "/customize": "customize" },
  token: true,
  portVariable: "PORT",
  defaultPort: 8080,
  budgetVariable: "BODY_BUDGET_MIB",
  defaultBudgetBytes: 16 * MiB,
  // Metacontroller keeps one connection per sync in flight (--workers, 5; 20 for a large
  // fleet) and two idle; the kubelet's probes one each. An idle one costs up to about
  // 80 KiB over TLS (docs/adr/0017-worker-pool.md, "Connections and the worst case").
  connectionsVariable: "MAX_CONNECTIONS",
  defaultConnections: 64,
};

/**
 * The API server sends a handful of objects at a time, so one body at the
 * default limit (BODY_LIMIT_MIB, 4) is its budget; each request holds only
 * what it has sent, so small reviews go side by side.
 */
export const API_SERVER_CLASS: EndpointClass = {
  name: "api-server",
  routes: { "/convert": "convert", "/validate": "validate" },
  token: false,
  portVariable: "API_SERVER_PORT",
  defaultPort: 9443,
  budgetVariable: "API_SERVER_BODY_BUDGET_MIB",
  defaultBudgetBytes: 4 * MiB,
  connectionsVariable: "API_SERVER_MAX_CONNECTIONS",
  defaultConnections: 16,
};

export const ENDPOINT_CLASSES: readonly EndpointClass[] = [HOOK_CLASS, API_SERVER_CLASS];

/**
 * Whether the API server calls `route`: its requests name no parent and are
 * all one tenant (API_SERVER_TENANT), known before a body is read.
 */
export const fromApiServer = (route: Route): boolean =>
  Object.values(API_SERVER_CLASS.routes).includes(route);
