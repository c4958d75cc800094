// The CLI's commands, shared by its two ways of starting: dist/cli/main.js
// (loads the catalog it needs) and the startup snapshot (src/cli/snapshot.ts,
// catalog already parsed; bin/llsd-hook starts it for render only). Reads the
// files, prints the result, returns the exit code; never throws.
import { writeSync } from "node:fs";
import { parseAllowedPodFields } from "../api/pod-security.js";
import { readBounded } from "../edge/read-bounded.js";
import { YAML_BOUNDS } from "../config/bounded-yaml.js";
import type { Catalog } from "../config/catalog.js";
import { generateConfig } from "../config/generate.js";
import { parseArgs } from "node:util";
import { render, RenderError } from "./render.js";
import { hookRequest } from "./request.js";

const USAGE = `usage: llsd-hook render <cr.yaml|->
       llsd-hook request <cr.yaml|-> [--observed <answer.json>] [--namespace <ns>]
                         [--customize] [--controller <compositecontroller.yaml>]
       llsd-hook --version

render prints the children the hook would create for a LlamaStackDistribution as
multi-document YAML on stdout, and the status it would report on stderr.
Secrets and ConfigMaps in the file are used as they are (their values are never
printed); others the resource refers to are assumed to exist. Each warning is a
"warning: <reason>: <field>: <what; fix>" line on stderr, each problem an
"error: <field>: <what; fix>" line. Exit code 1 when the status phase is Failed
(warnings alone give 0), 2 when the file cannot be used.

request prints the JSON request Metacontroller would send to the hook's /sync
for the resource (with --customize, to /customize), to POST to a running hook:
  bin/llsd-hook request examples/minimal.yaml |
    curl -s localhost:8080/sync -H 'content-type: application/json' -d @-
The related Secrets and ConfigMaps are the file's that the spec names (a
Secret's values as the file has them), the others assumed to exist with empty
values; notes on stderr say which. --observed sends the children of a body /sync
answered as Metacontroller applied them, and its status as the parent's, for
the next sync. --namespace is kubectl's; --controller reads another
CompositeController than metacontroller/compositecontroller.yaml. Exit code 2
when a file cannot be used.`;

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

/** A file's text, read no further than `max` bytes (src/edge/read-bounded.ts): a regular file, or stdin (`-`). */
function readInput(file: string, max: number = YAML_BOUNDS.maxBytes): string {
  let read;
  try {
    read = readBounded(file, max);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
    throw new RenderError(`${file}: no such file; check the path`, { cause: err });
  }
  if (read.ok) return read.text;
  throw new RenderError(
    read.why === "too large"
      ? `${file}: the file is more than the ${max} bytes llsd-hook reads; shorten it`
      : `${file}: not a regular file; give a YAML file, or - for stdin`,
  );
}

/**
 * The most of an --observed answer read: the hook's own request body limit
 * (BODY_LIMIT_MIB's default), which the request built from it must fit anyway.
 */
const ANSWER_MAX_BYTES = 4 * 2 ** 20;

/** What the CLI reads besides the file: the catalog, the package's version, the environment. */
export interface CliSources {
  catalogOf: () => Catalog;
  versionOf: () => string;
  /** metacontroller/compositecontroller.yaml of the package: request's default --controller. */
  controllerFile: () => string;
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

/** `request <file> [options]`: the request JSON on stdout, notes on stderr. */
function runRequest(args: readonly string[], controllerFile: () => string): number {
  const { values, positionals } = parseArgs({
    args: [...args],
    allowPositionals: true,
    options: {
      observed: { type: "string" },
      namespace: { type: "string", short: "n" },
      customize: { type: "boolean" },
      controller: { type: "string" },
    },
  });
  const [file, ...extra] = positionals;
  if (file === undefined || extra.length > 0) {
    write(2, `${USAGE}\n`);
    return 2;
  }
  if (file === "-" && values.observed === "-")
    throw new RenderError(
      "request: the resource and --observed cannot both be stdin (-); give one as a file",
    );
  const controller = values.controller ?? controllerFile();
  const out = hookRequest(
    { text: readInput(file), source: file },
    { text: readInput(controller), source: controller },
    {
      namespace: values.namespace,
      customize: values.customize,
      observed:
        values.observed === undefined
          ? undefined
          : { text: readInput(values.observed, ANSWER_MAX_BYTES), source: values.observed },
    },
  );
  for (const note of out.notes) write(2, `${note}\n`);
  write(1, out.json);
  return 0;
}

function run(
  argv: readonly string[],
  { catalogOf, versionOf, controllerFile, env }: CliSources,
): number {
  const [command, file] = argv;
  if (
    HELP.has(command ?? "") ||
    ((command === "render" || command === "request") && HELP.has(file ?? ""))
  ) {
    write(1, `${USAGE}\n`);
    return 0;
  }
  if (command === "--version" || command === "version") {
    write(1, `${versionOf()}\n`);
    return 0;
  }
  if (command === "request") return runRequest(argv.slice(1), controllerFile);
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
