// A small Kubernetes REST client over node:https for the tests (no client
// library): requests with the admin token, server-side apply and dry runs,
// JSON patches, the status subresource, watches, and the API server's Warning
// headers. withUserAgent() makes a client whose writes the API server records
// under another field manager (the User-Agent's first segment, as for client-go).
import { request as httpsRequest } from "node:https";
import type { KubeObject } from "../../src/api/hook.js";
import { API_VERSION, KIND } from "../../src/api/schema.js";
import { readWatch } from "../support/watch.js";

export interface KubeResponse<T = unknown> {
  status: number;
  body: T;
  /** Warning headers (299 "..."), e.g. from Pod Security admission. */
  warnings: string[];
}

export interface RequestOptions {
  method: string;
  path: string;
  body?: unknown;
  contentType?: string;
  query?: Record<string, string>;
}

export interface Status {
  kind: "Status";
  status: string;
  message: string;
  reason?: string;
  code?: number;
  details?: { causes?: { message: string; field?: string; reason?: string }[] };
}

/** Collection path of a resource: /api/v1/namespaces/ns/configmaps, /apis/apps/v1/... */
export function collectionPath(apiVersion: string, resource: string, namespace?: string): string {
  const base = apiVersion.includes("/") ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
  return namespace === undefined
    ? `${base}/${resource}`
    : `${base}/namespaces/${namespace}/${resource}`;
}

export class Kube {
  constructor(
    readonly server: string,
    readonly ca: Buffer,
    private readonly token: string,
    /** Sent as User-Agent; the API server names the manager of Update requests after it. */
    readonly userAgent?: string,
  ) {}

  /** The same client, sending `userAgent` (e.g. the one Metacontroller's client-go sends). */
  withUserAgent(userAgent: string): Kube {
    return new Kube(this.server, this.ca, this.token, userAgent);
  }

  request<T = unknown>(opts: RequestOptions): Promise<KubeResponse<T>> {
    const url = new URL(opts.path, this.server);
    for (const [k, v] of Object.entries(opts.query ?? {})) url.searchParams.set(k, v);
    const payload =
      opts.body === undefined
        ? undefined
        : typeof opts.body === "string"
          ? opts.body
          : JSON.stringify(opts.body);
    return new Promise((resolve, reject) => {
      const req = httpsRequest(
        url,
        {
          method: opts.method,
          ca: this.ca,
          headers: {
            authorization: `Bearer ${this.token}`,
            accept: "application/json",
            ...(this.userAgent === undefined ? {} : { "user-agent": this.userAgent }),
            // Content-Length always: Node does not chunk a DELETE body, and an unframed
            // body would be read as the start of the next request on a kept-alive socket.
            ...(payload === undefined
              ? {}
              : {
                  "content-type": opts.contentType ?? "application/json",
                  "content-length": Buffer.byteLength(payload),
                }),
          },
        },
        (res) => {
          let text = "";
          res.setEncoding("utf8");
          res.on("data", (c: string) => (text += c));
          res.on("end", () => {
            const raw = res.headers["warning"];
            const warnings = (Array.isArray(raw) ? raw : raw === undefined ? [] : [raw])
              .flatMap((w) => w.split(/,(?=\s*299)/))
              .map((w) => w.trim());
            let body: unknown = text;
            try {
              body = text === "" ? undefined : JSON.parse(text);
            } catch {
              // keep the text (e.g. /readyz answers "ok")
            }
            resolve({ status: res.statusCode ?? 0, body: body as T, warnings });
          });
        },
      );
      req.on("error", reject);
      req.end(payload);
    });
  }

  private async ok<T>(res: KubeResponse<T>, what: string): Promise<T> {
    if (res.status >= 200 && res.status < 300) return res.body;
    throw new Error(
      `${what}: HTTP ${res.status}: ${(res.body as Status | undefined)?.message ?? JSON.stringify(res.body)}`,
    );
  }

