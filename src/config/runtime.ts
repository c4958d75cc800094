// Where things live inside the server's container. The Deployment
// (src/children/deployment.ts) sets these; the config generator relies on them.

export const CONFIG_MOUNT_DIR = "/etc/llama-stack";
export const CONFIG_FILE = "config.yaml";
export const CONFIG_PATH = `${CONFIG_MOUNT_DIR}/${CONFIG_FILE}`;
export const DATA_DIR = "/.llama";

/** Env vars the Deployment always sets on the llama-stack container. */
export const RUNTIME_ENV: Readonly<Record<string, string>> = {
  HOME: DATA_DIR,
  SQLITE_STORE_DIR: `${DATA_DIR}/data`,
  FILES_STORAGE_DIR: `${DATA_DIR}/files`,
  HF_HOME: `${DATA_DIR}/huggingface`,
  RUN_CONFIG_PATH: CONFIG_PATH,
  LLAMA_STACK_CONFIG: CONFIG_PATH,
};

/** Set by the Deployment from spec.networking.port. */
export const PORT_ENV = "LLAMA_STACK_PORT";
