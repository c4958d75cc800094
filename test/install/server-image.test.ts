// The stand-in server images the node tests run (test/node/image.sh, one per
// release in peers.json) against the upstream image contract of
// test/node/README.md as far as files and config go: the USER and HOME of the
// release's Containerfile (1.4.1 and 1.5.0: USER 1001, HOME=/, from the ogx
// source distributions), /app, /.ogx and /.cache owned by that user with group
// root and group-writable, every other file root's. Read straight from the
// archive (index, manifest, config, the layer's listing), nothing unpacked.
import { expect } from "chai";
import { execFileSync } from "node:child_process";
import { loadPeers } from "../peers.js";

interface Config {
  config: { User?: string; Env?: string[]; WorkingDir?: string };
}

function member(archive: string, path: string): string {
  return execFileSync("tar", ["-xOf", archive, path], { encoding: "utf8", maxBuffer: 64 << 20 });
}

const blobPath = (digest: string) => `blobs/${digest.replace(":", "/")}`;

/** owner/group, mode and path of every entry of the image's one layer. */
function layerListing(
  archive: string,
  digest: string,
): { owner: string; mode: string; path: string }[] {
  const listing = execFileSync(
    "bash",
    ["-c", 'tar -xOf "$1" "$2" | tar --numeric-owner -tvf -', "listing", archive, blobPath(digest)],
    { encoding: "utf8", maxBuffer: 512 << 20 },
  );
  return listing
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => {
      const [mode = "", owner = "", , , , ...rest] = l.split(/\s+/);
      const path = rest
        .join(" ")
        .replace(/ -> .*$/, "")
        .replace(/^\.\//, "")
        .replace(/\/$/, "");
      return { owner, mode, path };
    });
}

const OWNED = ["app", ".ogx", ".cache"];

/** The releases whose server image the node tests run (NODE_RELEASES in test/prepare-peers.sh). */
const RELEASES = ["1.5.0", "1.4.1"];

describe("the stand-in server images (test/node/image.sh): the Containerfile's USER", function () {
  this.timeout(300_000);

  it("peers.json has one per release the node tests run", () => {
    expect(Object.keys(loadPeers().node?.images ?? {}).sort()).to.deep.equal([...RELEASES].sort());
  });

  for (const release of RELEASES)
    it(`${release}: USER 1001 and HOME=/; /app, /.ogx and /.cache are 1001:0 and group-writable, the rest root's`, () => {
      const archive = loadPeers().node?.images[release];
      if (archive === undefined)
        throw new Error(`no ${release} server image in peers.json: run "npm run peers"`);
      const index = JSON.parse(member(archive, "index.json")) as {
        manifests: { digest: string }[];
      };
      const manifest = JSON.parse(member(archive, blobPath(index.manifests[0]?.digest ?? ""))) as {
        config: { digest: string };
        layers: { digest: string }[];
      };
      const config = JSON.parse(member(archive, blobPath(manifest.config.digest))) as Config;
      expect(config.config.User).to.equal("1001");
      expect(config.config.Env).to.include("HOME=/");
      expect(config.config.WorkingDir).to.equal("/app");
      expect(manifest.layers).to.have.length(1);
      const entries = layerListing(archive, manifest.layers[0]?.digest ?? "");
      const owned = (p: string) => OWNED.some((d) => p === d || p.startsWith(`${d}/`));
      const wrong = entries.filter((e) => e.owner !== (owned(e.path) ? "1001/0" : "0/0"));
      expect(wrong.slice(0, 10), `${wrong.length} entries with another owner`).to.deep.equal([]);
      for (const dir of OWNED) {
        const e = entries.find((x) => x.path === dir);
        expect(e?.mode, dir).to.match(/^drwxrwx/);
      }
      expect(entries.filter((e) => owned(e.path)).length).to.be.greaterThan(3);
    });
});
