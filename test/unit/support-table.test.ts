// The README's supported-versions table names exactly what the suite runs:
// each row is read and held against the file that pins it (the two Kubernetes
// builds and the test files that loop over both, the Metacontroller stand-in, configs/releases.json and the node
// tests' releases, package.json's engines and scripts/use-node.sh). A row the
// test does not know fails, so a new one (the Helm chart's) comes with its check.
import { expect } from "chai";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { docSection } from "../support/tools.js";
import { METACONTROLLER_VERSION } from "../k8s/metacontroller.js";
import { enginesRange } from "../node-version.js";

const root = join(import.meta.dirname, "..", "..");
const read = (file: string) => readFileSync(join(root, file), "utf8");

interface Row {
  supported: string;
  suite: string;
}

/** The table under the README's "## Requirements": component → its two columns. */
function supportTable(): Map<string, Row> {
  const rows = docSection("README.md", "## Requirements")
    .split("\n")
    .filter((l) => l.startsWith("|"))
    .map((l) =>
      l
        .slice(1, -1)
        .split("|")
        .map((c) => c.trim()),
    );
  expect(rows[0], "the header").to.deep.equal(["", "supported", "what `npm test` runs"]);
  return new Map(
    rows
      .slice(2)
      .map(([component = "", supported = "", suite = ""]) => [component, { supported, suite }]),
  );
}

const minor = (version: string) => /^v?(\d+\.\d+)\./.exec(version)?.[1] ?? version;
/** The words of a cell that look like versions, in order. */
const versionsIn = (text: string) => [...text.matchAll(/\bv?\d+\.\d+\.\d+\b/g)].map((m) => m[0]);

describe("the README's supported-versions table", () => {
  const table = supportTable();

  it("has a row per component, each checked below", () => {
    expect([...table.keys()]).to.deep.equal([
      "Kubernetes",
      "Metacontroller",
      "Llama Stack / OGX",
      "Node.js",
      "Helm (the chart)",
    ]);
  });

  it("Kubernetes: the range is the two builds' minors, and the suite runs exactly those two releases", () => {
    const newest = read("test/k8s/KUBERNETES_VERSION").trim();
    const oldest = read("test/k8s/oldest/KUBERNETES_VERSION").trim();
    const row = table.get("Kubernetes");
    expect(row?.supported).to.equal(`${minor(oldest)} to ${minor(newest)}`);
    expect(versionsIn(row?.suite ?? "")).to.deep.equal([oldest, newest]);
  });

  it("Kubernetes: the tests it says run on both ends are exactly the files that loop over ENDS", () => {
    const named = [...(table.get("Kubernetes")?.suite ?? "").matchAll(/`([a-z-]+)`/g)].map(
      (m) => m[1],
    );
    const onBoth = readdirSync(join(root, "test", "k8s"))
      .filter((f) => f.endsWith(".test.ts"))
      .filter((f) => /^\s*for \(const end of ENDS\)/m.test(read(`test/k8s/${f}`)))
      .map((f) => f.slice(0, -".test.ts".length));
    expect(onBoth).to.include("crd");
    expect([...named].sort()).to.deep.equal(onBoth.sort());
  });

  it("Metacontroller: the suite runs a stand-in of the release its behaviour was read from", () => {
    const row = table.get("Metacontroller");
    expect(versionsIn(row?.suite ?? "")).to.deep.equal([METACONTROLLER_VERSION]);
    expect(row?.suite).to.match(/stand-in/);
  });

  it("Llama Stack / OGX: every supported release, and the server pods of the releases the node tests run", () => {
    const { releases } = JSON.parse(read("configs/releases.json")) as { releases: string[] };
    const row = table.get("Llama Stack / OGX");
    expect(row?.supported.split(/,\s*/)).to.deep.equal(releases);
    const nodeReleases = /^NODE_RELEASES="([^"]*)"$/m.exec(read("test/prepare-peers.sh"))?.[1];
    expect(versionsIn(row?.suite ?? "")).to.deep.equal(nodeReleases?.split(" "));
  });

  it("Node.js: engines' floor, and the release scripts/use-node.sh installs", () => {
    const row = table.get("Node.js");
    const floor = /^>=(\d+)$/.exec(enginesRange())?.[1];
    expect(row?.supported).to.equal(`${floor} or newer`);
    const ci = /^NODE_VERSION=(\S+)$/m.exec(read("scripts/use-node.sh"))?.[1];
    expect(row?.suite).to.equal(ci);
  });

  it("Helm: the major the chart is tested with, and the release test/helm/go.mod pins", () => {
    const row = table.get("Helm (the chart)");
    const pinned = /^\s*helm\.sh\/helm\/v(\d+) (v\S+)/m.exec(read("test/helm/go.mod"));
    expect(row?.supported.split(" ")[0]).to.equal(pinned?.[1]);
    expect(versionsIn(row?.suite ?? "")).to.deep.equal([pinned?.[2]]);
  });
});
