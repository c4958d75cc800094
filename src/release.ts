// What a release means for the server, worked out once from its version:
// resolve() carries it in Desired, so no child builder parses a version
// string. A custom image (distribution.image) runs an unknown release: each
// fact is then undefined, and its reader says what an unknown release gets.
import { isOgx } from "./container.js";

export interface ReleaseFacts {
  /** OGX (0.8 on), the renamed project: its own env names, and /tmp as an in-memory volume. */
  ogx: boolean | undefined;
  /** Serves Prometheus metrics itself: OGX 1.2.0 and newer (1.1.3 and Llama Stack 0.x do not). */
  metricsEndpoint: boolean | undefined;
}

export function releaseFacts(release: string | undefined): ReleaseFacts {
  if (release === undefined) return { ogx: undefined, metricsEndpoint: undefined };
  const ogx = isOgx(release);
  const [major = 0, minor = 0] = release.split(".").map(Number);
  return { ogx, metricsEndpoint: ogx && (major > 1 || (major === 1 && minor >= 2)) };
}
