// Boots a real `llama stack run` (llama-stack <= 0.7) or `ogx stack run` (ogx,
// 0.8 on) on a config.yaml, from the release's venv, the way the image's
// entrypoint starts it: installs the provider dependencies the config needs
// (once, cached by a marker), starts the server on a free port with HOME, TMPDIR
// and the data directories in a temp dir, waits for GET /v1/health, fetches GET
// /v1/models, and always stops the process group and removes the temp dir, also
// on failure (printing the server's log tail). An external provider's module
// (an entry's `module:`) is never installed: it comes from the caller's
// PYTHONPATH in `env`, as from the image. ogx is started without
// --insecure: a config without TLS must carry `server.insecure: true` (1.2+).
// A start counts only when /v1/health answers: ogx 1.4+ exits 0 when startup
// fails, so the exit code says nothing.
import { spawn, type ChildProcess } from "node:child_process";
import { freePort } from "../net.js";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "yaml";
import { venvFor } from "../peers.js";

export interface BootOptions {
  release: string;
  configYaml: string;
  /** The container's env; HOME, SQLITE_STORE_DIR and FILES_STORAGE_DIR are always the harness's. */
  env?: Record<string, string>;
  /** Until /v1/health answers (default 120 s). Dependency installs do not count. */
  timeoutMs?: number;
  /** Print the server's log tail to stderr when the boot fails (default true). */
  printLogOnFailure?: boolean;
  /**
   * Sent as `Authorization: Bearer` with GET /v1/models, for a config with
   * server.auth. Never with /v1/health: that is what the probes call.
   */
  bearerToken?: string;
}

export interface BootedStack {
  baseUrl: string;
  port: number;
  /** Body of GET /v1/health. */
  health: unknown;
  /** Body of GET /v1/models. */
  models: unknown;
  /** The `id`s listed by GET /v1/models. */
  modelIds: string[];
  deps: DepsResult;
  /** From spawning the server to a healthy /v1/health. */
  startMs: number;
  /** The harness's temp dir (HOME, TMPDIR, data); stop() removes it. */
  workDir: string;
  stop(): Promise<void>;
  logs(): string;
}

/** What bootLlamaStack throws: the message has the log's tail, serverLog all of it. */
export interface BootFailure extends Error {
  serverLog: string;
}

interface DepsResult {
  /** Requirements `llama stack list-deps` / `ogx stack list-deps` printed for the config. */
  required: string[];
  /** The ones that were missing from the venv and got installed now. */
  installed: string[];
  /** True when a marker from an earlier boot of the same config skipped everything. */
  cached: boolean;
  ms: number;
}

/** Provider dependencies too heavy for boot tests; configs that need them are out of scope. */
const refused = /^(torch|torchvision|torchao|sentence-transformers)\b/i;

const lockDir = join(import.meta.dirname, "requirements");

/**
 * The package's CLI in a release's venv: `llama` for llama-stack (<= 0.7),
 * `ogx` for its successor (0.8 on), which reads only OGX_* variables.
 */
function cliOf(venv: string): "llama" | "ogx" {
  return existsSync(join(venv, "bin", "ogx")) ? "ogx" : "llama";
}

