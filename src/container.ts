// Where things live inside the server's container. The Deployment
// (src/children/deployment.ts) sets these; the config generator relies on them.
import { RELEASE_TABLE, type ReleaseFacts } from "./release.js";

export const CONFIG_MOUNT_DIR = "/etc/llama-stack";
export const CONFIG_FILE = "config.yaml";
const CONFIG_PATH = `${CONFIG_MOUNT_DIR}/${CONFIG_FILE}`;
export const TLS_MOUNT_DIR = "/etc/llama-stack/tls";
const DATA_DIR = "/.llama";

/** Data paths, inside the data volume. spec.workload.overrides.env may change them. */
export function dataEnv(dataDir: string): Record<string, string> {
  return {
    HOME: dataDir,
    SQLITE_STORE_DIR: `${dataDir}/data`,
    FILES_STORAGE_DIR: `${dataDir}/files`,
    HF_HOME: `${dataDir}/huggingface`,
  };
}

/**
 * How the server finds its config and port: the env names of its release
 * (release.ts). A custom image (release unknown) gets the Llama Stack names,
 * as it always has.
 */
export function serverEnv(release: ReleaseFacts | undefined, port: number): Record<string, string> {
  const names = release?.env ?? RELEASE_TABLE[0].env;
  return {
    ...Object.fromEntries(names.config.map((name) => [name, CONFIG_PATH])),
    [names.port]: String(port),
  };
}

/**
 * How the server starts in the images configs/distributions.json pins for an
 * OGX release: `ogx run <config>` (the release's command), in place of the
 * image's entrypoint. That entrypoint (1.2.1 on) runs `ogx stack run
 * "$RUN_CONFIG_PATH" --insecure`, which skips the FIPS cipher defaults and
 * their check even with TLS on, and boots the starter config baked into the
 * package when ours is missing; this command serves what the config says
 * (server.insecure is in a generated config without TLS) and fails when the
 * file is missing. It keeps what the entrypoint does when an OTEL_* variable
 * is set: opentelemetry-instrument around the server, with the asyncpg and
 * sqlite3 instrumentations off (the entrypoint appends them to
 * OTEL_PYTHON_DISABLED_INSTRUMENTATIONS; here they are its value unless the
 * pod sets it). Custom images (release unknown) and Llama Stack releases keep
 * their entrypoint: undefined.
 */
export function serverCommand(
  release: ReleaseFacts | undefined,
  pinnedImage: boolean,
  otel: boolean,
): string[] | undefined {
  if (!pinnedImage || release?.command === undefined) return undefined;
  const run = [...release.command, CONFIG_PATH];
  return otel ? [OTEL_WRAPPER.command, ...run] : run;
}

/** The entrypoint's OpenTelemetry wrapper, and the instrumentations it turns off. */
export const OTEL_WRAPPER = {
  command: "opentelemetry-instrument",
  disabledEnv: "OTEL_PYTHON_DISABLED_INSTRUMENTATIONS",
  disabled: "asyncpg,sqlite3",
} as const;

/**
 * Names the server's env may not take from spec.workload.overrides.env, in
 * any release, each with what it is for: where the config is, and how the
 * server listens (children/pod-layout.ts reserves them). Every release's
 * config and port names (release.ts) are among them (test/unit/release.test.ts).
 */
export const RESERVED_ENV: Readonly<Record<string, "config" | "server">> = {
  RUN_CONFIG_PATH: "config",
  LLAMA_STACK_CONFIG: "config",
  // OGX writes the resolved config to a file of its own and points OGX_CONFIG at it.
  OGX_CONFIG: "config",
  LLAMA_STACK_PORT: "server",
  OGX_PORT: "server",
  // OGX_WORKERS would beat server.workers (spec.workload.workers).
  OGX_WORKERS: "server",
};

/** Every name with this prefix is the hook's (LLSD_TRUST_CA_BUNDLE, and any later one). */
export const RESERVED_ENV_PREFIX = "LLSD_";

/**
 * OGX writes the resolved config, secrets in clear, to a file in $TMPDIR while
 * it runs: /tmp is an in-memory volume there, so it never reaches the node's
 * disk. The same directory takes every multipart upload over 1 MB (Starlette
 * spools it there before OGX reads it), and OGX accepts files up to 100 MiB
 * (ogx_api/common/upload_limits.py): the volume holds one such upload whole,
 * or a body fails to parse (400) before OGX can answer its 413. What is in it
 * counts against the pod's memory only while it is there (test/node).
 */
export const OGX_TMP = { volume: "ogx-tmp", mountPath: "/tmp", sizeLimit: "128Mi" } as const;

/** Names of every env var the Deployment sets itself, in any release. */
export const RUNTIME_ENV_NAMES: readonly string[] = [
  ...Object.keys(dataEnv(DATA_DIR)),
  ...Object.keys(RESERVED_ENV),
];

/** The keys of a kubernetes.io/tls Secret (ca.crt: the client CA, for mutual TLS). */
export const TLS_KEYS = { cert: "tls.crt", key: "tls.key", ca: "ca.crt" } as const;

export const TLS_FILES = {
  cert: `${TLS_MOUNT_DIR}/${TLS_KEYS.cert}`,
  key: `${TLS_MOUNT_DIR}/${TLS_KEYS.key}`,
  ca: `${TLS_MOUNT_DIR}/${TLS_KEYS.ca}`,
};

/**
 * A CA file the Deployment mounts from a ConfigMap key, in a volume of its
 * own: the one shape of spec.trust's bundle and spec.auth's CA. `file` is the
 * file's name in `mountDir`; `mount` says whether only that file is mounted
 * (a subPath: it stays what the pod started with) or the whole directory (the
 * kubelet refreshes it when the ConfigMap changes).
 */
export interface CaFile {
  volume: string;
  mountDir: string;
  file: string;
  mount: "file" | "directory";
}

/** Where a CA file is inside the container. */
export function caFilePath(ca: CaFile): string {
  return `${ca.mountDir}/${ca.file}`;
}

/**
 * spec.trust.caBundle inside the container. The ConfigMap's key is mounted as
 * one file (a subPath mount: the file stays what the pod started with, and an
 * edited bundle reaches the server by the rollout the inputs hash starts,
 * never half-way through a running pod). The config does not name the file:
 * each provider's network.tls.verify reads `${env.LLSD_TRUST_CA_BUNDLE}`, which
 * the Deployment sets to it. Llama Stack checks at startup that the file
 * exists (TLSConfig's validator), so the indirection lets a config be checked
 * or booted outside a pod with the variable pointing at a stand-in file
 * (test/llama-stack), and lets an overrideConfig refer to the same bundle.
 */
export const TRUST = {
  volume: "trust",
  mountDir: "/etc/llama-stack-trust",
  file: "ca-bundle.crt",
  mount: "file",
  env: "LLSD_TRUST_CA_BUNDLE",
} as const satisfies CaFile & { env: string };

export const TRUST_FILE = caFilePath(TRUST);

/**
 * spec.auth's CA (the API server's or the JWKS server's), one file, which the
 * config's tls_cafile names (config/auth.ts).
 */
export const AUTH_CA = {
  volume: "auth-ca",
  mountDir: "/etc/llama-stack/auth-ca",
  file: "ca.crt",
  mount: "directory",
} as const satisfies CaFile;

export const AUTH_CA_FILE = caFilePath(AUTH_CA);
