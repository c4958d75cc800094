// The CLI's entry (bin/llsd-hook starts dist/cli/start.js, or this file through
// tsx before a build): checks the running Node.js against package.json's
// engines before ./main.js and everything it imports are loaded, so an older
// Node.js gets one line and exit code 2 rather than a SyntaxError. No static
// imports: src/edge/node-engines.ts.
const { startOnSupportedNode } = await import("../edge/node-engines.js");
// dist/cli/start.js or src/cli/start.ts: package.json is two folders up.
await startOnSupportedNode(
  new URL("../../package.json", import.meta.url),
  2,
  () => import("./main.js"),
);
