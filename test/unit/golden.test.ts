// Golden tests: every case in test/golden/cases gives exactly the committed
// request, response and config, in both hook formats (v1 and v2 object keys).
// UPDATE_GOLDEN=1 npm run test:unit rewrites the files; review the diff.
import { expect } from "chai";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  buildRequest,
  configOf,
  loadCases,
  outcomeYaml,
  runCase,
  toYaml,
} from "../support/harness.js";

const update = process.env["UPDATE_GOLDEN"] === "1";

function compare(file: string, actual: string | undefined): void {
  if (update) {
    if (actual === undefined) rmSync(file, { force: true });
    else writeFileSync(file, actual);
    return;
  }
  if (actual === undefined) {
    expect(existsSync(file), `${file} should not exist`).to.equal(false);
    return;
  }
  expect(existsSync(file), `${file} is missing; run UPDATE_GOLDEN=1 npm run test:unit`).to.equal(
    true,
  );
  expect(actual).to.equal(readFileSync(file, "utf8"));
}

describe("golden sync cases", () => {
  for (const c of loadCases()) {
    it(`${c.name}: ${c.file.description}`, () => {
      const v2 = runCase(c.file, "v2");
      const v1 = runCase(c.file, "v1");
      expect(outcomeYaml(v1), "hook v1 and v2 must answer the same").to.equal(outcomeYaml(v2));
      compare(join(c.dir, "request.yaml"), toYaml(buildRequest(c.file, "v2")));
      compare(join(c.dir, "response.yaml"), outcomeYaml(v2));
      compare(join(c.dir, "config.yaml"), v2.kind === "ok" ? configOf(v2.response) : undefined);
    });
  }
});
