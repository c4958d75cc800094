// The generated CRD on a real kube-apiserver, at both ends of the Kubernetes
// range the suite keeps (ADR 21): accepted as a structural schema with its CEL
// rules inside the cost budget, and every rule's accepted and rejected
// examples (test/data/rules.yaml) give the API server's verdict and exact
// message — the same verdict, message and field as the hook's zod validation
// on the same object. The golden corpus' parents agree too.
import { expect } from "chai";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import type { z } from "zod";
import type { KubeObject } from "../../src/api/hook.js";
import { ALL_RULES } from "../../src/api/rules.js";
import { CRD_FILE } from "../../src/api/crd-file.js";
import { API_VERSION, KIND, LlamaStackDistribution } from "../../src/api/schema.js";
import { loadRuleExamples } from "../rules-examples.js";
import { loadCases } from "../support/harness.js";
import type { Kube, Status } from "./kube.js";
import { cluster, endTitle, ENDS } from "./setup.js";

const NS = "llsd-rules";
const RESOURCE = "llamastackdistributions";

interface Verdict {
  ok: boolean;
  /** `field: message` of every problem, sorted. */
  problems: string[];
}

/**
 * A CEL rule's cause reads `Invalid value: <message>` (1.37; older servers put
 * the value's type first, `Invalid value: "object": <message>`); keep the message.
 */
function causeText(cause: { message: string; field?: string }): string {
  const m = /^Invalid value: (?:"[a-z]+": )?([\s\S]*)$/.exec(cause.message);
  return `${cause.field ?? ""}: ${m === null ? cause.message : m[1]}`;
}

function zodPath(path: readonly PropertyKey[]): string {
  return path
    .map((p) => (typeof p === "number" ? `[${p}]` : String(p)))
    .join(".")
    .replace(/\.\[/g, "[");
}

function zodVerdict(obj: unknown): Verdict {
  const result = LlamaStackDistribution.safeParse(obj);
  if (result.success) return { ok: true, problems: [] };
  return {
    ok: false,
    problems: (result.error as z.ZodError).issues
      .map((i) => `${zodPath(i.path)}: ${i.message}`)
      .sort(),
  };
}

async function serverVerdict(kube: Kube, obj: KubeObject): Promise<Verdict & { status: number }> {
  const res = await kube.create(
    API_VERSION,
    RESOURCE,
    { ...obj, metadata: { ...obj.metadata, namespace: NS } },
    { dryRun: "All", fieldValidation: "Strict" },
  );
  if (res.status === 201) return { ok: true, problems: [], status: res.status };
  const body = res.body as unknown as Status;
  const causes = body.details?.causes ?? [{ message: body.message }];
  return { ok: false, problems: causes.map(causeText).sort(), status: res.status };
}

for (const end of ENDS) {
  describe(`${endTitle(end)}: the CRD on a real kube-apiserver`, function () {
    this.timeout(120_000);

    before(async () => {
      await cluster(end).kube.mustCreate("v1", "namespaces", {
        apiVersion: "v1",
        kind: "Namespace",
        metadata: { name: NS },
      });
    });

    it("is established, structural, and served with its status subresource and short name", async () => {
      const crd = parse(readFileSync(join(import.meta.dirname, "..", "..", CRD_FILE), "utf8")) as {
        metadata: { name: string };
      };
      const got = (await cluster(end).kube.get(
        "apiextensions.k8s.io/v1",
        "customresourcedefinitions",
        undefined,
        crd.metadata.name,
      )) as unknown as {
        status: { conditions: { type: string; status: string; message: string }[] };
      };
      const conditions = Object.fromEntries(got.status.conditions.map((c) => [c.type, c]));
      expect(conditions["Established"]?.status).to.equal("True");
      expect(conditions["NamesAccepted"]?.status).to.equal("True");
      expect(conditions["NonStructuralSchema"], "NonStructuralSchema condition").to.equal(
        undefined,
      );

      const discovery = (
        await cluster(end).kube.request<{
          resources: { name: string; shortNames?: string[]; namespaced: boolean }[];
        }>({ method: "GET", path: `/apis/${API_VERSION}` })
      ).body;
      const names = discovery.resources.map((r) => r.name).sort();
      expect(names).to.deep.equal([RESOURCE, `${RESOURCE}/status`]);
      const main = discovery.resources.find((r) => r.name === RESOURCE);
      expect(main?.shortNames).to.deep.equal(["llsd"]);
      expect(main?.namespaced).to.equal(true);
    });

    describe("every CEL rule's examples: the API server and the hook agree", () => {
      const examples = loadRuleExamples();

      it("covers every rule with an accepted and a rejected example", () => {
        for (const id of ALL_RULES.keys()) {
          expect(examples.filter((e) => e.rule === id).map((e) => e.expect)).to.include.members([
            "accept",
            "reject",
          ]);
        }
      });

      for (const ex of examples) {
        it(ex.label, async () => {
          const server = await serverVerdict(cluster(end).kube, ex.object);
          const hook = zodVerdict(ex.object);
          const message = ALL_RULES.get(ex.rule)?.message;
          if (ex.expect === "accept") {
            expect(server, "API server").to.deep.include({ ok: true, problems: [] });
          } else {
            expect(server.status, "API server status").to.equal(422);
            expect(
              server.problems.map((p) => p.slice(p.indexOf(": ") + 2)),
              "API server messages",
            ).to.include(message);
          }
          expect(hook.problems, "the hook's problems are the API server's").to.deep.equal(
            server.problems,
          );
          expect(hook.ok).to.equal(server.ok);
        });
      }
    });

    it("every golden case's parent gets the same verdict from the API server as from the hook", async () => {
      // Structural bounds (minimum, maxLength, enum) are worded by each side its
      // own way, so those agree on the verdict and the field; a rule's message is
      // ours on both sides and must be identical.
      const ruleMessages = new Set([...ALL_RULES.values()].map((r) => r.message));
      const fieldOf = (p: string) => p.slice(0, p.indexOf(": "));
      const fields = (ps: string[]) => [...new Set(ps.map(fieldOf))].sort();
      const ruled = (ps: string[]) =>
        ps.filter((p) => ruleMessages.has(p.slice(p.indexOf(": ") + 2))).sort();
      const disagreements: string[] = [];
      let accepted = 0;
      let structural = 0;
      for (const c of loadCases()) {
        const obj = {
          apiVersion: API_VERSION,
          kind: KIND,
          metadata: { name: c.file.name ?? "llama" },
          spec: c.file.spec,
        };
        const server = await serverVerdict(cluster(end).kube, obj);
        const hook = zodVerdict(obj);
        if (server.ok) accepted++;
        if (ruled(server.problems).length < server.problems.length) structural++;
        if (
          server.ok !== hook.ok ||
          JSON.stringify(fields(server.problems)) !== JSON.stringify(fields(hook.problems)) ||
          JSON.stringify(ruled(server.problems)) !== JSON.stringify(ruled(hook.problems))
        )
          disagreements.push(
            `${c.name}: API server ${JSON.stringify(server.problems)} vs hook ${JSON.stringify(hook.problems)}`,
          );
      }
      expect(disagreements).to.deep.equal([]);
      expect(accepted, "most golden parents are valid").to.be.greaterThan(40);
      expect(structural, "cases refused by a structural bound (the port)").to.be.greaterThan(0);
    });
  });
}