  async get(
    apiVersion: string,
    resource: string,
    namespace: string | undefined,
    name: string,
  ): Promise<KubeObject | undefined> {
    const res = await this.request<KubeObject>({
      method: "GET",
      path: `${collectionPath(apiVersion, resource, namespace)}/${name}`,
    });
    if (res.status === 404) return undefined;
    return this.ok(res, `GET ${resource}/${name}`);
  }

  async list(
    apiVersion: string,
    resource: string,
    namespace?: string,
    labelSelector?: string,
  ): Promise<KubeObject[]> {
    const res = await this.request<{ items: KubeObject[]; apiVersion: string }>({
      method: "GET",
      path: collectionPath(apiVersion, resource, namespace),
      ...(labelSelector === undefined ? {} : { query: { labelSelector } }),
    });
    const list = await this.ok(res, `LIST ${resource}`);
    // List items carry no apiVersion/kind; restore them.
    const kind = (res.body as unknown as { kind: string }).kind.replace(/List$/, "");
    return list.items.map((i) => ({ ...i, apiVersion, kind }));
  }

  async create(
    apiVersion: string,
    resource: string,
    obj: unknown,
    query?: Record<string, string>,
  ): Promise<KubeResponse<KubeObject>> {
    const ns = (obj as KubeObject).metadata.namespace;
    return this.request<KubeObject>({
      method: "POST",
      path: collectionPath(apiVersion, resource, ns),
      body: obj,
      ...(query === undefined ? {} : { query }),
    });
  }

  async mustCreate(apiVersion: string, resource: string, obj: unknown): Promise<KubeObject> {
    return this.ok(await this.create(apiVersion, resource, obj), `CREATE ${resource}`);
  }

  async replace(apiVersion: string, resource: string, obj: KubeObject): Promise<KubeObject> {
    const path = `${collectionPath(apiVersion, resource, obj.metadata.namespace)}/${obj.metadata.name}`;
    return this.ok(
      await this.request<KubeObject>({ method: "PUT", path, body: obj }),
      `PUT ${resource}/${obj.metadata.name}`,
    );
  }

  async replaceStatus(apiVersion: string, resource: string, obj: KubeObject): Promise<KubeObject> {
    const path = `${collectionPath(apiVersion, resource, obj.metadata.namespace)}/${obj.metadata.name}/status`;
    return this.ok(
      await this.request<KubeObject>({ method: "PUT", path, body: obj }),
      `PUT ${resource}/${obj.metadata.name}/status`,
    );
  }

  /** DELETE with background propagation; `uid` adds a precondition. A 404 is not an error. */
  async remove(
    apiVersion: string,
    resource: string,
    namespace: string | undefined,
    name: string,
    opts: { uid?: string } = {},
  ): Promise<void> {
    const path = `${collectionPath(apiVersion, resource, namespace)}/${name}`;
    const res = await this.request({
      method: "DELETE",
      path,
      body: {
        kind: "DeleteOptions",
        apiVersion: "v1",
        propagationPolicy: "Background",
        ...(opts.uid === undefined ? {} : { preconditions: { uid: opts.uid } }),
      },
    });
    if (res.status !== 404) await this.ok(res, `DELETE ${resource}/${name}`);
  }

  /** PATCH with a JSON patch (RFC 6902) or a merge patch. */
  async patch(
    apiVersion: string,
    resource: string,
    namespace: string | undefined,
    name: string,
    patch: unknown,
    contentType: "application/json-patch+json" | "application/merge-patch+json",
  ): Promise<KubeResponse<KubeObject>> {
    return this.request<KubeObject>({
      method: "PATCH",
      path: `${collectionPath(apiVersion, resource, namespace)}/${name}`,
      body: patch,
      contentType,
    });
  }

