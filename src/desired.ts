// What should run, worked out once from a valid spec by resolve() (src/resolve.ts).
// Every later stage (children, status) reads these facts; none works them out again.
import type { Spec } from "./api/schema.js";
import type { Ingress, ServerTls } from "./api/networking.js";
import type { ResolvedDistribution } from "./config/distribution.js";
import type { GeneratedConfig } from "./config/generate.js";
import type { Reference } from "./references.js";
import type { ReleaseFacts } from "./release.js";

/** Where the server's config.yaml comes from. */
export type DesiredConfig =
  | { source: "generated"; generated: GeneratedConfig }
  | { source: "override"; configMapName: string };

export interface Desired {
  llsd: string;
  namespace: string;
  spec: Spec;
  distribution: ResolvedDistribution;
  /** What distribution.release means (release.ts); undefined for a custom image's unknown release. */
  releaseFacts: ReleaseFacts | undefined;
  port: number;
  /** The server's own TLS, when on (serverTlsOf). */
  tls: ServerTls | undefined;
  /** networking.expose, when on: the Ingress (ingressOf). */
  ingress: Ingress | undefined;
  /** The data volume's mount path, without a trailing slash. */
  dataDir: string;
  /** The Deployment's replicas; undefined when an HPA owns them. */
  replicas: number | undefined;
  /** The fewest pods that run: replicas, or the HPA's minReplicas. */
  minReplicas: number;
  /** Every Secret and ConfigMap the spec refers to. */
  references: Reference[];
  /** Changes when any referenced object changes: rolls the pods. */
  inputsHash: string;
  /** Undefined when the config cannot be had (the config check says why). */
  config: DesiredConfig | undefined;
}
