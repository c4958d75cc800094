// Table tests for the claim: built from workload.storage, checked against the
// claim that exists, and rebuilt from the live claim (keep.ts, rule 3).
import { expect } from "chai";
import type { KubeObject } from "../../../src/api/hook.js";
import { buildPvc, checkPvcChange, claimFromLive } from "../../../src/children/pvc.js";
import { msg } from "../../../src/messages.js";
import { formatProblem } from "../../../src/problems.js";

const owner = { llsd: "llama", namespace: "default" };
const labels = {
  "app.kubernetes.io/name": "llama-stack",
  "app.kubernetes.io/instance": "llama",
  "app.kubernetes.io/part-of": "llama-stack",
  "app.kubernetes.io/managed-by": "llsd-hook",
};

function observedClaim(spec: unknown): KubeObject {
  return {
    apiVersion: "v1",
    kind: "PersistentVolumeClaim",
    metadata: { name: "llama-pvc", namespace: "default", uid: "u1" },
    ...(spec === undefined ? {} : { spec }),
  };
}

describe("buildPvc", () => {
  const rows: [
    input: { size: string; accessMode: string; storageClassName?: string },
    spec: unknown,
  ][] = [
    [
      { size: "10Gi", accessMode: "ReadWriteOnce" },
      { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "10Gi" } } },
    ],
    // The size in the form the API server stores it.
    [
      { size: "1024Mi", accessMode: "ReadWriteMany", storageClassName: "nfs" },
      {
        accessModes: ["ReadWriteMany"],
        resources: { requests: { storage: "1Gi" } },
        storageClassName: "nfs",
      },
    ],
    // Not a quantity: passed on for the API server to report.
    [
      { size: "ten gigs", accessMode: "ReadWriteOnce" },
      { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "ten gigs" } } },
    ],
  ];
  for (const [input, spec] of rows)
    it(JSON.stringify(input), () =>
      expect(buildPvc({ ...owner, ...input })).to.deep.equal({
        apiVersion: "v1",
        kind: "PersistentVolumeClaim",
        metadata: { name: "llama-pvc", namespace: "default", labels },
        spec,
      }),
    );
});

describe("checkPvcChange", () => {
  const rwo = buildPvc({ ...owner, size: "1Gi", accessMode: "ReadWriteOnce" });
  const rwoFast = buildPvc({
    ...owner,
    size: "1Gi",
    accessMode: "ReadWriteOnce",
    storageClassName: "fast",
  });
  const modes = (current: string) =>
    `spec.workload.storage.accessMode: ${msg.pvcImmutable("accessMode", current, "llama-pvc")}`;
  const klass = (current: string) =>
    `spec.workload.storage.storageClassName: ${msg.pvcImmutable("storageClassName", current, "llama-pvc")}`;
  const rows: [
    why: string,
    desired: typeof rwo,
    observed: KubeObject | undefined,
    problems: string[],
  ][] = [
    ["no claim yet", rwo, undefined, []],
    ["the same claim", rwo, observedClaim({ accessModes: ["ReadWriteOnce"] }), []],
    [
      "a class left out keeps whatever class the claim has",
      rwo,
      observedClaim({ accessModes: ["ReadWriteOnce"], storageClassName: "slow" }),
      [],
    ],
    [
      "another access mode",
      rwo,
      observedClaim({ accessModes: ["ReadWriteMany"] }),
      [modes("ReadWriteMany")],
    ],
    [
      "another class",
      rwoFast,
      observedClaim({ accessModes: ["ReadWriteOnce"], storageClassName: "slow" }),
      [klass("slow")],
    ],
    [
      "a class where the claim took the default",
      rwoFast,
      observedClaim({ accessModes: ["ReadWriteOnce"] }),
      [klass("(default)")],
    ],
    [
      "both",
      rwoFast,
      observedClaim({ accessModes: ["ReadWriteMany", "ReadOnlyMany"] }),
      [modes("ReadWriteMany,ReadOnlyMany"), klass("(default)")],
    ],
    // Hostile observed claims: read without trusting their shape, never thrown on.
    ["hostile: no spec", rwo, observedClaim(undefined), [modes("")]],
    ["hostile: spec is a string", rwo, observedClaim("x"), [modes("")]],
    ["hostile: spec is null", rwo, observedClaim(null), [modes("")]],
    [
      "hostile: accessModes is a string",
      rwo,
      observedClaim({ accessModes: "ReadWriteOnce" }),
      [modes("")],
    ],
    ["hostile: accessModes holds a number", rwo, observedClaim({ accessModes: [1] }), [modes("1")]],
    [
      "hostile: storageClassName is a number",
      rwoFast,
      observedClaim({ accessModes: ["ReadWriteOnce"], storageClassName: 5 }),
      [klass("(default)")],
    ],
  ];
  for (const [why, desired, observed, problems] of rows)
    it(why, () =>
      expect(checkPvcChange(desired, observed).map(formatProblem)).to.deep.equal(problems),
    );
});

describe("claimFromLive", () => {
  const rows: [why: string, spec: unknown, kept: unknown][] = [
    [
      "the fields a claim is created with; the rest is the cluster's",
      {
        accessModes: ["ReadWriteOnce"],
        resources: { requests: { storage: "1Gi" } },
        storageClassName: "standard",
        volumeMode: "Filesystem",
        volumeName: "pvc-0b2c",
      },
      {
        accessModes: ["ReadWriteOnce"],
        resources: { requests: { storage: "1Gi" } },
        storageClassName: "standard",
        volumeMode: "Filesystem",
      },
    ],
    ["an empty spec", {}, {}],
    ["resources without requests", { resources: {} }, { resources: {} }],
    ["hostile: no spec", undefined, undefined],
    ["hostile: spec is null", null, undefined],
    ["hostile: accessModes is a string", { accessModes: "ReadWriteOnce" }, undefined],
    ["hostile: a numeric request", { resources: { requests: { storage: 1 } } }, undefined],
    [
      "hostile: nine access modes",
      { accessModes: Array.from({ length: 9 }, () => "ReadWriteOnce") },
      undefined,
    ],
  ];
  for (const [why, spec, kept] of rows)
    it(why, () => {
      const claim = claimFromLive(observedClaim(spec), owner);
      expect(claim).to.deep.equal(
        kept === undefined
          ? undefined
          : {
              apiVersion: "v1",
              kind: "PersistentVolumeClaim",
              metadata: { name: "llama-pvc", namespace: "default", labels },
              spec: kept,
            },
      );
    });

  it("takes identity from the observed claim and the owner, never from the live labels", () => {
    const observed = {
      ...observedClaim({ accessModes: ["ReadWriteOnce"] }),
      metadata: { name: "llama-pvc", namespace: "elsewhere", labels: { injected: "yes" } },
    };
    expect(claimFromLive(observed, owner)?.metadata).to.deep.equal({
      name: "llama-pvc",
      namespace: "default",
      labels,
    });
  });
});
