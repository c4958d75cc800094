// The admission webhook on a real kube-apiserver, as the component installs
// it (manifests/components/admission): the ValidatingWebhookConfiguration as
// shipped — rules, matchConditions, failurePolicy, timeoutSeconds — but for
// its clientConfig (the hook over HTTPS on 127.0.0.1, its CA made with
// openssl in a temp dir) and a namespaceSelector that keeps it to this
// test's namespace, since the control plane is every test's. On both ends of
// the Kubernetes range (ADR 21), each with its own kubectl, which applies each
// resource of a table as a user would, with and without --dry-run=server, and
// prints what the API server answered.
import { expect } from "chai";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse, stringify } from "yaml";
import type { KubeObject } from "../../src/api/hook.js";
import { API_VERSION, KIND } from "../../src/api/schema.js";
import { admit } from "../../src/admit.js";
import { syncContext } from "../support/harness.js";
import { codeBlocks, docSection } from "../support/tools.js";
import { freePort } from "../net.js";
import { POD_RULE_ROWS } from "../unit/children/pod-rules-rows.js";
import { withModels } from "../unit/children/pod-policy-sync.js";
import { msg } from "../../src/messages.js";
import { stopProcess } from "./cluster.js";
import {
  crdWithConversion,
  makeCertificates,
  putCrd,
  RESOURCE,
  root,
  startHook,
  V1,
  type Crd,
} from "./conversion-hook.js";
import { CRD_FILE } from "../../src/api/crd-file.js";
import { restrictedNamespace, waitFor } from "./kube.js";
import { Metacontroller } from "./metacontroller.js";
import { cluster, endTitle, ENDS } from "./setup.js";

const NS = "llsd-admission";
const SELECTOR = { "llsd-test/admission": "on" };
const VWC_API = "admissionregistration.k8s.io/v1";
const VWCS = "validatingwebhookconfigurations";
const VWC_NAME = "llsd-hook-admission-test";
const COMPONENT = "manifests/components/admission/validatingwebhookconfiguration.yaml";

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

const said = (r: Run) => `exit ${r.status}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`;

const resource = (name: string, spec: unknown, metadata: Record<string, unknown> = {}) => ({
  apiVersion: API_VERSION,
  kind: KIND,
  metadata: { name, ...metadata },
  spec,
});

/** The problem lines the hook's check gives `obj`, read from the pure function itself. */
function problemsOf(obj: ReturnType<typeof resource>): string[] {
  const review = {
    apiVersion: "admission.k8s.io/v1",
    kind: "AdmissionReview",
    request: {
      uid: "u",
      resource: { group: "llamastack.io", version: "v1alpha2", resource: RESOURCE },
      operation: "CREATE",
      namespace: NS,
      object: { ...obj, metadata: { ...obj.metadata, namespace: NS } },
    },
  };
  return admit(review, syncContext()).response.status?.message.split("\n") ?? [];
}

const BASE = {
  distribution: { name: "starter", release: "1.5.0" },
  providers: { inference: [{ provider: "vllm", endpoint: "http://vllm.models.svc:8000/v1" }] },
};

