// Every child of every golden case, as the hook returns it, on a real
// kube-apiserver at each end of the Kubernetes range (ADR 21): a server-side
// apply dry run (strict field validation) in a namespace that enforces and
// warns on Pod Security "restricted", accepted with no warnings (but Pod
// Security's own, where the hook warns RestrictedPodField). And every status
// the hook answers is kept unpruned by the real status subresource of the
// generated CRD.
import { expect } from "chai";
import { LAST_APPLIED_ANNOTATION, type KubeObject } from "../../src/api/hook.js";
import { ANNOTATIONS_LIMIT, CHILD_BUDGET, checkConfigSize } from "../../src/api/budget.js";
import { buildConfigMap } from "../../src/children/configmap.js";
import { API_VERSION } from "../../src/api/schema.js";
import { CHILD_TYPES, OPTIONAL_CHILD_TYPES } from "../../src/children/types.js";
import { canonicalJson } from "../../src/lib/json.js";
import { loadCases, runCase } from "../support/harness.js";
import { createParent, restrictedNamespace, type Status } from "./kube.js";
import { cluster, endTitle, ENDS, type End } from "./setup.js";

const NS = "llsd-restricted";

function resourceOf(child: KubeObject): string {
  const t = CHILD_TYPES.find((t) => t.kind === child.kind && t.apiVersion === child.apiVersion);
  if (t === undefined)
    throw new Error(`${child.kind} ${child.apiVersion} is not a declared child type`);
  return t.resource;
}

/** The child as Metacontroller's dynamic apply creates it: a copy of itself in an annotation. */
function withLastApplied(child: KubeObject): KubeObject {
  return {
    ...child,
    metadata: {
      ...child.metadata,
      annotations: {
        ...(child.metadata.annotations ?? {}),
        [LAST_APPLIED_ANNOTATION]: JSON.stringify(child),
      },
    },
  };
}

/**
 * How the end's API server words a metadata.annotations value over the limit
 * (1.30 says "must have at most", newer releases "may not be more than").
 */
const TOO_LONG: Record<End, string> = {
  oldest: `metadata\\.annotations: Too long: must have at most ${ANNOTATIONS_LIMIT} bytes`,
  newest: `metadata\\.annotations: Too long: may not be more than ${ANNOTATIONS_LIMIT} bytes`,
};

const cases = loadCases()
  .map((c) => ({ c, outcome: runCase(c.file, "v2") }))
  .flatMap(({ c, outcome }) => (outcome.kind === "ok" ? [{ c, response: outcome.response }] : []));
// The optional types' children need their third-party CRDs: servicemonitor.test.ts.
const base = (children: readonly KubeObject[]) =>
  children.filter((c) => CHILD_TYPES.some((t) => t.kind === c.kind));

describe("the golden corpus' children", () => {
  it("are of every declared type, the optional ones included", () => {
    const kinds = new Set(cases.flatMap(({ response }) => response.children.map((c) => c.kind)));
    expect([...kinds].sort()).to.deep.equal(
      [...CHILD_TYPES, ...OPTIONAL_CHILD_TYPES].map((t) => t.kind).sort(),
    );
  });
});

for (const end of ENDS)
  describe(`${endTitle(end)}: the hook's children on a real kube-apiserver`, function () {
    this.timeout(300_000);

    before(async () => {
      await cluster(end).kube.mustCreate("v1", "namespaces", restrictedNamespace(NS));
    });

    for (const { c, response } of cases) {
      if (base(response.children).length === 0) continue;
      const conditions = (response.status["conditions"] ?? []) as { type: string }[];
      const warned = conditions.some((w) => w.type === "RestrictedPodField");
      it(`${c.name}: ${base(response.children).length} children pass a restricted dry run ${warned ? "with Pod Security's warning" : "without warnings"}`, async () => {
        const problems: string[] = [];
        for (const child of base(response.children)) {
          const obj = withLastApplied({
            ...child,
            metadata: { ...child.metadata, namespace: NS },
          });
          const res = await cluster(end).kube.apply(child.apiVersion, resourceOf(child), obj, {
            fieldManager: "metacontroller",
            force: true,
            dryRun: true,
            strict: true,
          });
          const id = `${child.kind}/${child.metadata.name}`;
          if (res.status >= 300)
            problems.push(`${id}: HTTP ${res.status}: ${(res.body as unknown as Status).message}`);
          // A field the confused-deputy rule only warns about (RestrictedPodField)
          // is one the namespace's Pod Security warns about too: that warning, and
          // no other, is expected of the Deployment.
          const podSecurity = (w: string) =>
            warned &&
            child.kind === "Deployment" &&
            w.replaceAll('\\"', '"').includes('violate PodSecurity "restricted');
          if (warned && child.kind === "Deployment" && !res.warnings.some(podSecurity))
            problems.push(
              `${id}: no Pod Security warning, though the hook warns RestrictedPodField`,
            );
          for (const w of res.warnings) if (!podSecurity(w)) problems.push(`${id}: warning: ${w}`);
        }
        expect(problems).to.deep.equal([]);
      });
    }

    it("the size budget: the API server refuses a child whose last-applied copy passes 256 KiB; the hook refuses it first, and accepts what the API server accepts", async () => {
      const configMap = (kib: number) =>
        withLastApplied(
          buildConfigMap({
            llsd: "budget",
            namespace: NS,
            configYaml: `# ${"x".repeat(kib * 1024)}\n`,
            configHash: "0123456789abcdef",
          }),
        );
      const dryRun = (obj: KubeObject) =>
        cluster(end).kube.apply("v1", "configmaps", obj, {
          fieldManager: "metacontroller",
          force: true,
          dryRun: true,
          strict: true,
        });
      const fits = Math.floor(CHILD_BUDGET / 1024) - 2;
      expect(checkConfigSize(`# ${"x".repeat(fits * 1024)}\n`, {})).to.equal(undefined);
      const accepted = await dryRun(configMap(fits));
      expect(accepted.status, JSON.stringify(accepted.body).slice(0, 300)).to.be.below(300);

      const over = 257;
      expect(checkConfigSize(`# ${"x".repeat(over * 1024)}\n`, {})?.reason).to.equal(
        "ChildTooLarge",
      );
      const refused = await dryRun(configMap(over));
      expect(refused.status).to.equal(422);
      expect(
        (refused.body as unknown as Status).message,
        (refused.body as unknown as Status).message,
      ).to.match(new RegExp(TOO_LONG[end]));
    });

    it("every status the hook answers is stored unpruned by the status subresource", async () => {
      const kube = cluster(end).kube;
      const lost: string[] = [];
      let checked = 0;
      for (const { c, response } of cases) {
        const name = `status-${checked}`;
        // A parent the API server refuses never reaches the hook with this spec;
        // its status still has to fit, so carry it on a minimal valid parent.
        const parent = await createParent(kube, NS, name, c.file.spec);
        const status = { ...response.status, observedGeneration: parent.metadata.generation };
        const stored = (await kube.replaceStatus(API_VERSION, "llamastackdistributions", {
          ...parent,
          status,
        })) as unknown as { status: unknown };
        if (canonicalJson(stored.status) !== canonicalJson(status))
          lost.push(
            `${c.name}: sent ${JSON.stringify(status)}\n  stored ${JSON.stringify(stored.status)}`,
          );
        await kube.remove(API_VERSION, "llamastackdistributions", NS, name);
        checked++;
      }
      expect(lost).to.deep.equal([]);
      expect(checked).to.equal(cases.length);
    });
  });
