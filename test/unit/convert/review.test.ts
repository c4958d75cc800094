// The ConversionReview the webhook answers, and the notes the status takes
// from a converted object's annotation.
import { expect } from "chai";
import fc from "fast-check";
import type { JsonObject } from "../../../src/lib/json.js";
import { toV1alpha2 } from "../../../src/convert/convert.js";
import { conversionNotes } from "../../../src/convert/notes.js";
import { convertReview, MAX_REVIEW_OBJECTS } from "../../../src/convert/review.js";

const V1_OBJECT = {
  apiVersion: "llamastack.io/v1alpha1",
  kind: "LlamaStackDistribution",
  metadata: { name: "llama", namespace: "team-a" },
  spec: { replicas: 1, server: { distribution: { name: "starter" } } },
};
const V2_OBJECT = {
  apiVersion: "llamastack.io/v1alpha2",
  kind: "LlamaStackDistribution",
  metadata: { name: "other", namespace: "team-a" },
  spec: { distribution: { name: "starter", release: "1.5.0" } },
};

const review = (
  desiredAPIVersion: unknown,
  objects: unknown,
  uid: unknown = "705ab4f5-6393-11e8-b7cc-42010a800002",
) => ({
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "ConversionReview",
  request: { uid, desiredAPIVersion, objects },
});

const failure = (uid: string, message: string) => ({
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "ConversionReview",
  response: { uid, convertedObjects: [], result: { status: "Failure", message } },
});

const INVALID = (why: string) =>
  `the request ${why}; the API server sends apiextensions.k8s.io/v1 ConversionReview requests with request.uid, request.desiredAPIVersion and request.objects`;

describe("convertReview", () => {
  it("converts every object to the desired version, echoing the uid, in order", () => {
    const answer = convertReview(review("llamastack.io/v1alpha2", [V1_OBJECT, V2_OBJECT]));
    const converted = toV1alpha2(V1_OBJECT);
    expect(answer).to.deep.equal({
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "ConversionReview",
      response: {
        uid: "705ab4f5-6393-11e8-b7cc-42010a800002",
        convertedObjects: [converted.ok && converted.value, V2_OBJECT],
        result: { status: "Success" },
      },
    });
  });

  it("converts a review of the most objects it takes, and refuses one more at once, by count (issue 34: 24,000 small objects ran to the deadline)", () => {
    const objects = (n: number) =>
      Array.from({ length: n }, (_, i) => ({
        ...V1_OBJECT,
        metadata: { ...V1_OBJECT.metadata, name: `llama-${i}` },
      }));
    const most = convertReview(review("llamastack.io/v1alpha2", objects(MAX_REVIEW_OBJECTS)));
    const response = most["response"] as { convertedObjects: unknown[]; result: unknown };
    expect([response.result, response.convertedObjects.length]).to.deep.equal([
      { status: "Success" },
      1000,
    ]);
    expect(convertReview(review("llamastack.io/v1alpha2", objects(1001)))).to.deep.equal(
      failure(
        "705ab4f5-6393-11e8-b7cc-42010a800002",
        "the request has 1001 objects (request.objects), more than the 1000 llsd-hook converts in one review; the API server sends one object, or one page of a list: list llamastack.io/v1alpha1 in pages (kubectl's --chunk-size, 500 by default; limit in the API)",
      ),
    );
  });

  it("converts back to v1alpha1", () => {
    const up = toV1alpha2(V1_OBJECT);
    const down = convertReview(review("llamastack.io/v1alpha1", [up.ok && up.value]));
    expect((down["response"] as JsonObject)["convertedObjects"]).to.deep.equal([V1_OBJECT]);
  });

  it("refuses the whole review when one object cannot be converted, naming it, the field and the fix", () => {
    const bad = {
      ...V1_OBJECT,
      metadata: { name: "broken", namespace: "team-b" },
      spec: { replicas: "two", server: {} },
    };
    expect(convertReview(review("llamastack.io/v1alpha2", [V1_OBJECT, bad]))).to.deep.equal(
      failure(
        "705ab4f5-6393-11e8-b7cc-42010a800002",
        "objects[1] (team-b/broken) cannot be converted from llamastack.io/v1alpha1 to llamastack.io/v1alpha2: spec.replicas: must be an integer, not a string; correct it through llamastack.io/v1alpha1 (kubectl edit) so that the object converts",
      ),
    );
  });

  // Hostile reviews: each row is what arrives, and the Failure it gets.
  const ROWS: { label: string; input: unknown; uid: string; message: string }[] = [
    {
      label: "null",
      input: null,
      uid: "",
      message: INVALID("is not an apiextensions.k8s.io/v1 ConversionReview"),
    },
    {
      label: "an AdmissionReview",
      input: { ...review("llamastack.io/v1alpha2", []), kind: "AdmissionReview" },
      uid: "705ab4f5-6393-11e8-b7cc-42010a800002",
      message: INVALID("is not an apiextensions.k8s.io/v1 ConversionReview"),
    },
    {
      label: "no request",
      input: { apiVersion: "apiextensions.k8s.io/v1", kind: "ConversionReview" },
      uid: "",
      message: INVALID("has no request"),
    },
    {
      label: "no uid",
      input: review("llamastack.io/v1alpha2", [], 7),
      uid: "",
      message: INVALID("has no request.uid"),
    },
    {
      label: "an unknown version",
      input: review("llamastack.io/v1beta1", []),
      uid: "705ab4f5-6393-11e8-b7cc-42010a800002",
      message: INVALID(
        'asks for "llamastack.io/v1beta1" (request.desiredAPIVersion); llsd-hook converts to llamastack.io/v1alpha1 and llamastack.io/v1alpha2',
      ),
    },
    {
      label: "objects not a list",
      input: review("llamastack.io/v1alpha2", { items: [] }),
      uid: "705ab4f5-6393-11e8-b7cc-42010a800002",
      message: INVALID("has no request.objects list"),
    },
    {
      label: "an object of another kind",
      input: review("llamastack.io/v1alpha2", [
        { apiVersion: "v1", kind: "Secret", metadata: { name: "s" }, data: { token: "c2VjcmV0" } },
      ]),
      uid: "705ab4f5-6393-11e8-b7cc-42010a800002",
      message:
        'objects[0] (s) cannot be converted from v1 to llamastack.io/v1alpha2: apiVersion: is "v1"; this conversion takes llamastack.io/v1alpha1 (llsd-hook converts between llamastack.io/v1alpha1 and llamastack.io/v1alpha2)',
    },
  ];
  for (const row of ROWS) {
    it(`answers ${row.label} with a Failure`, () => {
      expect(convertReview(row.input)).to.deep.equal(failure(row.uid, row.message));
    });
  }

  it("a Failure never quotes a value of the object", () => {
    const secretish = {
      ...V1_OBJECT,
      spec: { replicas: "CANARY-s3cr3t", server: { containerSpec: { env: "CANARY-s3cr3t" } } },
    };
    const answer = JSON.stringify(convertReview(review("llamastack.io/v1alpha2", [secretish])));
    expect(answer).to.include("Failure");
    expect(answer).not.to.include("CANARY");
  });

  it("never throws, on anything", () => {
    fc.assert(
      fc.property(fc.anything(), fc.anything(), (a, b) => {
        convertReview(a);
        convertReview(review("llamastack.io/v1alpha2", [a, b]));
        convertReview(review("llamastack.io/v1alpha1", [a]));
      }),
      { numRuns: 300, seed: 20261205 },
    );
  });
});