/** Each row: a spec the CRD's schema admits and the hook refuses, and the field it names. */
const INVALID: { name: string; spec: unknown; field: string }[] = [
  {
    name: "an unknown provider type",
    spec: { ...BASE, providers: { inference: [{ provider: "vlm", endpoint: "http://v:8000" }] } },
    field: "spec.providers.inference[0].provider",
  },
  {
    name: "an unknown settings key",
    spec: {
      ...BASE,
      providers: {
        inference: [
          { provider: "vllm", endpoint: "http://v:8000/v1", settings: { tls_verfy: false } },
        ],
      },
    },
    field: "spec.providers.inference[0].settings.tls_verfy",
  },
  {
    name: "a model naming a provider that does not exist",
    spec: { ...BASE, resources: { models: [{ name: "m", provider: "nosuch" }] } },
    field: "spec.resources.models[0].provider",
  },
  {
    name: "an API the release removed",
    spec: { ...BASE, providers: { ...BASE.providers, safety: [{ provider: "llama-guard" }] } },
    field: "spec.providers.safety",
  },
  ...POD_RULE_ROWS.map((row) => ({
    name: `a pod shape: ${row.name}`,
    spec: { ...BASE, workload: row.workload },
    field: row.problem.slice(0, row.problem.indexOf(": ")),
  })),
  // The confused-deputy rule (ADR 19): what Pod Security's baseline level forbids.
  {
    name: "the confused-deputy rule: a hostPath volume",
    spec: { ...BASE, workload: withModels({ hostPath: { path: "/var/lib" } }).workload },
    field: "spec.workload.overrides.volumes[1]",
  },
  {
    name: "the confused-deputy rule: an unconfined AppArmor annotation",
    spec: {
      ...BASE,
      workload: {
        overrides: {
          podAnnotations: {
            "container.apparmor.security.beta.kubernetes.io/llama-stack": "unconfined",
          },
        },
      },
    },
    field: "spec.workload.overrides.podAnnotations",
  },
];

