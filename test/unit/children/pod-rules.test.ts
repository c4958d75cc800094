// Pod-spec shapes the CRD's schema admits and the API server refuses (a 422
// on the Deployment): each is a validation problem at its field with the fix,
// and a running resource keeps its children as they are.
import { expect } from "chai";
import { sync } from "../../../src/sync.js";
import { syncContext } from "../../support/harness.js";
import { applyAll, request, syncOk } from "../../support/request.js";
import { ACCEPTED_WORKLOAD, POD_RULE_ROWS } from "./pod-rules-rows.js";

const base = {
  distribution: { name: "starter" },
  providers: { inference: [{ provider: "vllm", endpoint: "http://vllm:8000/v1" }] },
};
const withWorkload = (workload: Record<string, unknown>) => ({ ...base, workload });
const NOW = "2026-11-01T12:00:00Z";

/** The ValidationSucceeded condition's message of a sync of `spec`. */
function validation(spec: unknown): { status: string; message: string } {
  const conditions = syncOk(request(spec)).status["conditions"] as {
    type: string;
    status: string;
    message: string;
  }[];
  const found = conditions.find((c) => c.type === "ValidationSucceeded");
  return { status: found?.status ?? "", message: found?.message ?? "" };
}

describe("pod-spec rules of the API server", () => {
  for (const row of POD_RULE_ROWS)
    it(row.name, () => {
      expect(validation(withWorkload(row.workload))).to.deep.equal({
        status: "False",
        message: row.problem,
      });
    });

  it("accepts the same fields when the API server would", () => {
    const fine = withWorkload(ACCEPTED_WORKLOAD);
    expect(validation(fine).status).to.equal("True");
  });

  it("keeps a running resource's children as they are when an edit breaks a rule", () => {
    const running = applyAll(syncOk(request(base)));
    const broken = withWorkload({ resources: { requests: { cpu: "2" }, limits: { cpu: "1" } } });
    const out = sync(request(broken, { children: running, generation: 2 }), NOW, syncContext());
    expect(out.kind).to.equal("ok");
    if (out.kind !== "ok") return;
    const ids = (list: { kind: string; metadata: { name: string } }[]) =>
      list.map((c) => `${c.kind}/${c.metadata.name}`).sort();
    expect(ids(out.response.children)).to.deep.equal(ids(running));
  });
});
