// Which distribution, release and image a spec runs. A spec that names no
// release runs the release recorded for the resource when there is one (what
// the hook resolved before: no upgrade of the hook moves a running server to
// another release), else the newest release that ships the distribution.
import type { Distribution } from "../api/schema.js";
import { msg } from "../messages.js";
import { problem, Reason, type Result } from "../problems.js";
import type { Catalog } from "./catalog.js";
import { own } from "./json.js";

export interface ResolvedDistribution {
  /** The distribution name, or undefined for a custom image. */
  name: string | undefined;
  /** The Llama Stack release, or undefined for a custom image. */
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

export function resolveDistribution(
  dist: Distribution,
  catalog: Catalog,
  recorded?: RecordedRelease,
): Result<ResolvedDistribution> {
  if (dist.image !== undefined)
    return {
      ok: true,
      value: { name: undefined, release: undefined, image: dist.image },
      warnings: [],
    };
  const name = dist.name ?? "";
  const images = own(catalog.images, name);
  const retired = own(RETIRED, name);
  const fail = (reason: Reason, path: string, detail: string): Result<ResolvedDistribution> => ({
    ok: false,
    problems: [problem(reason, path, detail)],
    warnings: [],
  });
  if (images === undefined) {
    return retired !== undefined
      ? fail(
          Reason.UnknownDistribution,
          "spec.distribution.name",
          msg.retiredDistribution(name, retired.last, retired.replacement),
        )
      : fail(
          Reason.UnknownDistribution,
          "spec.distribution.name",
          msg.unknownDistribution(name, Object.keys(catalog.images).sort()),
        );
  }
  const shipped = catalog.releases.filter((r) => own(images, r) !== undefined);
  const newest = shipped[0];
  let release = dist.release;
  let from = "spec.distribution.release";
  if (release === undefined && recorded !== undefined) {
    if (own(images, recorded.release) === undefined)
      return fail(
        Reason.UnsupportedRelease,
        "spec.distribution.release",
        msg.recordedReleaseUnsupported(name, recorded.release, recorded.from, shipped),
      );
    release = recorded.release;
    from = recorded.from;
  }
  release ??= newest;
  const pin = release === undefined ? undefined : own(images, release);
  if (release === undefined || pin === undefined) {
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
  if (pin.image === undefined)
    return fail(Reason.NoImage, "spec.distribution.name", msg.noPublishedImage(name, release));
  const warnings = [];
  if (pin.retired !== undefined)
    warnings.push(
      problem(Reason.RetiredImage, "spec.distribution", msg.retiredImage(pin.image, pin.retired)),
    );
  if (dist.release === undefined && newest !== undefined && release !== newest)
    warnings.push(
      problem(
        Reason.NewerReleaseAvailable,
        "spec.distribution.release",
        msg.newerReleaseAvailable(release, from, newest),
      ),
    );
  return { ok: true, value: { name, release, image: pin.image }, warnings };
}
