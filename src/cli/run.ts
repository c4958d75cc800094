// The CLI's one command, shared by its two ways of starting: dist/cli/main.js
// (loads the catalog it needs) and the startup snapshot (src/cli/snapshot.ts,
// catalog already parsed). Reads the file, prints the result, returns the exit
// code; never throws.
import { writeSync } from "node:fs";
import { parseAllowedPodFields } from "../api/pod-security.js";
import { readBounded } from "../edge/read-bounded.js";
import { YAML_BOUNDS } from "../config/bounded-yaml.js";
import type { Catalog } from "../config/catalog.js";
import { generateConfig } from "../config/generate.js";
import { render, RenderError } from "./render.js";

const USAGE = `usage: llsd-hook render <cr.yaml|->
       llsd-hook --version

Prints the children the hook would create for a LlamaStackDistribution as
multi-document YAML on stdout, and the status it would report on stderr.
Secrets and ConfigMaps in the file are used as they are (their values are never
printed); others the resource refers to are assumed to exist. Each warning is a
"warning: <reason>: <field>: <what; fix>" line on stderr, each problem an
"error: <field>: <what; fix>" line. Exit code 1 when the status phase is Failed
(warnings alone give 0), 2 when the file cannot be used.`;

const HELP = new Set(["--help", "-h", "help"]);

/** Descriptors handed to their stream: later text goes there too, after what it holds. */
const streamed = new Set<1 | 2>();

/**
 * Writes `text` to stdout (1) or stderr (2) at once, as process.stdout and
 * process.stderr do on Linux, without building the stream (a pipe's costs a
 * few ms of a render's start). A descriptor that would block (EAGAIN) hands
 * the rest, and all later text, to the stream, which waits for it.
 */
function write(fd: 1 | 2, text: string): void {
  const stream = () => (fd === 1 ? process.stdout : process.stderr);
  if (streamed.has(fd)) {
    stream().write(text);
    return;
  }
  const bytes = Buffer.from(text);
  let done = 0;
  try {
    while (done < bytes.length) done += writeSync(fd, bytes, done);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EAGAIN") throw err;
    streamed.add(fd);
    stream().write(bytes.subarray(done));
  }
}

/** The file's text, read no further than the YAML bound (src/edge/read-bounded.ts): a regular file, or stdin (`-`). */
function readInput(file: string): string {
  const max = YAML_BOUNDS.maxBytes;
  const read = readBounded(file, max);
  if (read.ok) return read.text;
  throw new RenderError(
    read.why === "too large"
      ? `${file}: the file is more than the ${max} bytes llsd-hook reads; shorten it`
      : `${file}: not a regular file; give a YAML file, or - for stdin`,
  );
}

/** What the CLI reads besides the file: the catalog, the package's version, the environment. */
export interface CliSources {
  catalogOf: () => Catalog;
  versionOf: () => string;
  /** Read for ALLOWED_POD_FIELDS, so that render answers as a hook run with it (default process.env). */
  env?: Readonly<Record<string, string | undefined>>;
}

/** ALLOWED_POD_FIELDS as the hook reads it (src/api/pod-security.ts). */
function allowedPodFieldsOf(
  env: Readonly<Record<string, string | undefined>>,
): ReadonlySet<string> {
  const parsed = parseAllowedPodFields(env["ALLOWED_POD_FIELDS"]);
  if (!parsed.ok) throw new RenderError(parsed.error);
  return parsed.value;
}

function run(argv: readonly string[], { catalogOf, versionOf, env }: CliSources): number {
  const [command, file] = argv;
  if (HELP.has(command ?? "") || (command === "render" && HELP.has(file ?? ""))) {
    write(1, `${USAGE}\n`);
    return 0;
  }
  if (command === "--version" || command === "version") {
    write(1, `${versionOf()}\n`);
    return 0;
  }
  if (command !== "render" || file === undefined) {
    write(2, `${USAGE}\n`);
    return 2;
  }
  const text = readInput(file);
  const allowedPodFields = allowedPodFieldsOf(env ?? process.env);
  const ctx = { catalog: catalogOf(), generate: generateConfig, allowedPodFields };
  const out = render(text, file, ctx, new Date());
  for (const note of out.notes) write(2, `${note}\n`);
  write(1, out.children);
  write(2, out.status);
  for (const warning of out.warnings) write(2, `warning: ${warning}\n`);
  for (const problem of out.problems) write(2, `error: ${problem}\n`);
  return out.failed ? 1 : 0;
}

/** `llsd-hook <argv>` with the catalog and version `sources` give; the exit code. */
export function runCli(argv: readonly string[], sources: CliSources): number {
  try {
    return run(argv, sources);
  } catch (err) {
    // A RenderError's message is the user's answer; anything else is ours, said briefly.
    process.stderr.write(`llsd-hook: ${(err as Error).message}\n`);
    return 2;
  }
}
