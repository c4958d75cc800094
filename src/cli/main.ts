#!/usr/bin/env node
// npx llsd-hook render <cr.yaml>
import { readFileSync } from "node:fs";
import { generateConfig } from "../config/generate.js";
import { imageOverridesFromEnv, loadCatalog } from "../edge/load-catalog.js";
import { render } from "./render.js";

const USAGE = `usage: llsd-hook render <cr.yaml|->

Prints the children the hook would create for a LlamaStackDistribution as
multi-document YAML on stdout, and the status it would report on stderr.
Referenced Secrets and ConfigMaps are assumed to exist. Exit code 1 when the
status phase is Failed.`;

function main(argv: string[]): number {
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
  // Only the release and distribution the resource names are read.
  const catalog = loadCatalog({ imageOverrides: imageOverridesFromEnv(process.env), lazy: true });
  const out = render(text, file, { catalog, generate: generateConfig }, new Date());
  for (const note of out.notes) process.stderr.write(`${note}\n`);
  process.stdout.write(out.children);
  process.stderr.write(out.status);
  for (const problem of out.problems) process.stderr.write(`error: ${problem}\n`);
  return out.failed ? 1 : 0;
}

try {
  process.exitCode = main(process.argv.slice(2));
} catch (err) {
  // A RenderError's message is the user's answer; anything else is ours, said briefly.
  process.stderr.write(`llsd-hook: ${(err as Error).message}\n`);
  process.exitCode = 2;
}
