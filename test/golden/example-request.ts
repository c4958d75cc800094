import { buildRequest, loadCases } from "../support/harness.js";

const EXAMPLE_CASE = "ogx-us1-3-api-key-is-api-token";

export function exampleRequestJson(): string {
  const c = loadCases().find((x) => x.name === EXAMPLE_CASE);
  if (c === undefined) throw new Error(`golden case ${EXAMPLE_CASE} missing`);
  return `${JSON.stringify(buildRequest(c.file, "v2"), null, 2)}\n`;
}
