// The CLI's one command, shared by its two ways of starting: dist/cli/main.js
// (loads the catalog it needs) and the startup snapshot (src/cli/snapshot.ts,
// catalog already parsed). Reads the file, prints the result, returns the exit
// code; never throws.
import { readFileSync } from "node:fs";
import type { Catalog } from "../config/catalog.js";
import { generateConfig } from "../config/generate.js";
import { render } from "./render.js";

const USAGE = `usage: llsd-hook render <cr.yaml|->

Prints the children the hook would create for a LlamaStackDistribution as
multi-document YAML on stdout, and the status it would report on stderr.
Referenced Secrets and ConfigMaps are assumed to exist. Exit code 1 when the
status phase is Failed.`;

function run(argv: readonly string[], catalogOf: () => Catalog): number {
  const [command, file] = argv;
  if (command === "--help" || command === "-h") {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (command !== "render" || file === undefined) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  const text = readFileSync(file === "-" ? 0 : file, "utf8");
  const out = render(text, file, { catalog: catalogOf(), generate: generateConfig }, new Date());
  for (const note of out.notes) process.stderr.write(`${note}\n`);
  process.stdout.write(out.children);
  process.stderr.write(out.status);
  for (const problem of out.problems) process.stderr.write(`error: ${problem}\n`);
  return out.failed ? 1 : 0;
}

/** `llsd-hook <argv>` with the catalog `catalogOf` gives; the exit code. */
export function runCli(argv: readonly string[], catalogOf: () => Catalog): number {
  try {
    return run(argv, catalogOf);
  } catch (err) {
    // A RenderError's message is the user's answer; anything else is ours, said briefly.
    process.stderr.write(`llsd-hook: ${(err as Error).message}\n`);
    return 2;
  }
}