  /** Server-side apply; dryRun for validation only. */
  async apply(
    apiVersion: string,
    resource: string,
    obj: KubeObject,
    opts: { fieldManager: string; force?: boolean; dryRun?: boolean; strict?: boolean },
  ): Promise<KubeResponse<KubeObject>> {
    const path = `${collectionPath(apiVersion, resource, obj.metadata.namespace)}/${obj.metadata.name}`;
    return this.request<KubeObject>({
      method: "PATCH",
      path,
      body: obj,
      contentType: "application/apply-patch+yaml",
      query: {
        fieldManager: opts.fieldManager,
        ...(opts.force === true ? { force: "true" } : {}),
        ...(opts.dryRun === true ? { dryRun: "All" } : {}),
        ...(opts.strict === true ? { fieldValidation: "Strict" } : {}),
      },
    });
  }

  /** Streams a watch until `until` returns true for an event, or the timeout passes. */
  watch(
    apiVersion: string,
    resource: string,
    namespace: string | undefined,
    opts: { resourceVersion?: string; fieldSelector?: string; timeoutMs: number },
    until: (event: { type: string; object: KubeObject }) => boolean,
  ): Promise<{ type: string; object: KubeObject }> {
    const url = new URL(collectionPath(apiVersion, resource, namespace), this.server);
    url.searchParams.set("watch", "true");
    if (opts.resourceVersion !== undefined)
      url.searchParams.set("resourceVersion", opts.resourceVersion);
    if (opts.fieldSelector !== undefined) url.searchParams.set("fieldSelector", opts.fieldSelector);
    return new Promise((resolve, reject) => {
      const req = httpsRequest(
        url,
        { method: "GET", ca: this.ca, headers: { authorization: `Bearer ${this.token}` } },
        (res) =>
          readWatch<KubeObject>(res, (event) => {
            if (!until(event)) return false;
            clearTimeout(timer);
            req.destroy();
            resolve(event);
            return true;
          }),
      );
      const timer = setTimeout(() => {
        req.destroy();
        reject(new Error(`watch ${resource}: no matching event within ${opts.timeoutMs} ms`));
      }, opts.timeoutMs);
      req.on("error", (err) => {
        if (!req.destroyed) reject(err);
      });
      req.end();
    });
  }

  /** GET a loopback health endpoint whose certificate is self-signed (the controller-manager's). */
  static insecureGet(url: string): Promise<boolean> {
    return new Promise((resolve) => {
      const req = httpsRequest(url, { rejectUnauthorized: false }, (res) => {
        res.resume();
        resolve(res.statusCode === 200);
      });
      req.on("error", () => resolve(false));
      req.end();
    });
  }
}

/** Polls until fn returns a value other than undefined. */
export async function waitFor<T>(
  what: string,
  fn: () => Promise<T | undefined>,
  timeoutMs = 30_000,
  intervalMs = 250,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await fn();
      if (value !== undefined) return value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline)
      throw new Error(
        `timed out waiting for ${what}${last === undefined ? "" : `: ${(last as Error).message}`}`,
      );
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** A Namespace that enforces and warns on Pod Security "restricted" (latest). */
/**
 * A LlamaStackDistribution named `name` with `spec`, or, when the API server
 * refuses that spec, with a minimal valid one: a parent that must exist (to
 * own children, or to carry a status) whatever a golden case's spec is.
 */
export async function createParent(
  kube: Kube,
  namespace: string,
  name: string,
  spec: unknown,
): Promise<KubeObject> {
  const parent = (s: unknown) => ({
    apiVersion: API_VERSION,
    kind: KIND,
    metadata: { name, namespace },
    spec: s,
  });
  const created = await kube.create(API_VERSION, "llamastackdistributions", parent(spec));
  return created.status === 201
    ? created.body
    : await kube.mustCreate(
        API_VERSION,
        "llamastackdistributions",
        parent({ distribution: { name: "starter" } }),
      );
}

export function restrictedNamespace(name: string): KubeObject {
  return {
    apiVersion: "v1",
    kind: "Namespace",
    metadata: {
      name,
      labels: {
        "pod-security.kubernetes.io/enforce": "restricted",
        "pod-security.kubernetes.io/enforce-version": "latest",
        "pod-security.kubernetes.io/warn": "restricted",
        "pod-security.kubernetes.io/warn-version": "latest",
      },
    },
  };
}
