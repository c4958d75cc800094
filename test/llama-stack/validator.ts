// Runs test/llama-stack/validate.py (the real llama-stack package of a
// release, in its venv) on config.yaml texts. One Python process per call:
// importing llama-stack costs ~2-3 s, each config then costs tens of ms, so
// pass many configs to one validateConfigs call.
import { spawn } from "node:child_process";
import { join } from "node:path";
import { venvFor } from "../peers.js";

export type Finding = { code: string; path: string; message: string };

export interface ValidationItem {
  name: string;
  configYaml: string;
  /** The whole environment the container would have; nothing else is read. */
  env: Record<string, string>;
}

export interface ValidationRun {
  release: string;
  importSeconds: number;
  /** Wall time of the whole Python process, import included. */
  totalSeconds: number;
  results: Map<string, { findings: Finding[]; seconds: number }>;
}

interface BatchOutput {
  release: string;
  importSeconds: number;
  results: Record<string, { findings: Finding[]; seconds: number }>;
}

const script = join(import.meta.dirname, "validate.py");

/** Every detail of one validator process (timings included). */
export async function runValidator(
  release: string,
  items: readonly ValidationItem[],
  options: { pythonPath?: string } = {},
): Promise<ValidationRun> {
  const names = new Set<string>();
  for (const item of items) {
    if (names.has(item.name)) throw new Error(`validateConfigs: duplicate name "${item.name}"`);
    names.add(item.name);
  }
  const python = join(venvFor(release), "bin", "python");
  const input = JSON.stringify(
    items.map((i) => ({ name: i.name, configYaml: i.configYaml, env: i.env })),
  );
  const started = performance.now();
  const { stdout, stderr, code } = await run(
    python,
    [script, "--batch"],
    input,
    options.pythonPath,
  );
  const totalSeconds = (performance.now() - started) / 1000;
  if (code !== 0) {
    throw new Error(
      `validate.py (llama-stack ${release}) exited with ${code}:\n${tail(stderr, 40)}`,
    );
  }
  let parsed: BatchOutput;
  try {
    parsed = JSON.parse(stdout) as BatchOutput;
  } catch (cause) {
    throw new Error(`validate.py printed no JSON:\n${tail(stdout + stderr, 40)}`, { cause });
  }
  if (parsed.release !== release) {
    throw new Error(`venv for ${release} holds llama-stack ${parsed.release}`);
  }
  const results = new Map(Object.entries(parsed.results));
  for (const name of names) {
    if (!results.has(name)) throw new Error(`validate.py gave no answer for "${name}"`);
  }
  return { release, importSeconds: parsed.importSeconds, totalSeconds, results };
}

export async function validateConfigs(
  release: string,
  items: readonly ValidationItem[],
): Promise<Map<string, Finding[]>> {
  const runResult = await runValidator(release, items);
  return new Map([...runResult.results].map(([name, r]) => [name, r.findings]));
}

export async function validateConfig(
  release: string,
  configYaml: string,
  env: Record<string, string>,
): Promise<Finding[]> {
  const results = await validateConfigs(release, [{ name: "config", configYaml, env }]);
  return results.get("config") ?? [];
}

function run(
  command: string,
  args: string[],
  input: string,
  pythonPath?: string,
): Promise<{ stdout: string; stderr: string; code: number | null }> {
  return new Promise((resolve, reject) => {
    // A scrubbed environment: import-time defaults must not depend on the
    // caller's shell (the config's own env is passed in the JSON).
    const child = spawn(command, args, {
      env: {
        PATH: process.env["PATH"] ?? "/usr/bin:/bin",
        HOME: "/nonexistent",
        LANG: "C.UTF-8",
        PYTHONDONTWRITEBYTECODE: "1",
        // Where external providers' modules are installed (test/llama-stack/external.ts).
        ...(pythonPath === undefined ? {} : { PYTHONPATH: pythonPath }),
      },
      stdio: ["pipe", "pipe", "pipe"],
    });
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
    child.stdin.end(input);
  });
}

function tail(text: string, lines: number): string {
  return text.trimEnd().split("\n").slice(-lines).join("\n");
}
