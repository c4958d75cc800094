// Reads files out of a one-image OCI archive (what scripts/build-image.sh
// writes) without a daemon or unpacking the whole image: the config, and the
// files a predicate names, layer by layer as a container runtime would stack
// them. npm run release reads the OS SBOM's inputs with it (os-packages.ts).
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

interface Descriptor {
  mediaType: string;
  digest: string;
}

/** What a one-image OCI archive holds: its config and the files `wanted` names, read from its layers in order. */
export interface ImageFiles {
  config: { config?: { Env?: string[]; Labels?: Record<string, string> } };
  /** path (no leading slash) → contents, after every layer and whiteout. */
  files: Map<string, string>;
}

/**
 * Reads the image config and the files whose paths match `wanted` (no leading
 * slash) from a one-image OCI archive, layer by layer: a later layer's file
 * replaces an earlier one's, a whiteout (`.wh.<name>`) removes it. Symbolic
 * links are followed within the image (etc/os-release is one on Debian).
 */
export function imageFiles(archive: string, wanted: (path: string) => boolean): ImageFiles {
  const work = mkdtempSync(join(tmpdir(), "llsd-image-files-"));
  try {
    const read = (path: string) =>
      execFileSync("tar", ["-xOf", archive, path], { encoding: "utf8", maxBuffer: 256 << 20 });
    const blob = (d: string) => `blobs/${d.replace(":", "/")}`;
    const index = JSON.parse(read("index.json")) as { manifests: Descriptor[] };
    const [top] = index.manifests;
    if (top === undefined || index.manifests.length !== 1)
      throw new Error(`${archive}: ${index.manifests.length} images in its index, not one`);
    const manifest = JSON.parse(read(blob(top.digest))) as {
      config: Descriptor;
      layers: Descriptor[];
    };
    const config = JSON.parse(read(blob(manifest.config.digest))) as ImageFiles["config"];
    execFileSync("tar", ["-xf", archive, "-C", work, ...manifest.layers.map((l) => blob(l.digest))]);
    const files = new Map<string, string>();
    const links = new Map<string, string>();
    for (const [i, layer] of manifest.layers.entries()) {
      const z = layer.mediaType.endsWith("+gzip") ? ["-z"] : [];
      const file = join(work, blob(layer.digest));
      const listing = execFileSync("tar", [...z, "-tvf", file], {
        encoding: "utf8",
        maxBuffer: 256 << 20,
      });
      const take: string[] = [];
      for (const line of listing.split("\n")) {
        const m = /^(\S)\S*\s+\S+\s+\S+\s+\S+\s+\S+\s+(.*?)(?: -> (.*))?$/.exec(line);
        const [, type, member, target] = m ?? [];
        if (member === undefined) continue;
        const path = member.replace(/^\.\//, "");
        const base = path.slice(path.lastIndexOf("/") + 1);
        if (base.startsWith(".wh.")) {
          const gone = `${dirname(path) === "." ? "" : `${dirname(path)}/`}${base.slice(4)}`;
          for (const k of [...files.keys(), ...links.keys()])
            if (k === gone || k.startsWith(`${gone}/`)) {
              files.delete(k);
              links.delete(k);
            }
          continue;
        }
        if (type === "l" && target !== undefined) links.set(path, target);
        else if (type === "-" && wanted(path)) take.push(member);
      }
      if (take.length === 0) continue;
      const dir = join(work, `layer-${i}`);
      mkdirSync(dir);
      execFileSync("tar", [...z, "-xf", file, "-C", dir, "--no-same-owner", ...take]);
      for (const t of take) {
        const path = t.replace(/^\.\//, "");
        files.set(path, readFileSync(join(dir, t), "utf8"));
        links.delete(path);
      }
    }
    // Wanted paths that are links in the image, to a file that was read.
    for (const [path, target] of links) {
      if (!wanted(path)) continue;
      const resolved = target.startsWith("/")
        ? target.slice(1)
        : join(dirname(path), target).replace(/^\.\//, "");
      const text = files.get(resolved);
      if (text !== undefined) files.set(path, text);
    }
    return { config, files };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
