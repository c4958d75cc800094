// A tiny OpenAI-compatible upstream on 127.0.0.1 (or the node's bridge address) for booting a real Llama
// Stack against: GET /v1/models (a configurable list), minimal POST
// /v1/chat/completions and /v1/completions answers, and a log of every request.
// With `tls` it serves HTTPS with that certificate and records the handshakes
// clients gave up (an unknown CA shows there).
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";

interface RecordedRequest {
  method: string;
  /** Path with query string, e.g. "/v1/models". */
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON body, the raw text if it is not JSON, undefined if empty. */
  body: unknown;
}

export interface FakeOpenAI {
  /** Base URL including /v1, e.g. http://127.0.0.1:40123/v1. */
  baseUrl: string;
  port: number;
  /** Every request received so far, oldest first. */
  requests: RecordedRequest[];
  /** With tls: the error of every TLS handshake that failed, oldest first. */
  tlsErrors: string[];
  setModels(models: readonly string[]): void;
  close(): Promise<void>;
}

export interface FakeOpenAIOptions {
  models?: readonly string[];
  /** The assistant's answer in completions (default "Hello from the fake upstream."). */
  reply?: string;
  /** Serve HTTPS with this PEM certificate (chain) and key. */
  tls?: { cert: string; key: string };
  /** The address to listen on (default 127.0.0.1; the node tests use the bridge's, which pods reach). */
  host?: string;
}

const created = 1_700_000_000;

export async function startFakeOpenAI(options: FakeOpenAIOptions = {}): Promise<FakeOpenAI> {
  let models = [...(options.models ?? [])];
  const host = options.host ?? "127.0.0.1";
  const reply = options.reply ?? "Hello from the fake upstream.";
  const requests: RecordedRequest[] = [];

  const tlsErrors: string[] = [];
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    void readBody(req).then((text) => {
      const body = parseBody(text);
      requests.push({
        method: req.method ?? "",
        path: req.url ?? "",
        headers: { ...req.headers },
        body,
      });
      route(req, res, body, models, reply);
    });
  };
  const server =
    options.tls === undefined ? createServer(handle) : createHttpsServer(options.tls, handle);
  server.on("tlsClientError", (err: Error) => tlsErrors.push(err.message));
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `${options.tls === undefined ? "http" : "https"}://${host}:${port}/v1`,
    port,
    requests,
    tlsErrors,
    setModels(next) {
      models = [...next];
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}

function route(
  req: IncomingMessage,
  res: ServerResponse,
  body: unknown,
  models: readonly string[],
  reply: string,
): void {
  const path = (req.url ?? "").split("?")[0];
  const requested = isRecord(body) && typeof body["model"] === "string" ? body["model"] : "";
  const model = requested || (models[0] ?? "fake-model");
  if (req.method === "GET" && path === "/v1/models") {
    send(res, 200, {
      object: "list",
      data: models.map((id) => ({ id, object: "model", created, owned_by: "fake-openai" })),
    });
  } else if (req.method === "GET" && path?.startsWith("/v1/models/")) {
    const id = decodeURIComponent(path.slice("/v1/models/".length));
    if (models.includes(id))
      send(res, 200, { id, object: "model", created, owned_by: "fake-openai" });
    else send(res, 404, error(`model ${id} not found`));
  } else if (req.method === "POST" && path === "/v1/chat/completions") {
    send(res, 200, {
      id: "chatcmpl-fake",
      object: "chat.completion",
      created,
      model,
      choices: [
        {
          index: 0,
          message: { role: "assistant", content: reply },
          finish_reason: "stop",
          logprobs: null,
        },
      ],
      usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
    });
  } else if (req.method === "POST" && path === "/v1/completions") {
    send(res, 200, {
      id: "cmpl-fake",
      object: "text_completion",
      created,
      model,
      choices: [{ index: 0, text: reply, finish_reason: "stop", logprobs: null }],
      usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
    });
  } else {
    send(res, 404, error(`${req.method ?? ""} ${path ?? ""} is not served by the fake upstream`));
  }
}

function error(message: string): unknown {
  return { error: { message, type: "invalid_request_error", code: null } };
}

function send(res: ServerResponse, status: number, payload: unknown): void {
  const text = JSON.stringify(payload);
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
  });
  res.end(text);
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", () => resolve(Buffer.concat(chunks).toString("utf8")));
  });
}

function parseBody(text: string): unknown {
  if (text === "") return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
