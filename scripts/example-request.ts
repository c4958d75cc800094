// Writes examples/sync-request.json, the request the curl example of
// docs/operations/hook-server.md sends: the golden case
// ogx-us1-3-api-key-is-api-token (OGX 1.5.0) as Metacontroller would
// send it (hook v2). test/unit/readme.test.ts fails when it is stale.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { exampleRequestJson } from "../test/golden/example-request.js";

writeFileSync(
  join(import.meta.dirname, "..", "examples", "sync-request.json"),
  exampleRequestJson(),
);
console.log("wrote examples/sync-request.json");
