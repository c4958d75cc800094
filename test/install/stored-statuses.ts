// Every golden case's parent as Metacontroller stores it after the sync: the
// hook's status plus the top-level observedGeneration, on a parent with
// metadata.generation (test/k8s/children.test.ts shows the API server keeps
// such a status unpruned); once more under a newer spec. What the GitOps
// tools' health checks read (argocd-health.test.ts, flux-health.test.ts).
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { API_VERSION, KIND } from "../../src/api/schema.js";
import { CASES_DIR } from "../support/harness.js";

export interface StoredCondition {
  type: string;
  status: string;
  message: string;
  observedGeneration?: number;
}
export interface StoredStatus {
  phase?: string;
  observedGeneration?: number;
  conditions?: StoredCondition[];
}
export type StoredParent = { metadata: Record<string, unknown>; status?: StoredStatus } & Record<
  string,
  unknown
>;

export function parentOf(
  name: string,
  generation: number,
  status: StoredStatus | undefined,
): StoredParent {
  return {
    apiVersion: API_VERSION,
    kind: KIND,
    metadata: { name, namespace: "default", generation, uid: "uid-parent" },
    spec: {},
    ...(status === undefined ? {} : { status }),
  };
}

export interface StoredRow {
  name: string;
  obj: StoredParent;
  /** metadata.generation, which the stored status may be older than. */
  generation: number;
  /** The spec was edited after the status was written. */
  edited: boolean;
}

/** Every golden case's parent as stored after its sync, and (when the sync answered) once more under a newer spec. */
export function storedGoldenParents(): StoredRow[] {
  return readdirSync(CASES_DIR)
    .sort()
    .flatMap((name) => {
      const response = parse(readFileSync(join(CASES_DIR, name, "response.yaml"), "utf8")) as {
        status?: StoredStatus;
      };
      const request = parse(readFileSync(join(CASES_DIR, name, "request.yaml"), "utf8")) as {
        parent: { metadata: { generation: number }; status?: StoredStatus };
      };
      const generation = request.parent.metadata.generation;
      if (response.status === undefined) {
        // A refused sync (409) changes nothing: the parent keeps the status an
        // earlier sync stored, at the generation that sync saw.
        const earlier = request.parent.status;
        const seen = Math.max(
          0,
          ...(earlier?.conditions ?? []).map((c) => c.observedGeneration ?? 0),
        );
        const status = earlier === undefined ? undefined : { ...earlier, observedGeneration: seen };
        return [
          {
            name: `${name} (409: the status an earlier sync stored)`,
            obj: parentOf(name, generation, status),
            generation,
            edited: false,
          },
        ];
      }
      const status = { ...response.status, observedGeneration: generation };
      return [
        { name, obj: parentOf(name, generation, status), generation, edited: false },
        {
          name: `${name}, then its spec edited (generation ${generation + 1})`,
          obj: parentOf(name, generation + 1, status),
          generation: generation + 1,
          edited: true,
        },
      ];
    });
}
