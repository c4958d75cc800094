// Reads an OCI image archive (what scripts/build-image.sh writes and `ctr images
// import` reads) without a daemon: its index, manifest and config, and its
// layers unpacked in order into one root filesystem, whiteouts applied.
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";

export interface Descriptor {
  mediaType: string;
  digest: string;
  size: number;
  annotations?: Record<string, string>;
  platform?: { architecture: string; os: string };
}

interface ImageConfig {
  User?: string;
  ExposedPorts?: Record<string, object>;
  Env?: string[];
  Entrypoint?: string[] | null;
  Cmd?: string[] | null;
  WorkingDir?: string;
  Labels?: Record<string, string>;
}

export interface OciImage {
  /** The directory the archive was unpacked into (oci-layout, index.json, blobs/). */
  layout: string;
  index: { manifests: Descriptor[] };
  manifest: { config: Descriptor; layers: Descriptor[]; annotations?: Record<string, string> };
  config: {
    architecture: string;
    os: string;
    config: ImageConfig;
    rootfs: { diff_ids: string[] };
  };
}

function blob(layout: string, digest: string): string {
  return join(layout, "blobs", ...digest.split(":"));
}

function json<T>(file: string): T {
  return JSON.parse(readFileSync(file, "utf8")) as T;
}

/** Unpacks `archive` into `dir` and reads its one image. */
export function readOciArchive(archive: string, dir: string): OciImage {
  mkdirSync(dir, { recursive: true });
  execFileSync("tar", ["-xf", archive, "-C", dir]);
  const index = json<OciImage["index"]>(join(dir, "index.json"));
  const [top] = index.manifests;
  if (top === undefined || index.manifests.length !== 1)
    throw new Error(`${archive}: ${index.manifests.length} manifests in index.json, not one`);
  const manifest = json<OciImage["manifest"]>(blob(dir, top.digest));
  const config = json<OciImage["config"]>(blob(dir, manifest.config.digest));
  return { layout: dir, index, manifest, config };
}

function tarArgs(layer: Descriptor): string[] {
  if (layer.mediaType.endsWith("+gzip")) return ["-z"];
  if (layer.mediaType.endsWith(".tar")) return [];
  throw new Error(`layer ${layer.digest}: media type ${layer.mediaType} is not read here`);
}

/** The paths one layer holds, as its tar lists them (no leading "./", directories without "/"). */
export function layerPaths(image: OciImage, layer: Descriptor): string[] {
  const out = execFileSync("tar", [...tarArgs(layer), "-tf", blob(image.layout, layer.digest)], {
    encoding: "utf8",
    maxBuffer: 256 * 2 ** 20,
  });
  return out
    .split("\n")
    .filter((p) => p !== "" && p !== "./")
    .map((p) => p.replace(/^\.\//, "").replace(/\/$/, ""));
}

/**
 * Unpacks every layer, lowest first, into `rootfs` with owners and modes kept
 * (as root), applying each layer's whiteouts (`.wh.<name>` removes a lower
 * file, `.wh..wh..opq` empties a lower directory) before its own files.
 */
export function unpackLayers(image: OciImage, rootfs: string): void {
  mkdirSync(rootfs, { recursive: true });
  for (const layer of image.manifest.layers) {
    for (const path of layerPaths(image, layer)) {
      const base = path.slice(path.lastIndexOf("/") + 1);
      if (!base.startsWith(".wh.")) continue;
      const dir = join(rootfs, dirname(path));
      if (base === ".wh..wh..opq") {
        rmSync(dir, { recursive: true, force: true });
        mkdirSync(dir, { recursive: true });
      } else rmSync(join(dir, base.slice(".wh.".length)), { recursive: true, force: true });
    }
    execFileSync("tar", [
      ...tarArgs(layer),
      "-xf",
      blob(image.layout, layer.digest),
      "-C",
      rootfs,
      "--numeric-owner",
      "--same-owner",
      "--same-permissions",
      "--wildcards",
      "--exclude=.wh.*",
      "--exclude=*/.wh.*",
    ]);
  }
}