async function ensureProviderDeps(
  release: string,
  configYaml: string,
  configPath: string,
): Promise<DepsResult> {
  const started = performance.now();
  const venv = venvFor(release);
  const key = createHash("sha256")
    .update(`${release}\n${depsBasis(configYaml)}`)
    .digest("hex")
    .slice(0, 16);
  const markerDir = join(venv, ".llsd-boot-deps");
  const marker = join(markerDir, `${key}.json`);
  if (existsSync(marker)) {
    const saved = JSON.parse(readFileSync(marker, "utf8")) as { required: string[] };
    return {
      required: saved.required,
      installed: [],
      cached: true,
      ms: performance.now() - started,
    };
  }
  const env = scrubbedEnv(venv, join(tmpdir(), "llsd-list-deps-home"));
  const cli = cliOf(venv);
  const listed = await run(join(venv, "bin", cli), ["stack", "list-deps", configPath], env);
  if (listed.code !== 0) {
    throw new Error(`${cli} stack list-deps failed (${listed.code}):\n${tail(listed.stderr, 30)}`);
  }
  const required: string[] = [];
  for (const line of listed.stdout.split("\n").map((l) => l.trim())) {
    if (line === "") continue;
    const words = line.split(/\s+/).map((w) => w.replace(/^["']|["']$/g, ""));
    const heavy = words.filter((w) => refused.test(w));
    if (heavy.length > 0) {
      throw new Error(
        `this config needs ${heavy.join(", ")} (line "${line}"); configs that need torch or ` +
          "sentence-transformers are out of scope for boot tests",
      );
    }
    if (words.some((w) => w.startsWith("--"))) {
      throw new Error(
        `list-deps printed a special install line the harness does not handle: ${line}`,
      );
    }
    required.push(...words);
  }
  // An external provider's module (list-deps prints it as a requirement) is the
  // image's business, not the venv's: the caller puts it on PYTHONPATH.
  const external = externalModules(configYaml);
  const unique = [...new Set(required)].filter((r) => !external.has(r)).sort();
  const missing = await missingRequirements(venv, unique, env);
  if (missing.length > 0) {
    // Constrained by the release's lock: what the validator runs against stays as pinned.
    const pip = await run(
      join(venv, "bin", "pip"),
      ["install", "-q", "-c", join(lockDir, `${release}.txt`), ...missing],
      env,
    );
    if (pip.code !== 0) {
      throw new Error(`pip install ${missing.join(" ")} failed:\n${tail(pip.stderr, 30)}`);
    }
    const still = await missingRequirements(venv, unique, env);
    if (still.length > 0) throw new Error(`still missing after pip install: ${still.join(" ")}`);
  }
  mkdirSync(markerDir, { recursive: true });
  writeFileSync(marker, JSON.stringify({ required: unique, installed: missing }, null, 1) + "\n");
  return { required: unique, installed: missing, cached: false, ms: performance.now() - started };
}

/**
 * What `llama stack list-deps` (`ogx stack list-deps`) output depends on: the
 * provider types of every entry (enabled or not), external modules and
 * external_apis_dir. Ports and URLs do not change it, so a config that differs
 * only in those reuses the marker.
 */
function depsBasis(configYaml: string): string {
  let doc: unknown;
  try {
    doc = parse(configYaml);
  } catch {
    return configYaml;
  }
  if (!isRecord(doc)) return configYaml;
  const providers = isRecord(doc["providers"]) ? doc["providers"] : {};
  const types = Object.entries(providers).flatMap(([api, list]) =>
    Array.isArray(list)
      ? list.map((p: unknown) =>
          isRecord(p) ? `${api} ${String(p["provider_type"])} ${String(p["module"] ?? "")}` : api,
        )
      : [api],
  );
  return JSON.stringify({
    types: [...new Set(types)].sort(),
    externalApisDir: doc["external_apis_dir"] ?? null,
  });
}

/** The `module:` of every provider entry, as written (list-deps prints them so). */
function externalModules(configYaml: string): Set<string> {
  const doc: unknown = parse(configYaml);
  const providers = isRecord(doc) && isRecord(doc["providers"]) ? doc["providers"] : {};
  return new Set(
    Object.values(providers).flatMap((list) =>
      Array.isArray(list)
        ? list.flatMap((p: unknown) =>
            isRecord(p) && typeof p["module"] === "string" ? [p["module"]] : [],
          )
        : [],
    ),
  );
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

async function missingRequirements(
  venv: string,
  requirements: string[],
  env: NodeJS.ProcessEnv,
): Promise<string[]> {
  const check = `
import json, sys, importlib.metadata as md
try:
    from packaging.requirements import Requirement
except ImportError:
    from pip._vendor.packaging.requirements import Requirement
missing = []
for text in json.loads(sys.argv[1]):
    req = Requirement(text)
    try:
        version = md.version(req.name)
    except md.PackageNotFoundError:
        missing.append(text)
        continue
    if req.specifier and not req.specifier.contains(version, prereleases=True):
        missing.append(text)
print(json.dumps(missing))
`;
  const out = await run(
    join(venv, "bin", "python"),
    ["-c", check, JSON.stringify(requirements)],
    env,
  );
  if (out.code !== 0)
    throw new Error(`checking installed packages failed:\n${tail(out.stderr, 20)}`);
  return JSON.parse(out.stdout) as string[];
}

/**
 * Boots the server; when its port was taken between our probe and its bind
 * (another process on this machine), boots it again on another port, up to
 * three times. Any other failure is thrown as it is.
 */
export async function bootLlamaStack(options: BootOptions): Promise<BootedStack> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await bootOnce(options);
    } catch (e) {
      const portTaken = e instanceof Error && e.message.includes("Address already in use");
      if (!portTaken || attempt === 3) throw e;
      console.error(
        `[boot] the server's port was taken before it bound; booting again (${attempt + 1}/3)`,
      );
    }
  }
}

async function bootOnce(options: BootOptions): Promise<BootedStack> {
  const { release, configYaml } = options;
  const timeoutMs = options.timeoutMs ?? 120_000;
  const venv = venvFor(release);
  const cli = cliOf(venv);
  const dir = mkdtempSync(join(tmpdir(), "llsd-boot-"));
  const configPath = join(dir, "config.yaml");
  writeFileSync(configPath, configYaml);
  const logLines: string[] = [];
  let child: ChildProcess | undefined;
  let stopped: Promise<void> | undefined;

  const stop = (): Promise<void> => {
    stopped ??= (async () => {
      if (child !== undefined) await killGroup(child);
      rmSync(dir, { recursive: true, force: true });
    })();
    return stopped;
  };
  const logs = (): string => logLines.join("");

  try {
    const deps = await ensureProviderDeps(release, configYaml, configPath);
    const port = await freePort();
    const env: NodeJS.ProcessEnv = {
      ...scrubbedEnv(venv, join(dir, "home")),
      ...options.env,
      HOME: join(dir, "home"),
      SQLITE_STORE_DIR: join(dir, "data"),
      FILES_STORAGE_DIR: join(dir, "files"),
      HF_HOME: join(dir, "hf"),
      PYTHONUNBUFFERED: "1",
    };
    const subdirs = ["home", "data", "files"];
    let args = ["stack", "run", configPath, "--port", String(port)];
    if (cli === "ogx") {
      // As the image's entrypoint: `ogx stack run "$RUN_CONFIG_PATH"`, the port
      // from OGX_PORT (ogx ignores LLAMA_STACK_PORT), no --insecure. ogx 1.2+
      // writes the resolved config, secrets revealed, to a mkstemp file in
      // $TMPDIR and removes it only at a clean exit: keep it in our temp dir.
      args = ["stack", "run", configPath];
      env["OGX_PORT"] = String(port);
      env["TMPDIR"] = join(dir, "tmp");
      // Rich wraps log lines at 120 columns; whole lines make failures readable.
      env["OGX_LOG_WIDTH"] ??= "1000";
      subdirs.push("tmp");
    }
    for (const sub of subdirs) mkdirSync(join(dir, sub), { recursive: true });
    const startedAt = performance.now();
    const proc = spawn(join(venv, "bin", cli), args, {
      cwd: dir,
      env,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    child = proc;
    const onExit = (): void => {
      try {
        if (proc.pid !== undefined) process.kill(-proc.pid, "SIGKILL");
      } catch {
        // already gone
      }
    };
    process.once("exit", onExit);
    proc.once("exit", () => process.removeListener("exit", onExit));
    const capture = (b: Buffer): void => {
      logLines.push(b.toString("utf8"));
      if (logLines.length > 20_000) logLines.splice(0, logLines.length - 20_000);
    };
    proc.stdout?.on("data", capture);
    proc.stderr?.on("data", capture);

    const baseUrl = `http://127.0.0.1:${port}`;
    const health = await waitForHealth(proc, cli, `${baseUrl}/v1/health`, timeoutMs, logs);
    const startMs = performance.now() - startedAt;
    const models = await getJson(`${baseUrl}/v1/models`, options.bearerToken);
    return {
      baseUrl,
      port,
      health,
      models,
      modelIds: modelIdsOf(models),
      deps,
      startMs,
      workDir: dir,
      stop,
      logs,
    };
  } catch (cause) {
    const text = tail(logs(), 60);
    await stop();
    if (options.printLogOnFailure ?? true) {
      console.error(`[boot] ${cli} stack run (${release}) failed; server log tail:\n${text}`);
    }
    const message = cause instanceof Error ? cause.message : String(cause);
    const what = cli === "ogx" ? "ogx" : "llama-stack";
    const failure: BootFailure = Object.assign(
      new Error(`booting ${what} ${release} failed: ${message}\n--- server log tail ---\n${text}`, {
        cause,
      }),
      { serverLog: logs() },
    );
    throw failure;
  }
}

/** SIGTERM to the whole process group, SIGKILL after 15 s; resolves once the leader is gone. */
async function killGroup(proc: ChildProcess): Promise<void> {
  const pid = proc.pid;
  if (pid === undefined) return;
  const exited =
    proc.exitCode !== null || proc.signalCode !== null
      ? Promise.resolve()
      : new Promise<void>((resolve) => proc.once("exit", () => resolve()));
  signalGroup(pid, "SIGTERM");
  const killed = await Promise.race([exited.then(() => false), sleep(15_000).then(() => true)]);
  if (killed) {
    signalGroup(pid, "SIGKILL");
    await exited;
  }
  // Workers or helpers left behind by the leader.
  signalGroup(pid, "SIGKILL");
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // no such process group any more
  }
}

async function waitForHealth(
  proc: ChildProcess,
  cli: "llama" | "ogx",
  url: string,
  timeoutMs: number,
  logs: () => string,
): Promise<unknown> {
  const deadline = performance.now() + timeoutMs;
  let exit: string | undefined;
  let code: number | null = null;
  proc.once("exit", (c, signal) => {
    code = c;
    exit = `exited with ${c ?? signal}`;
  });
  // The output is complete once the pipes close, which can be after "exit".
  const closed = new Promise<void>((resolve) => proc.once("close", () => resolve()));
  let lastError = "no answer yet";
  while (performance.now() < deadline) {
    if (exit !== undefined) {
      await Promise.race([closed, sleep(2_000)]);
      // ogx 1.4+ exits 0 when a provider or the app fails to start.
      const note = cli === "ogx" && code === 0 ? " (ogx exits 0 when startup fails)" : "";
      const reason = startupError(logs());
      throw new Error(
        `${cli} stack run ${exit} before /v1/health answered${note}` +
          (reason === undefined ? "" : `: ${reason}`),
      );
    }
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2_000) });
      if (res.ok) return await res.json();
      lastError = `HTTP ${res.status}`;
    } catch (e) {
      lastError = e instanceof Error ? e.message : String(e);
    }
    await sleep(250);
  }
  throw new Error(`/v1/health did not answer within ${timeoutMs} ms (last: ${lastError})`);
}

