// The hook server's entry (npm start, the image's ENTRYPOINT): checks the
// running Node.js against package.json's engines before ./main.js and
// everything it imports are loaded, so an older Node.js gets one line and exit
// code 1 rather than a SyntaxError. No static imports: src/edge/node-engines.ts.
const { startOnSupportedNode } = await import("../edge/node-engines.js");
// dist/server/start.js or src/server/start.ts: package.json is two folders up.
await startOnSupportedNode(
  new URL("../../package.json", import.meta.url),
  1,
  () => import("./main.js"),
);
