// test/llama-stack/quirks.yaml: the findings validate.py reports on the upstream
// distribution configs themselves, kept by hand with a reason each (SPEC 4.1).
// A generated config may carry these over from its base; anything else is
// something the generator or the user introduced.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { z } from "zod";
import type { Finding } from "./validator.js";

const quirksFile = join(import.meta.dirname, "quirks.yaml");

const quirkSchema = z.strictObject({
  release: z.string().min(1),
  distribution: z.string().min(1),
  code: z.string().min(1),
  path: z.string(),
  reason: z.string().min(10),
});
const fileSchema = z.strictObject({ quirks: z.array(quirkSchema) });

export type Quirk = z.infer<typeof quirkSchema>;

let cached: Quirk[] | undefined;

export function loadQuirks(file: string = quirksFile): Quirk[] {
  if (file === quirksFile && cached !== undefined) return cached;
  const parsed = fileSchema.safeParse(parse(readFileSync(file, "utf8")));
  if (!parsed.success) {
    throw new Error(`${file}: ${z.prettifyError(parsed.error)}`);
  }
  const seen = new Set<string>();
  for (const q of parsed.data.quirks) {
    const key = quirkKey(q.release, q.distribution, q);
    if (seen.has(key)) throw new Error(`${file}: duplicate quirk ${key}`);
    seen.add(key);
  }
  if (file === quirksFile) cached = parsed.data.quirks;
  return parsed.data.quirks;
}

/** Release, distribution, code and path identify a quirk (messages may change). */
export function quirkKey(
  release: string,
  distribution: string,
  finding: Pick<Finding, "code" | "path">,
): string {
  return `${release} ${distribution} ${finding.code} ${finding.path}`;
}

export function isKnownQuirk(
  release: string,
  distribution: string,
  finding: Pick<Finding, "code" | "path">,
): boolean {
  return loadQuirks().some(
    (q) =>
      q.release === release &&
      q.distribution === distribution &&
      q.code === finding.code &&
      q.path === finding.path,
  );
}

export function quirksOf(release: string, distribution: string): Quirk[] {
  return loadQuirks().filter((q) => q.release === release && q.distribution === distribution);
}
