// The hook writes quantities in the form the API server stores them (so that
// under server-side apply what was applied reads back equal): every row of
// test/unit/children/quantity-rows.ts, stored by a real kube-apiserver (a dry
// run of a pod whose containers request them).
import { expect } from "chai";
import { QUANTITY_ROWS } from "../unit/children/quantity-rows.js";
import { cluster } from "./setup.js";

describe("quantities as the API server stores them", () => {
  it("every row's stored form is what the hook writes", async () => {
    const pod = {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "quantities", namespace: "default" },
      spec: {
        containers: QUANTITY_ROWS.map(([given], i) => ({
          name: `c${i}`,
          image: "example.com/x:1",
          resources: { requests: { cpu: given }, limits: { cpu: given } },
        })),
      },
    };
    const res = await cluster().kube.create("v1", "pods", pod, { dryRun: "All" });
    expect(res.status, JSON.stringify(res.body).slice(0, 300)).to.equal(201);
    const stored = (
      res.body as unknown as {
        spec: { containers: { resources: { requests: { cpu: string } } }[] };
      }
    ).spec.containers.map((c) => c.resources.requests.cpu);
    expect(QUANTITY_ROWS.map(([given], i) => [given, stored[i]])).to.deep.equal(QUANTITY_ROWS);
  });
});
