// Which distribution, release and image a spec runs. A spec that names no
// release runs the release recorded for the resource when there is one (what
// the hook resolved before: no upgrade of the hook moves a running server to
// another release), else the newest release that ships the distribution.
import type { Distribution } from "../api/distribution.js";
import { msg } from "../messages.js";
import { problem, warning, type Result, type Warning } from "../problems.js";
import { Reason } from "../reasons.js";
import type { Catalog, ImagePin } from "./catalog.js";
import { own } from "../lib/json.js";

export interface ResolvedDistribution {
  /** The distribution name, or undefined for a custom image. */
  name: string | undefined;
  /** The Llama Stack release; undefined for a custom image without a base config. */
  release: string | undefined;
  image: string;
}

/** A release recorded for a running resource, and where it was read. */
export interface RecordedRelease {
  release: string;
  /** e.g. "status.resolvedDistribution.release" */
  from: string;
}

/** Distributions upstream retired: the last release that shipped each, and what replaces it. */
const RETIRED: Readonly<Record<string, { last: string; replacement: string }>> = {
  "remote-vllm": {
    last: "0.2.14",
    replacement:
      "use starter with a vLLM provider (spec.providers.inference: [{provider: vllm, endpoint: ...}])",
  },
  "meta-reference-gpu": {
    last: "0.4.5",
    replacement: "use distribution.image with your own GPU build and spec.overrideConfig",
  },
  "starter-gpu": {
    last: "0.6.1",
    replacement: "use starter with a vLLM provider for GPU inference, or pin release 0.6.1",
  },
  dell: {
    last: "0.6.1",
    replacement:
      "use distribution.image with your own build and spec.overrideConfig, or pin release 0.6.1",
  },
};

function fail(reason: Reason, path: string, detail: string): Result<ResolvedDistribution> {
  return { ok: false, problems: [problem(reason, path, detail)], warnings: [] };
}

/** The release a spec runs, or why it cannot run one; `from` says where it was read. */
function pickRelease(
  dist: Distribution,
  name: string,
  images: Readonly<Record<string, ImagePin>>,
  recorded: RecordedRelease | undefined,
  shipped: readonly string[],
): { release: string; from: string } | Result<ResolvedDistribution> {
  const retired = own(RETIRED, name);
  if (dist.release === undefined && recorded !== undefined) {
    if (own(images, recorded.release) === undefined)
      return fail(
        Reason.UnsupportedRelease,
        "spec.distribution.release",
        msg.recordedReleaseUnsupported(name, recorded.release, recorded.from, shipped),
      );
    return { release: recorded.release, from: recorded.from };
  }
  const release = dist.release ?? shipped[0];
  if (release !== undefined && own(images, release) !== undefined)
    return { release, from: "spec.distribution.release" };
  return retired !== undefined && release !== undefined
    ? fail(
        Reason.UnsupportedRelease,
        "spec.distribution.release",
        msg.retiredDistribution(name, retired.last, retired.replacement),
      )
    : fail(
        Reason.UnsupportedRelease,
        "spec.distribution.release",
        msg.releaseWithoutDistribution(name, release ?? "", shipped),
      );
}

/**
 * A custom image: with baseConfig, the release it names (required there, and
 * supported: its schema checks the base); without, no release (overrideConfig).
 */
function resolveImage(
  image: string,
  dist: Distribution,
  catalog: Catalog,
): Result<ResolvedDistribution> {
  const release = dist.baseConfig === undefined ? undefined : dist.release;
  if (release !== undefined && !catalog.releases.includes(release))
    return fail(
      Reason.UnsupportedRelease,
      "spec.distribution.release",
      msg.customImageRelease(release, catalog.releases),
    );
  return { ok: true, value: { name: undefined, release, image }, warnings: [] };
}

export function resolveDistribution(
  dist: Distribution,
  catalog: Catalog,
  recorded?: RecordedRelease,
): Result<ResolvedDistribution> {
  if (dist.image !== undefined) return resolveImage(dist.image, dist, catalog);
  const name = dist.name ?? "";
  const images = own(catalog.images, name);
  if (images === undefined) {
    const retired = own(RETIRED, name);
    const detail =
      retired !== undefined
        ? msg.retiredDistribution(name, retired.last, retired.replacement)
        : msg.unknownDistribution(name, Object.keys(catalog.images).sort());
    return fail(Reason.UnknownDistribution, "spec.distribution.name", detail);
  }
  const shipped = catalog.releases.filter((r) => own(images, r) !== undefined);
  const picked = pickRelease(dist, name, images, recorded, shipped);
  if ("ok" in picked) return picked;
  const { release, from } = picked;
  const pin = own(images, release);
  if (pin?.image === undefined)
    return fail(Reason.NoImage, "spec.distribution.name", msg.noPublishedImage(name, release));
  const warnings: Warning[] = [];
  if (pin.retired !== undefined)
    warnings.push(
      warning(Reason.RetiredImage, "spec.distribution", msg.retiredImage(pin.image, pin.retired)),
    );
  const newest = shipped[0];
  if (dist.release === undefined && newest !== undefined && release !== newest)
    warnings.push(
      warning(
        Reason.NewerReleaseAvailable,
        "spec.distribution.release",
        msg.newerReleaseAvailable(release, from, newest),
      ),
    );
  return { ok: true, value: { name, release, image: pin.image }, warnings };
}
