// Apply-time validation rules. Each rule is written once and used twice: as a
// CEL rule (x-kubernetes-validations) in the generated CRD, and as a zod
// refinement in the hook, with the same message. The accepted and rejected
// examples of every rule live in test/data/rules.yaml; the suite runs them
// through both the hook and a real kube-apiserver.
import type { z } from "zod";

export interface Rule<T> {
  /** Stable identifier, used by the examples. */
  id: string;
  /** The CEL expression; `self` is the object the rule sits on. */
  cel: string;
  /** What failed and the fix. Identical in the CRD and in the hook. */
  message: string;
  /** Where the API server reports it, relative to `self` (CEL fieldPath), e.g. ".name". */
  fieldPath?: string;
  /** The same check in TypeScript: true when the value is valid. */
  check: (self: T) => boolean;
}

interface CelValidation {
  rule: string;
  message: string;
  fieldPath?: string;
}

const CEL_META_KEY = "x-kubernetes-validations";

function pathOf(fieldPath: string | undefined): (string | number)[] {
  if (fieldPath === undefined) return [];
  return fieldPath
    .split(".")
    .filter((s) => s !== "")
    .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
}

function celOf(rules: readonly Rule<never>[]): CelValidation[] {
  return rules.map((r) => ({
    rule: r.cel,
    message: r.message,
    ...(r.fieldPath === undefined ? {} : { fieldPath: r.fieldPath }),
  }));
}

/**
 * Attaches rules to an object schema: the zod refinements now, the CEL rules
 * as metadata for the CRD generator.
 */
export function withRules<S extends z.ZodType>(schema: S, rules: readonly Rule<z.output<S>>[]): S {
  const refined = schema.superRefine((value, ctx) => {
    for (const rule of rules) {
      if (!rule.check(value)) {
        ctx.addIssue({ code: "custom", message: rule.message, path: pathOf(rule.fieldPath) });
      }
    }
  });
  return refined.meta({ [CEL_META_KEY]: celOf(rules) });
}

/** Every rule, by id, for the examples test. */
export const ALL_RULES = new Map<string, Rule<never>>();

export function rule<T>(r: Rule<T>): Rule<T> {
  if (ALL_RULES.has(r.id)) throw new Error(`duplicate rule id ${r.id}`);
  ALL_RULES.set(r.id, r);
  return r;
}
