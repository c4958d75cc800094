// npm run example-request: writes examples/sync-request.json, what
// `llsd-hook request examples/minimal.yaml` prints (the request Metacontroller
// would send to /sync), for a curl without a build
// (docs/operations/hook-server.md). test/unit/readme.test.ts fails when it is
// stale. It takes no file: for another, run bin/llsd-hook request <file>.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { hookRequest } from "../src/cli/request.js";

const root = join(import.meta.dirname, "..");
if (process.argv.length > 2) {
  console.error(
    `npm run example-request takes no file (it writes examples/sync-request.json from examples/minimal.yaml); for ${process.argv.slice(2).join(" ")}: bin/llsd-hook request <file>`,
  );
  process.exit(2);
}
const read = (file: string) => ({ text: readFileSync(join(root, file), "utf8"), source: file });
const { json } = hookRequest(
  read("examples/minimal.yaml"),
  read("metacontroller/compositecontroller.yaml"),
);
writeFileSync(join(root, "examples", "sync-request.json"), json);
console.log("wrote examples/sync-request.json");
