// The version of llsd-hook: package.json's, read where the process runs from
// (the repository, or an installed package: npm always ships package.json).
import { readFileSync } from "node:fs";

/** The `version` of the package.json at `path`. */
export function packageVersion(path: string): string {
  const version = (JSON.parse(readFileSync(path, "utf8")) as { version?: unknown }).version;
  if (typeof version !== "string") throw new Error(`${path} has no version`);
  return version;
}
