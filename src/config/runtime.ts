// Where things live inside the server's container. The Deployment
// (src/children/deployment.ts) sets these; the config generator relies on them.

export const CONFIG_MOUNT_DIR = "/etc/llama-stack";
export const CONFIG_FILE = "config.yaml";
export const CONFIG_PATH = `${CONFIG_MOUNT_DIR}/${CONFIG_FILE}`;
export const TLS_MOUNT_DIR = "/etc/llama-stack/tls";
export const DATA_DIR = "/.llama";

/** Data paths, inside the data volume. spec.workload.overrides.env may change them. */
export function dataEnv(dataDir: string): Record<string, string> {
  return {
    HOME: dataDir,
    SQLITE_STORE_DIR: `${dataDir}/data`,
    FILES_STORAGE_DIR: `${dataDir}/files`,
    HF_HOME: `${dataDir}/huggingface`,
  };
}

/** Set by the Deployment from spec.networking.port. */
export const PORT_ENV = "LLAMA_STACK_PORT";

/** How the server finds its config; never overridable. */
export const CONFIG_ENV: Readonly<Record<string, string>> = {
  RUN_CONFIG_PATH: CONFIG_PATH,
  LLAMA_STACK_CONFIG: CONFIG_PATH,
};

/** Names of every env var the Deployment sets itself. */
export const RUNTIME_ENV_NAMES: readonly string[] = [
  ...Object.keys(dataEnv(DATA_DIR)),
  ...Object.keys(CONFIG_ENV),
  PORT_ENV,
];

/** Env var names spec.workload.overrides.env may not set (the data paths it may). */
export function isReservedEnvName(name: string): boolean {
  return Object.hasOwn(CONFIG_ENV, name) || name === PORT_ENV || name.startsWith("LLSD_");
}

export const TLS_FILES = {
  cert: `${TLS_MOUNT_DIR}/tls.crt`,
  key: `${TLS_MOUNT_DIR}/tls.key`,
  ca: `${TLS_MOUNT_DIR}/ca.crt`,
};