/** The line of the server's log that says why it stopped, if one does. */
function startupError(log: string): string | undefined {
  const lines = log
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "");
  const patterns = [
    /TLS required: .*/,
    /FATAL: .*/,
    /server\.auth\.provider_config\.type is .*/,
    /Failed to resolve .*/,
    /\b\w*(?:Error|Exception): .*/,
    /Application startup failed.*/,
  ];
  for (const pattern of patterns) {
    for (let i = lines.length - 1; i >= 0; i--) {
      const hit = pattern.exec(lines[i]!);
      if (hit !== null) return hit[0];
    }
  }
  return undefined;
}

async function getJson(url: string, bearerToken?: string): Promise<unknown> {
  const headers: Record<string, string> =
    bearerToken === undefined ? {} : { authorization: `Bearer ${bearerToken}` };
  const res = await fetch(url, { headers, signal: AbortSignal.timeout(30_000) });
  const text = await res.text();
  if (!res.ok) throw new Error(`GET ${url}: HTTP ${res.status}: ${text.slice(0, 500)}`);
  return JSON.parse(text) as unknown;
}

function modelIdsOf(models: unknown): string[] {
  const data =
    typeof models === "object" && models !== null && "data" in models ? models.data : undefined;
  if (!Array.isArray(data)) return [];
  return data.flatMap((m: unknown) => {
    if (typeof m !== "object" || m === null) return [];
    const record = m as Record<string, unknown>;
    const id = record["id"] ?? record["identifier"];
    return typeof id === "string" ? [id] : [];
  });
}

function scrubbedEnv(venv: string, home: string): NodeJS.ProcessEnv {
  return {
    PATH: `${join(venv, "bin")}:${process.env["PATH"] ?? "/usr/bin:/bin"}`,
    HOME: home,
    LANG: "C.UTF-8",
    VIRTUAL_ENV: venv,
  };
}

function run(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ stdout: string; stderr: string; code: number | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ["ignore", "pipe", "pipe"] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on("data", (b: Buffer) => out.push(b));
    child.stderr.on("data", (b: Buffer) => err.push(b));
    child.on("error", reject);
    child.on("close", (code) =>
      resolve({
        stdout: Buffer.concat(out).toString("utf8"),
        stderr: Buffer.concat(err).toString("utf8"),
        code,
      }),
    );
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

function tail(text: string, lines: number): string {
  return text.trimEnd().split("\n").slice(-lines).join("\n");
}
