// Writes a one-layer OCI image layout archive (what `ctr images import` reads)
// from a root filesystem directory, without a registry or a daemon:
//   node --import tsx test/node/oci.ts ROOTFS NAME:TAG OUT.tar CONFIG.json
// The layer is an uncompressed tar made with fixed owners and mtime, so the same
// rootfs gives the same digests: every file is root's, but for those the image's
// numeric USER (config.User, e.g. "1001") owns in the rootfs, which keep it
// (group root), as a Containerfile's `chown -R 1001:0` leaves them. The index names the image through the
// `io.containerd.image.name` annotation, so the import needs no tag step.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  createReadStream,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
  mkdirSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

async function sha256File(file: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

interface Descriptor {
  mediaType: string;
  digest: string;
  size: number;
}

/** Moves `file` into blobs/sha256/ under its digest and returns its descriptor. */
async function putBlob(work: string, file: string, mediaType: string): Promise<Descriptor> {
  const hex = await sha256File(file);
  const size = statSync(file).size;
  renameSync(file, join(work, "blobs", "sha256", hex));
  return { mediaType, digest: `sha256:${hex}`, size };
}

function tar(args: string[]): void {
  execFileSync(
    "tar",
    ["--sort=name", "--mtime=@0", "--owner=0", "--group=0", "--numeric-owner", ...args],
    { stdio: ["ignore", "inherit", "inherit"] },
  );
}

/** The uid of a numeric USER ("1001", "1001:0"); undefined for none or a name. */
function numericUser(config: Record<string, unknown>): number | undefined {
  const m = /^(\d+)(?::\d+)?$/.exec(typeof config["User"] === "string" ? config["User"] : "");
  return m === null ? undefined : Number(m[1]);
}

export async function writeOciArchive(
  rootfs: string,
  name: string,
  config: Record<string, unknown>,
  out: string,
): Promise<string> {
  const work = mkdtempSync(join(tmpdir(), "llsd-oci-"));
  try {
    mkdirSync(join(work, "blobs", "sha256"), { recursive: true });
    const layerFile = join(work, "layer.tar");
    const user = numericUser(config);
    const ownerMap = join(work, "owners");
    // tar's owner map: the USER's files keep their uid; --owner=0 takes the rest.
    writeFileSync(ownerMap, user === undefined ? "" : `+${user} +${user}\n`);
    tar(["--xattrs", `--owner-map=${ownerMap}`, "-C", rootfs, "-cf", layerFile, "."]);
    const layer = await putBlob(work, layerFile, "application/vnd.oci.image.layer.v1.tar");
    const configFile = join(work, "config.json");
    writeFileSync(
      configFile,
      JSON.stringify({
        architecture: "amd64",
        os: "linux",
        config,
        rootfs: { type: "layers", diff_ids: [layer.digest] },
      }),
    );
    const configBlob = await putBlob(work, configFile, "application/vnd.oci.image.config.v1+json");
    const manifestFile = join(work, "manifest.json");
    writeFileSync(
      manifestFile,
      JSON.stringify({
        schemaVersion: 2,
        mediaType: "application/vnd.oci.image.manifest.v1+json",
        config: configBlob,
        layers: [layer],
      }),
    );
    const manifest = await putBlob(
      work,
      manifestFile,
      "application/vnd.oci.image.manifest.v1+json",
    );
    const tag = name.slice(name.lastIndexOf(":") + 1);
    writeFileSync(
      join(work, "index.json"),
      JSON.stringify({
        schemaVersion: 2,
        mediaType: "application/vnd.oci.image.index.v1+json",
        manifests: [
          {
            ...manifest,
            platform: { architecture: "amd64", os: "linux" },
            annotations: {
              "io.containerd.image.name": name,
              "org.opencontainers.image.ref.name": tag,
            },
          },
        ],
      }),
    );
    writeFileSync(join(work, "oci-layout"), JSON.stringify({ imageLayoutVersion: "1.0.0" }));
    tar(["-C", work, "-cf", `${out}.tmp`, "oci-layout", "index.json", "blobs"]);
    renameSync(`${out}.tmp`, out);
    return manifest.digest;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] === import.meta.filename) {
  const [rootfs, name, out, configFile] = process.argv.slice(2);
  if (rootfs === undefined || name === undefined || out === undefined || configFile === undefined) {
    process.stderr.write("usage: oci.ts ROOTFS NAME:TAG OUT.tar CONFIG.json\n");
    process.exit(2);
  }
  const config = JSON.parse(readFileSync(configFile, "utf8")) as Record<string, unknown>;
  const digest = await writeOciArchive(rootfs, name, config, out);
  process.stdout.write(`${digest}\n`);
}
