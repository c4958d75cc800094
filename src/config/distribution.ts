// Which distribution, release and image a spec runs (SPEC §4.1).
import type { Distribution } from "../api/schema.js";
import { msg } from "../messages.js";
import { problem, Reason, type Problem } from "../problems.js";
import type { Catalog } from "./catalog.js";
import { own } from "./json.js";

export interface ResolvedDistribution {
  /** The distribution name, or undefined for a custom image. */
  name: string | undefined;
  /** The Llama Stack release, or undefined for a custom image. */
  release: string | undefined;
  image: string;
}

export function resolveDistribution(
  dist: Distribution,
  catalog: Catalog,
): { ok: true; value: ResolvedDistribution } | { ok: false; problem: Problem } {
  if (dist.image !== undefined)
    return { ok: true, value: { name: undefined, release: undefined, image: dist.image } };
  const name = dist.name ?? "";
  const images = own(catalog.images, name);
  if (images === undefined) {
    return {
      ok: false,
      problem: problem(
        Reason.UnknownDistribution,
        "spec.distribution.name",
        msg.unknownDistribution(name, Object.keys(catalog.images).sort()),
      ),
    };
  }
  const shipped = catalog.releases.filter((r) => own(images, r) !== undefined);
  const release = dist.release ?? shipped[0];
  const image = release === undefined ? undefined : own(images, release);
  if (release === undefined || image === undefined) {
    return {
      ok: false,
      problem: problem(
        Reason.UnsupportedRelease,
        "spec.distribution.release",
        msg.releaseWithoutDistribution(name, release ?? "", shipped),
      ),
    };
  }
  return { ok: true, value: { name, release, image } };
}
