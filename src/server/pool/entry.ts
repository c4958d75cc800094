// Where a worker's code is: the compiled file beside the pool (dist/), or,
// under tsx (tests, the bench), the TypeScript source with tsx registered in
// the worker first: Node.js applies module hooks per thread.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";

/** What `new Worker` takes: a file, or code to evaluate. */
export interface WorkerEntry {
  entry: URL | string;
  eval: boolean;
}

export function workerEntry(): WorkerEntry {
  if (!import.meta.url.endsWith(".ts"))
    return { entry: new URL("../worker.js", import.meta.url), eval: false };
  // tsx's ESM entry, as its package.json's exports name it (require.resolve would give the CommonJS one).
  const manifest = createRequire(import.meta.url).resolve("tsx/package.json");
  const { exports } = JSON.parse(readFileSync(manifest, "utf8")) as {
    exports: Record<string, { import: { default: string } }>;
  };
  const api = exports["./esm/api"]?.import.default;
  const tsx = new URL(api ?? "./dist/esm/api/index.mjs", pathToFileURL(manifest)).href;
  const source = new URL("../worker.ts", import.meta.url);
  return {
    entry: `import(${JSON.stringify(tsx)}).then((api) => { api.register(); return import(${JSON.stringify(source.href)}); })`,
    eval: true,
  };
}
