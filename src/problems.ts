// A problem found while turning a spec into a config and children: where (a
// field path in the LlamaStackDistribution), what and the fix (the message),
// and a CamelCase reason for status conditions (src/reasons.ts, docs/operations/status.md).
import type { z } from "zod";
import { formatPath } from "./lib/json.js";
import { Reason, type WarningReason } from "./reasons.js";
import { explainIssues } from "./shape-messages.js";

export interface Problem {
  reason: Reason;
  /** Field path in the LlamaStackDistribution, e.g. spec.providers.inference[0].endpoint. */
  path: string;
  /** What is wrong and the fix, without the path. */
  detail: string;
}

export function problem(reason: Reason, path: string, detail: string): Problem {
  return { reason, path, detail };
}

/** A problem that blocks nothing: the status reports it as a condition of its own (src/reasons.ts). */
export interface Warning extends Problem {
  reason: WarningReason;
}

export function warning(reason: WarningReason, path: string, detail: string): Warning {
  return { reason, path, detail };
}

/** `spec.x.y: what is wrong; the fix` */
export function formatProblem(p: Problem): string {
  return `${p.path}: ${p.detail}`;
}

/** A value or its problems; `warnings` are the status's (W = Problem where nothing reports them there). */
export type Result<T, W extends Problem = Warning> =
  { ok: true; value: T; warnings: W[] } | { ok: false; problems: Problem[]; warnings: W[] };

/**
 * zod's issues as problems: the path in the object parsed (`input`, which
 * names the values in the messages), the shape expected (read from `schema`,
 * the one that parsed it) and the fix.
 */
export function problemsFromZod(error: z.ZodError, input?: unknown, schema?: z.ZodType): Problem[] {
  return explainIssues(error.issues, input, schema).map((issue) => {
    const path = formatPath(issue.path) || "spec";
    let detail = issue.detail;
    if (detail.startsWith(`${path}: `)) detail = detail.slice(path.length + 2);
    return problem(Reason.InvalidSpec, path, detail);
  });
}
