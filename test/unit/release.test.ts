// What a release means for the server, from its version alone.
import { expect } from "chai";
import { releaseFacts } from "../../src/release.js";

describe("releaseFacts", () => {
  // OGX 1.2.0 added ogx/telemetry's scrape server; 1.1.3 and llama-stack 0.x have none.
  const rows: [release: string, has: boolean][] = [
    ["0.6.1", false],
    ["0.7.3", false],
    ["0.8.0", false],
    ["1.1.3", false],
    ["1.2.0", true],
    ["1.4.1", true],
    ["1.5.0", true],
    ["2.0.0", true],
  ];
  for (const [release, has] of rows)
    it(`${release}: ${has ? "a" : "no"} metrics endpoint`, () =>
      expect(releaseFacts(release).metricsEndpoint).to.equal(has));

  it("OGX from 0.8 on; a custom image's unknown release knows neither", () => {
    expect(releaseFacts("0.7.3").ogx).to.equal(false);
    expect(releaseFacts("0.8.0").ogx).to.equal(true);
    expect(releaseFacts(undefined)).to.deep.equal({ ogx: undefined, metricsEndpoint: undefined });
  });
});