for (const end of ENDS)
  describe(`${endTitle(end)}: the admission webhook on a real kube-apiserver`, function () {
    this.timeout(180_000);
    const dir = mkdtempSync(join(tmpdir(), "llsd-admission-"));
    let hook: ReturnType<typeof startHook> | undefined;
    let port = 0;
    let apiServerPort = 0;
    let metricsPort = 0;
    const kube = () => cluster(end).kube;
    /** A HOME of kubectl's own, for its discovery cache (never the checkout's or the user's). */
    const HOME = mkdtempSync(join(tmpdir(), "llsd-admission-home-"));

    /** The end's own kubectl (one minor of skew at most) in NS, `input` on stdin. */
    function run(args: string[], input?: string, cwd: string = HOME): Run {
      const r = spawnSync(cluster(end).kubectl, [...args, "-n", NS], {
        input,
        cwd,
        encoding: "utf8",
        env: { PATH: process.env["PATH"] ?? "", HOME, KUBECONFIG: cluster(end).kubeconfig },
        timeout: 60_000,
      });
      return { status: r.status, stdout: r.stdout, stderr: r.stderr };
    }

    const apply = (obj: unknown, dryRun = false) =>
      run(["apply", ...(dryRun ? ["--dry-run=server"] : []), "-f", "-"], stringify(obj));

    /** The component's webhook, pointed at the hook on 127.0.0.1 and kept to NS. */
    function webhookConfiguration(): KubeObject {
      const shipped = parse(readFileSync(join(root, COMPONENT), "utf8")) as KubeObject & {
        webhooks: Record<string, unknown>[];
      };
      const ca = readFileSync(join(dir, "ca.crt")).toString("base64");
      return {
        ...shipped,
        metadata: { ...shipped.metadata, name: VWC_NAME, annotations: {} },
        webhooks: shipped.webhooks.map((w) => ({
          ...w,
          clientConfig: { url: `https://127.0.0.1:${apiServerPort}/validate`, caBundle: ca },
          namespaceSelector: { matchLabels: SELECTOR },
        })),
      };
    }

    async function startTheHook(): Promise<void> {
      metricsPort = await freePort();
      hook = startHook(dir, { port, apiServerPort, metricsPort });
      const started = hook;
      await waitFor(
        "the hook to listen",
        async () => (started.log().includes("llsd-hook listening") ? true : undefined),
        60_000,
      );
    }

    before(async () => {
      const ns = restrictedNamespace(NS);
      await kube().mustCreate("v1", "namespaces", {
        ...ns,
        metadata: { ...ns.metadata, labels: { ...ns.metadata.labels, ...SELECTOR } },
      });
      // Stored before the webhook exists: a resource a newer hook would refuse, held by a finalizer.
      await kube().mustCreate(
        API_VERSION,
        RESOURCE,
        resource("stored-invalid", INVALID[0]?.spec, {
          namespace: NS,
          finalizers: ["llsd-test/hold"],
        }),
      );
      makeCertificates(dir);
      port = await freePort();
      apiServerPort = await freePort();
      await startTheHook();
      await kube().mustCreate(VWC_API, VWCS, webhookConfiguration());
      // The API server's webhook informer picks the configuration up shortly after it is created.
      await waitFor(
        "the webhook to be called",
        async () =>
          apply(resource("probe", INVALID[0]?.spec), true).status !== 0 ? true : undefined,
        60_000,
      );
    });

    after(async () => {
      await kube().remove(VWC_API, VWCS, undefined, VWC_NAME);
      if (hook !== undefined) await stopProcess(hook.proc);
      for (const obj of await kube().list(API_VERSION, RESOURCE, NS)) {
        await kube().patch(
          API_VERSION,
          RESOURCE,
          NS,
          obj.metadata.name,
          { metadata: { finalizers: null } },
          "application/merge-patch+json",
        );
        await kube().remove(API_VERSION, RESOURCE, NS, obj.metadata.name);
      }
      await kube().remove("v1", "namespaces", undefined, NS);
      rmSync(dir, { recursive: true, force: true });
      rmSync(HOME, { recursive: true, force: true });
    });

    describe("refuses at apply time what the status would report as an invalid spec", () => {
      it("the refusal docs/operations/admission.md shows, as kubectl prints it", () => {
        const section = docSection("docs/operations/admission.md", "## What a refusal looks like");
        const [example] = codeBlocks(section, "yaml");
        const [command = "", ...printed] = (codeBlocks(section, "console")[0] ?? "").split("\n");
        expect(command).to.equal("$ kubectl apply -f llama.yaml");
        const work = mkdtempSync(join(tmpdir(), "llsd-admission-doc-"));
        writeFileSync(join(work, "llama.yaml"), example ?? "");
        const r = run(["apply", "-f", "llama.yaml"], undefined, work);
        rmSync(work, { recursive: true, force: true });
        expect(r.status, said(r)).to.equal(1);
        // kubectl ends its first line with a space, which the page does not keep.
        expect(r.stderr.replace(/ +$/gm, "")).to.equal(printed.join("\n"));
      });

      for (const row of INVALID)
        for (const dryRun of [true, false])
          it(`${row.name}${dryRun ? " (--dry-run=server)" : ""}: the field and the fix`, () => {
            const obj = resource(`bad-${INVALID.indexOf(row)}`, row.spec);
            const lines = problemsOf(obj);
            expect(lines.map((l) => l.slice(0, l.indexOf(": ")))).to.include(row.field);
            const r = apply(obj, dryRun);
            expect(r.status, said(r)).to.equal(1);
            expect(r.stderr, said(r)).to.include(
              `The LlamaStackDistribution "${obj.metadata.name}" is invalid:`,
            );
            // One line after the name for one cause, a "* " line for each of several.
            for (const line of lines) expect(r.stderr, said(r)).to.include(line);
            expect(r.stdout).to.equal("");
          });
    });

    /**
     * The hook's /validate calls so far, from its metrics: counted as each answer
     * is sent, so before the API server answers kubectl (its log is read later).
     */
    async function validateCalls(): Promise<number> {
      const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
      return Number(/^llsd_hook_validate_duration_seconds_count (\d+)$/m.exec(text)?.[1]);
    }

    const stored = async (name: string) => {
      const obj = await kube().get(API_VERSION, RESOURCE, NS, name);
      if (obj === undefined) throw new Error(`no ${name}`);
      return obj as KubeObject & { spec: unknown };
    };

    describe("admits", () => {
      it("a valid resource whose Secret does not exist yet (examples/minimal.yaml as written)", () => {
        const r = run(["apply", "-f", join(root, "examples", "minimal.yaml")]);
        expect(r.status, said(r)).to.equal(0);
        expect(r.stdout).to.equal("llamastackdistribution.llamastack.io/llama created\n");
        expect(r.stderr).to.equal("");
      });

      it("a resource with warnings, each printed as kubectl's Warning: line", () => {
        const obj = resource("warned", {
          ...BASE,
          workload: { podDisruptionBudget: { minAvailable: 1 } },
        });
        const r = apply(obj);
        expect(r.status, said(r)).to.equal(0);
        expect(r.stderr.split("\n").filter((l) => l !== "")).to.deep.equal([
          "Warning: PdbSkipped: spec.workload.podDisruptionBudget: no PodDisruptionBudget is created: with 1 replica(s) it would allow no disruption and block node drains; raise replicas or relax the budget",
        ]);
      });

      it("a volume Pod Security's restricted level forbids, as the RestrictedPodField warning", () => {
        const obj = resource("restricted", {
          ...BASE,
          workload: withModels({ nfs: { server: "nas", path: "/m" } }).workload,
        });
        const r = apply(obj);
        expect(r.status, said(r)).to.equal(0);
        const warned = msg.podFieldWarned(
          "volume models uses volume type nfs",
          "restrictedVolumes",
          msg.podFixVolume(),
          "nfs",
        );
        expect(r.stderr.split("\n").filter((l) => l !== "")).to.deep.equal([
          `Warning: RestrictedPodField: spec.workload.overrides.volumes[1]: ${warned}`,
        ]);
      });

      it("a new label on a resource the hook would refuse, without calling the hook (matchConditions)", async () => {
        const calls = await validateCalls();
        expect(calls).to.be.above(0);
        const r = run(["label", "llamastackdistribution", "stored-invalid", "team=a"]);
        expect(r.status, said(r)).to.equal(0);
        expect((await stored("stored-invalid")).metadata.labels).to.deep.equal({ team: "a" });
        // Any call of the webhook's is in the log before the API server answers kubectl.
        expect(await validateCalls()).to.equal(calls);
        const changed = apply(resource("warned", BASE), true);
        expect(changed.status, said(changed)).to.equal(0);
        expect(await validateCalls()).to.equal(calls + 1);
      });
    });

    describe("an invalid edit of a running resource", () => {
      let mc: Metacontroller;
      const SPEC = {
        ...BASE,
        providers: {
          inference: [
            {
              provider: "vllm",
              endpoint: "http://vllm.models.svc:8000/v1",
              apiKey: { secretKeyRef: { name: "vllm-creds", key: "token" } },
            },
          ],
        },
      };

      before(async () => {
        mc = new Metacontroller(kube(), `https://127.0.0.1:${port}`, {
          webhook: {
            caBundle: readFileSync(join(dir, "ca.crt"), "utf8"),
            authorization: "Bearer a-token-the-api-server-does-not-send",
          },
        });
        await kube().mustCreate("v1", "secrets", {
          apiVersion: "v1",
          kind: "Secret",
          metadata: { name: "vllm-creds", namespace: NS },
          stringData: { token: "t0ken" },
        });
        const r = apply(resource("running", SPEC));
        expect(r.status, said(r)).to.equal(0);
        await mc.reconcile(NS, "running");
      });

      const childVersions = async () =>
        Object.fromEntries(
          (await mc.children(await stored("running"))).map((c) => [
            `${c.kind}/${c.metadata.name}`,
            c.metadata.resourceVersion,
          ]),
        );

      it("is refused, and the resource and its children are unchanged", async () => {
        const before = await childVersions();
        expect(Object.keys(before)).to.include.members([
          "Deployment/running",
          "Service/running-service",
          "ServiceAccount/running-sa",
        ]);
        expect(Object.keys(before).some((k) => k.startsWith("ConfigMap/running-config-"))).to.equal(
          true,
        );
        const parent = await stored("running");
        const edit = resource("running", INVALID[0]?.spec);
        const r = apply(edit);
        expect(r.status, said(r)).to.equal(1);
        expect(r.stderr).to.include(problemsOf(edit)[0]);
        const after = await stored("running");
        expect(after.spec).to.deep.equal(parent.spec);
        expect(after.metadata.generation).to.equal(parent.metadata.generation);
        await mc.reconcile(NS, "running");
        expect(await childVersions()).to.deep.equal(before);
      });
    });

    describe("a v1alpha1 object, with the v1alpha1 component", () => {
      const base = parse(readFileSync(join(root, CRD_FILE), "utf8")) as Crd;
      const v1alpha1 = (name: string, server: unknown) => ({
        apiVersion: V1,
        kind: KIND,
        metadata: { name },
        spec: { replicas: 1, server },
      });

      before(async () => {
        const ca = readFileSync(join(dir, "ca.crt"));
        await putCrd(
          crdWithConversion(base, `https://127.0.0.1:${apiServerPort}/convert`, ca).spec,
          kube(),
        );
        await waitFor(
          "v1alpha1 to be served",
          async () => {
            const probe = v1alpha1("probe", { distribution: { name: "starter" } });
            return apply(probe, true).status === 0 ? true : undefined;
          },
          60_000,
        );
      });

      after(() => putCrd({ ...base.spec, conversion: { strategy: "None" } }, kube()));

      it("is converted by the API server, then checked", () => {
        const valid = apply(v1alpha1("old-style", { distribution: { name: "starter" } }));
        expect(valid.status, said(valid)).to.equal(0);
        expect(valid.stdout).to.equal("llamastackdistribution.llamastack.io/old-style created\n");
        const invalid = apply(
          v1alpha1("old-bad", { distribution: { name: "no-such-distribution" } }),
        );
        expect(invalid.status, said(invalid)).to.equal(1);
        // The field as v1alpha2 names it, as the status does.
        expect(invalid.stderr).to.match(
          /The LlamaStackDistribution "old-bad" is invalid: spec\.distribution\.name: distribution no-such-distribution is not known to llsd-hook; /,
        );
        const log = hook?.log() ?? "";
        expect(log).to.match(/"path":"\/convert","status":200/);
      });
    });

    describe("the hook stopped: failurePolicy Fail", () => {
      before(async () => {
        const r = apply(resource("kept", BASE));
        expect(r.status, said(r)).to.equal(0);
        if (hook !== undefined) await stopProcess(hook.proc);
      });

      it("refuses a new resource and a spec change, saying the API server could not call the hook", () => {
        for (const r of [
          apply(resource("new", BASE)),
          apply(resource("kept", { ...BASE, workload: { workers: 2 } }), true),
        ]) {
          expect(r.status, said(r)).to.equal(1);
          expect(r.stderr, said(r)).to.match(
            /Internal error occurred: failed calling webhook "llsd-hook\.llamastack\.io": failed to call webhook: Post "https:\/\/127\.0\.0\.1:\d+\/validate\?timeout=20s": .*connection refused/,
          );
        }
      });

      it("relabels and annotates, also a resource the hook would refuse, and a GitOps tool applies its labels", () => {
        for (const r of [
          run(["label", "llamastackdistribution", "kept", "stored-invalid", "tier=gold"]),
          run(["annotate", "llamastackdistribution", "stored-invalid", "example.com/owner=team-a"]),
          run(
            ["apply", "--server-side", "--field-manager=argocd-controller", "-f", "-"],
            stringify(
              resource("stored-invalid", INVALID[0]?.spec, {
                labels: { "app.kubernetes.io/instance": "llama-apps" },
              }),
            ),
          ),
        ])
          expect(r.status, said(r)).to.equal(0);
      });

      it("deletes: a finalizer is removed from a resource being deleted, which then goes", async () => {
        let r = run(["delete", "llamastackdistribution", "stored-invalid", "--wait=false"]);
        expect(r.status, said(r)).to.equal(0);
        expect((await stored("stored-invalid")).metadata).to.have.property("deletionTimestamp");
        r = run([
          "patch",
          "llamastackdistribution",
          "stored-invalid",
          "--type=json",
          "-p",
          '[{"op":"remove","path":"/metadata/finalizers"}]',
        ]);
        expect(r.status, said(r)).to.equal(0);
        await waitFor("stored-invalid to be gone", async () =>
          (await kube().get(API_VERSION, RESOURCE, NS, "stored-invalid")) === undefined
            ? true
            : undefined,
        );
        r = run(["delete", "llamastackdistribution", "kept"]);
        expect(r.status, said(r)).to.equal(0);
      });
    });
  });
