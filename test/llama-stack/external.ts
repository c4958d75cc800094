// The external provider modules the golden corpus names (provider entries with
// `module:`), pip-installed at test time into a temporary directory that the
// validator puts on PYTHONPATH: the release's own loader then imports them as
// the server would from the image. Nothing is installed into the release venvs
// or the hook's build. The one module: acme_echo (test/llama-stack/external/).
import { execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { join } from "node:path";
import { venvFor } from "../peers.js";

const dir = join(import.meta.dirname, "external");

/**
 * Installs acme_echo with the release's own pip under `parent` (the caller
 * removes it); returns the directory to put on PYTHONPATH.
 */
export function installExternalProviders(release: string, parent: string): string {
  const python = join(venvFor(release), "bin", "python");
  const work = mkdtempSync(join(parent, `external-${release}-`));
  const wheel = execFileSync(python, [join(dir, "build_wheel.py"), work], {
    encoding: "utf8",
  }).trim();
  const target = join(work, "site");
  execFileSync(
    python,
    ["-m", "pip", "install", "--quiet", "--no-deps", "--no-index", "--target", target, wheel],
    { env: { PATH: process.env["PATH"] ?? "/usr/bin:/bin", PIP_DISABLE_PIP_VERSION_CHECK: "1" } },
  );
  return target;
}
