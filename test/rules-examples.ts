// Loads test/data/rules.yaml, expanded: one entry per (rule, example).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { SPEC_API_KEYS } from "../src/api/llama-apis.js";
import { API_VERSION, KIND } from "../src/api/schema.js";

interface Entry {
  rule: string;
  perApi?: boolean;
  name?: string;
  accept: unknown[];
  reject: unknown[];
  rejectNames?: string[];
}

export interface Example {
  rule: string;
  expect: "accept" | "reject";
  object: { apiVersion: string; kind: string; metadata: { name: string }; spec: unknown };
  label: string;
}

function substitute(value: unknown, api: string): unknown {
  if (typeof value === "string") return value.replaceAll("$API", api);
  if (Array.isArray(value)) return value.map((v) => substitute(v, api));
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k.replaceAll("$API", api), substitute(v, api)]),
    );
  }
  return value;
}

export function loadRuleExamples(): Example[] {
  const entries = parse(
    readFileSync(join(import.meta.dirname, "data", "rules.yaml"), "utf8"),
  ) as Entry[];
  const out: Example[] = [];
  for (const entry of entries) {
    const variants =
      entry.perApi === true ? SPEC_API_KEYS.map((api) => substitute(entry, api) as Entry) : [entry];
    for (const e of variants) {
      const obj = (spec: unknown, name = e.name ?? "example") => ({
        apiVersion: API_VERSION,
        kind: KIND,
        metadata: { name },
        spec,
      });
      e.accept.forEach((spec, i) =>
        out.push({
          rule: e.rule,
          expect: "accept",
          object: obj(spec),
          label: `${e.rule} accept[${i}]`,
        }),
      );
      if (e.rejectNames !== undefined) {
        e.rejectNames.forEach((name, i) =>
          out.push({
            rule: e.rule,
            expect: "reject",
            object: obj(e.reject[0], name),
            label: `${e.rule} reject name[${i}]`,
          }),
        );
      } else {
        e.reject.forEach((spec, i) =>
          out.push({
            rule: e.rule,
            expect: "reject",
            object: obj(spec),
            label: `${e.rule} reject[${i}]`,
          }),
        );
      }
    }
  }
  return out;
}
