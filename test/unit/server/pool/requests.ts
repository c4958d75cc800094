// Requests for the pool's tests: a typical sync (milliseconds of processing)
// and the slowest kind found within every bound (0.3 to 0.9 s here), each in
// a namespace of its own choosing.
import { createHash } from "node:crypto";
import type { KubeObject } from "../../../../src/api/hook.js";
import { request as syncRequest } from "../../../support/request.js";

/**
 * YAML within every bound of a related ConfigMap (19,001 nodes, 18 levels,
 * 39 KiB) that takes the longest to read per byte found (0.3 to 0.9 s here);
 * `salt` makes each text new, so no cache answers it.
 */
function slowYaml(salt: string): string {
  const line = `- ${"[".repeat(18)}a${"]".repeat(18)}`;
  return `${Array.from({ length: 1000 }, () => line).join("\n")}\n# ${salt}\n`;
}

/** A parent in `namespace` named `name`, with a spec and related objects. */
export function parentRequest(
  namespace: string,
  name: string,
  spec: unknown,
  related: KubeObject[] = [],
) {
  const body = syncRequest(spec, { related }) as unknown as {
    parent: { metadata: { namespace: string; name: string } };
    related: Record<string, Record<string, KubeObject>>;
  };
  body.parent.metadata.namespace = namespace;
  body.parent.metadata.name = name;
  const moved: Record<string, Record<string, KubeObject>> = {};
  for (const [group, objects] of Object.entries(body.related))
    moved[group] = Object.fromEntries(
      Object.values(objects).map((o) => [
        `${namespace}/${o.metadata.name}`,
        { ...o, metadata: { ...o.metadata, namespace } },
      ]),
    );
  body.related = moved;
  return body;
}

const configMap = (name: string, text: string): KubeObject => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name, namespace: "default", uid: `uid-${name}`, resourceVersion: "1" },
  data: { "config.yaml": text },
});

/** A sync of the slowest kind: a base config of the slowest YAML, read in full. */
export function slowRequest(namespace: string, name: string, salt = name) {
  const spec = {
    distribution: {
      image: "acme/stack:1",
      release: "1.5.0",
      baseConfig: { configMapName: "base" },
    },
  };
  return parentRequest(namespace, name, spec, [configMap("base", slowYaml(salt))]);
}

export function typicalRequest(namespace: string, name: string) {
  const spec = {
    distribution: { name: "starter" },
    providers: { inference: [{ provider: "vllm", endpoint: "http://vllm:8000/v1" }] },
  };
  return parentRequest(namespace, name, spec);
}

/** A request body as the pool takes it, with the key that joins equal ones. */
export function job(body: object, at = "2026-11-01T12:00:00Z") {
  const bytes = Buffer.from(JSON.stringify(body));
  return {
    route: "sync" as const,
    body: bytes,
    charset: "utf-8",
    at,
    key: `sync\0${createHash("sha256").update(bytes).digest("base64")}`,
  };
}

/** Resolves once `test` holds, checking every 5 ms (never a duration asserted). */
export async function until(test: () => boolean): Promise<void> {
  while (!test()) await new Promise((r) => setTimeout(r, 5));
}
