// spec.server.distribution (v1alpha1) ↔ spec.distribution (v1alpha2). A
// converted object always names its release: v1alpha1 had none (a name ran the
// operator's `:latest` image), so the release is what the object says runs —
// the tag of an upstream image, else the version the running server reported
// (status.version.llamaStackServerVersion) — or 0.7.3, the last llama-stack
// release, never the newest line. Only the object is at hand when converting,
// so nothing is looked up: a release llsd-hook does not support is reported by
// the hook's status (UnsupportedRelease), and the running server is kept.
import { isObject, type JsonObject } from "../lib/json.js";
import { getAt, setAt } from "./json-path.js";
import { FALLBACK_RELEASE } from "../release.js";
import { read, readString, type Reader } from "./reader.js";

/**
 * The images upstream published per distribution: the retired operator's
 * `name` meant `docker.io/llamastack/distribution-<name>:latest`.
 */
const UPSTREAM_IMAGE =
  /^(?:(?:docker\.io|index\.docker\.io)\/)?(?:llamastack|ogxai)\/distribution-([a-z0-9](?:[-a-z0-9]*[a-z0-9])?):(latest|\d+\.\d+\.\d+)$/;

/** The distribution and release an upstream image is; undefined for any other image. */
function upstreamImage(image: string): { name: string; release?: string } | undefined {
  const match = UPSTREAM_IMAGE.exec(image);
  const name = match?.[1];
  const tag = match?.[2];
  if (name === undefined || tag === undefined || name.length > 63) return undefined;
  return tag === "latest" || tag.length > 32 ? { name } : { name, release: tag };
}

/** X.Y.Z of a reported version such as 0.2.22, v0.6.1 or 0.3.0rc2. */
function releaseOfVersion(version: unknown): string | undefined {
  if (typeof version !== "string") return undefined;
  const release = /^v?(\d+\.\d+\.\d+)/.exec(version)?.[1];
  return release !== undefined && release.length <= 32 ? release : undefined;
}

function releaseFor(tagRelease: string | undefined, root: JsonObject): string {
  return (
    tagRelease ??
    releaseOfVersion(getAt(root, ["status", "version", "llamaStackServerVersion"])) ??
    FALLBACK_RELEASE
  );
}

export function distributionUp(r: Reader, out: JsonObject): void {
  if (read(r, "spec.server.distribution", "object") === undefined) return;
  const name = readString(r, "spec.server.distribution.name");
  const image = readString(r, "spec.server.distribution.image");
  const distribution: JsonObject = {};
  let tagRelease: string | undefined;
  if (name !== undefined && name !== "") distribution["name"] = name;
  if (image !== undefined && image !== "") {
    const upstream = upstreamImage(image);
    if (upstream !== undefined && distribution["name"] === undefined) {
      distribution["name"] = upstream.name;
      tagRelease = upstream.release;
    } else {
      distribution["image"] = image;
    }
  }
  if (distribution["name"] !== undefined) distribution["release"] = releaseFor(tagRelease, r.root);
  setAt(out, ["spec", "distribution"], distribution);
}

export function distributionDown(r: Reader, out: JsonObject): void {
  if (!isObject(read(r, "spec.distribution", "object"))) return;
  const name = readString(r, "spec.distribution.name");
  const image = readString(r, "spec.distribution.image");
  readString(r, "spec.distribution.release");
  const distribution: JsonObject = {};
  if (name !== undefined) distribution["name"] = name;
  if (image !== undefined) distribution["image"] = image;
  setAt(out, ["spec", "server", "distribution"], distribution);
}
