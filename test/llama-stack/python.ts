// A script run by a release's venv python (test/llama-stack/venv.sh), with
// `input` on stdin: what the release's own packages make of it.
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { venvFor } from "../peers.js";

/** The script's stdout; throws with its stderr when it fails. */
export function python(release: string, script: string, input: string | Buffer): string {
  const run = spawnSync(join(venvFor(release), "bin", "python"), ["-c", script], {
    input,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
    timeout: 60_000,
  });
  if (run.status !== 0) throw new Error(`python failed (${run.status}):\n${run.stderr}`);
  return run.stdout;
}