describe("conversionNotes (what the status says about kept fields)", () => {
  const converted = (server: JsonObject): JsonObject => {
    const result = toV1alpha2({
      ...V1_OBJECT,
      spec: { server: { distribution: { name: "starter" }, ...server } },
    });
    if (!result.ok) expect.fail(JSON.stringify(result.problems));
    return result.value;
  };

  it("a ConfigMap in another namespace is an error: it has no safe v1alpha2 meaning", () => {
    const notes = conversionNotes(
      converted({ userConfig: { configMapName: "run-config", configMapNamespace: "shared" } }),
    );
    expect(notes).to.deep.equal({
      errors: [
        {
          reason: "CrossNamespaceConfigMap",
          path: "spec.overrideConfig",
          detail:
            "the llamastack.io/v1alpha1 object ran the config of ConfigMap shared/run-config (spec.server.userConfig), and llsd-hook reads ConfigMaps only from the resource's own namespace (team-a); copy the ConfigMap there and set spec.overrideConfig.configMapName: run-config",
        },
      ],
      warnings: [],
    });
  });

  it("once spec.overrideConfig is set, the ConfigMap is no longer an error", () => {
    const obj = converted({
      userConfig: { configMapName: "run-config", configMapNamespace: "shared" },
    });
    const fixed = {
      ...obj,
      spec: { ...(obj["spec"] as JsonObject), overrideConfig: { configMapName: "run-config" } },
    };
    expect(conversionNotes(fixed).errors).to.deep.equal([]);
  });

  it("a kept CA bundle that trust.caBundle cannot take is a warning; a kept field with a home moved", () => {
    const notes = conversionNotes(
      converted({
        podOverrides: { terminationGracePeriodSeconds: 60 },
        tlsConfig: { caBundle: { configMapName: "ca", configMapKeys: ["a.crt", "b.crt"] } },
      }),
    );
    expect(notes.errors).to.deep.equal([]);
    expect(notes.warnings.map((w) => w.detail)).to.deep.equal([
      "the llamastack.io/v1alpha1 field spec.server.tlsConfig.caBundle is kept in the annotation llamastack.io/v1alpha1-fields but not applied: spec.trust.caBundle takes exactly one key of a ConfigMap in the resource's own namespace, and this bundle names several keys, or another namespace; put the certificates together in one key of a ConfigMap here and set spec.trust.caBundle, or remove the annotation to drop it",
    ]);
  });

  it("nothing to say without the annotation, or with one llsd-hook did not write", () => {
    expect(conversionNotes(V2_OBJECT)).to.deep.equal({ errors: [], warnings: [] });
    const garbled = {
      ...V2_OBJECT,
      metadata: { name: "x", annotations: { "llamastack.io/v1alpha1-fields": "{" } },
    };
    expect(conversionNotes(garbled)).to.deep.equal({ errors: [], warnings: [] });
  });
});
