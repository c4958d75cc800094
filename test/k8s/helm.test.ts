// The Helm chart on a real API server, with helm 4 (test/helm/build.sh) and
// docs/operations/helm.md's command lines as written, run by bash in a copy of
// the tree: a control plane of this test's own (the suite's already has the
// CRD, which a first install must create), with what installing Metacontroller
// and cert-manager's and the Prometheus Operator's CRDs leave. The install is
// of a previous chart whose CRD lacks a field (the chart generated from
// manifests/ with that field taken out); the upgrade to this chart, with
// changed values, HTTPS and the hook's ServiceMonitor, alerts and dashboard on,
// must make the API server take the field and change every object it renders;
// the uninstall must leave the CRD and the resources, and a second install
// adopt the kept CRD.
import { expect } from "chai";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse, stringify } from "yaml";
import type { KubeObject } from "../../src/api/hook.js";
import { API_VERSION, PLURAL } from "../../src/api/schema.js";
import { CRD_FILE } from "../../src/api/crd-file.js";
import { CHART_DIR, generateChart } from "../../scripts/chart/generate.js";
import { compositeControllerCrd } from "../install/compositecontroller-schema.js";
import { helmCommandEnv, helmDocCommand, objectId, runHelm, yamlObjects } from "../install/helm.js";
import { kubectl, root, thirdPartyCrdDir } from "../support/tools.js";
import { startControlPlane, type ControlPlane } from "./cluster.js";
import { copyTree, describeRun, runLines, type Run } from "./install-run.js";
import { waitFor, type Kube } from "./kube.js";

const CRD_API = "apiextensions.k8s.io/v1";
const CRD_NAME = `${PLURAL}.llamastack.io`;
/** The field the previous chart's CRD lacks (a leaf no CEL rule reads). */
const NEW_FIELD = "terminationGracePeriodSeconds";
const TOKEN = "fedcba9876543210fedcba9876543210\n";
/** A create validated as kubectl's --validate=strict asks, and not stored. */
const STRICT_DRY_RUN = { dryRun: "All", fieldValidation: "Strict" };

/** API server warnings, as helm prints them. */
const warned = (run: Run) => run.stderr.split("\n").filter((l) => /warning/i.test(l));

/** Whether every field of `want` is in `live` with the same value (lists item by item). */
function within(want: unknown, live: unknown, at: string, out: string[]): string[] {
  if (Array.isArray(want)) {
    if (!Array.isArray(live) || live.length !== want.length)
      out.push(`${at}: ${JSON.stringify(live)}`);
    else want.forEach((w, i) => within(w, live[i], `${at}[${i}]`, out));
  } else if (typeof want === "object" && want !== null) {
    if (typeof live !== "object" || live === null) out.push(`${at}: ${JSON.stringify(live)}`);
    else
      for (const [k, v] of Object.entries(want))
        within(v, (live as Record<string, unknown>)[k], `${at}.${k}`, out);
  } else if (want !== live) out.push(`${at}: ${JSON.stringify(live)}, not ${JSON.stringify(want)}`);
  return out;
}

/** The resource (plural) of a kind the chart installs. */
function resourceOf(o: KubeObject): string {
  const special: Record<string, string> = {
    NetworkPolicy: "networkpolicies",
    PodDisruptionBudget: "poddisruptionbudgets",
  };
  return special[o.kind] ?? `${o.kind.toLowerCase()}s`;
}

/** A LlamaStackDistribution that sets the field the previous CRD lacks. */
const parent = (name: string): KubeObject => ({
  apiVersion: API_VERSION,
  kind: "LlamaStackDistribution",
  metadata: { name, namespace: "default" },
  spec: {
    distribution: { name: "starter" },
    providers: { inference: [{ provider: "vllm", endpoint: "http://vllm.models.svc:8000/v1" }] },
    workload: { [NEW_FIELD]: 90 },
  },
});

describe("the Helm chart on a real API server: install, upgrade across a CRD change, uninstall", function () {
  this.timeout(600_000);
  let cp: ControlPlane;
  let kube: Kube;
  let work: string;
  let tree: string;
  let env: Record<string, string>;

  /** The chart of `root` with the CRD's `workload.<NEW_FIELD>` taken out and version 0.0.9, into `to`. */
  function previousChart(to: string): void {
    const old = join(work, "previous");
    copyTree(old, ["manifests", "metacontroller", "examples", "docs/operations"]);
    cpSync(join(root, "package.json"), join(old, "package.json"));
    const pkg = JSON.parse(readFileSync(join(old, "package.json"), "utf8")) as { version: string };
    writeFileSync(join(old, "package.json"), JSON.stringify({ ...pkg, version: "0.0.9" }));
    const crd = parse(readFileSync(join(old, CRD_FILE), "utf8")) as {
      spec: {
        versions: {
          schema: {
            openAPIV3Schema: {
              properties: Record<
                string,
                { properties: Record<string, { properties: Record<string, unknown> }> }
              >;
            };
          };
        }[];
      };
    };
    const workload =
      crd.spec.versions[0]!.schema.openAPIV3Schema.properties["spec"]!.properties["workload"]!;
    expect(workload.properties, "the CRD's spec.workload").to.have.property(NEW_FIELD);
    delete workload.properties[NEW_FIELD];
    writeFileSync(join(old, CRD_FILE), stringify(crd, { lineWidth: 0 }));
    for (const f of generateChart(old, kubectl()).filter((x) =>
      x.path.startsWith(`${CHART_DIR}/`),
    )) {
      mkdirSync(join(to, f.path, ".."), { recursive: true });
      writeFileSync(join(to, f.path), f.content);
    }
  }

  /** helm template of the chart in `tree` with the values file, as helm upgrade will render it. */
  function rendered(values: string[]): KubeObject[] {
    const run = runHelm(
      ["template", "llsd-hook", join(tree, CHART_DIR), "--namespace", "llsd-hook", ...values],
      env,
    );
    expect(run.status, run.stderr).to.equal(0);
    return yamlObjects(run.stdout);
  }

  /** Every object of `objects` is on the API server with each field as rendered. */
  async function expectInstalled(objects: KubeObject[]): Promise<void> {
    for (const o of objects) {
      const live = await kube.get(
        o.apiVersion,
        resourceOf(o),
        o.metadata.namespace,
        o.metadata.name,
      );
      expect(live, `${objectId(o)} is installed`).to.not.equal(undefined);
      expect(within(o, live, objectId(o), []), objectId(o)).to.deep.equal([]);
      expect(live?.metadata.annotations?.["meta.helm.sh/release-name"], objectId(o)).to.equal(
        "llsd-hook",
      );
    }
  }

  before(async function () {
    work = mkdtempSync(join(tmpdir(), "llsd-helm-"));
    cp = await startControlPlane();
    kube = cp.kube;
    env = helmCommandEnv(work, cp.kubeconfig);
    // What installing Metacontroller, cert-manager's CRDs and the Prometheus Operator's leave.
    await kube.mustCreate("v1", "namespaces", {
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: "metacontroller" },
    });
    const cc = await kube.apply(
      CRD_API,
      "customresourcedefinitions",
      compositeControllerCrd() as KubeObject,
      { fieldManager: "llsd-test", force: true },
    );
    expect(cc.status, JSON.stringify(cc.body)).to.be.below(300);
    const crds = runLines(
      [
        `kubectl apply --server-side -f ${thirdPartyCrdDir()}`,
        "kubectl wait --for=condition=Established --timeout=60s crd --all",
      ],
      work,
      env,
    );
    expect(crds.status, describeRun(crds)).to.equal(0);
    tree = join(work, "tree");
    previousChart(tree);
  });

  after(async () => {
    await cp?.stop();
    if (work !== undefined) rmSync(work, { recursive: true, force: true });
  });

  it("helm install as docs/operations/helm.md writes it installs every object the chart renders, without a warning", async () => {
    const run = runLines([helmDocCommand("## Install", "install")], tree, env);
    expect(run.status, describeRun(run)).to.equal(0);
    expect(warned(run), describeRun(run)).to.deep.equal([]);
    const objects = rendered([]);
    await expectInstalled(objects);
    const ns = await kube.get("v1", "namespaces", undefined, "llsd-hook");
    expect(ns?.metadata.labels).to.include({ "pod-security.kubernetes.io/enforce": "restricted" });
    const crd = await kube.get(CRD_API, "customresourcedefinitions", undefined, CRD_NAME);
    expect(crd?.metadata.annotations).to.include({ "helm.sh/resource-policy": "keep" });
    // The Deployment makes its pods, admitted under Pod Security "restricted".
    await waitFor(
      "the hook's 2 pods",
      async () =>
        (await kube.list("v1", "pods", "llsd-hook", "app.kubernetes.io/name=llsd-hook")).length ===
        2
          ? true
          : undefined,
      60_000,
    );
  });

  it("the installed CRD refuses the field its chart lacks", async () => {
    const res = await kube.create(API_VERSION, PLURAL, parent("before"), STRICT_DRY_RUN);
    expect(res.status, JSON.stringify(res.body)).to.be.within(400, 499);
    expect(JSON.stringify(res.body)).to.include(`unknown field \\"spec.workload.${NEW_FIELD}\\"`);
  });

  it("helm upgrade to this chart with changed values, HTTPS and the monitoring components updates the CRD and every object it renders", async () => {
    rmSync(join(tree, CHART_DIR), { recursive: true });
    cpSync(join(root, CHART_DIR), join(tree, CHART_DIR), { recursive: true });
    const values = {
      replicas: 3,
      metacontroller: { namespace: "mc-system", serviceAccount: "mc-controller" },
      https: { enabled: true, token: { value: TOKEN } },
      // Two components whose objects are of the Prometheus Operator's CRDs, installed above.
      hookServicemonitor: { enabled: true },
      hookMonitoring: { enabled: true },
    };
    writeFileSync(join(tree, "values-llsd-hook.yaml"), stringify(values));
    const run = runLines([helmDocCommand("## Upgrade", "upgrade")], tree, env);
    expect(run.status, describeRun(run)).to.equal(0);
    expect(warned(run), describeRun(run)).to.deep.equal([]);
    await expectInstalled(rendered(["-f", join(tree, "values-llsd-hook.yaml")]));
    const res = await kube.create(API_VERSION, PLURAL, parent("after"), STRICT_DRY_RUN);
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    const token = await kube.get("v1", "secrets", "llsd-hook", "llsd-hook-token");
    expect(
      Buffer.from(
        (token as { data: { token: string } } & KubeObject).data.token,
        "base64",
      ).toString(),
    ).to.equal(TOKEN);
    const list = runLines(["helm list --namespace llsd-hook -o json"], tree, env);
    expect(list.status, describeRun(list)).to.equal(0);
    const [release] = JSON.parse(list.stdout) as {
      revision: string;
      status: string;
      chart: string;
    }[];
    expect(release).to.include({ revision: "2", status: "deployed", chart: "llsd-hook-0.1.0" });
    // Helm keeps each revision, chart and manifest included, in a Secret of at most 1 MiB.
    const record = (await kube.get(
      "v1",
      "secrets",
      "llsd-hook",
      "sh.helm.release.v1.llsd-hook.v2",
    )) as (KubeObject & { data: { release: string } }) | undefined;
    const bytes = Buffer.from(record?.data.release ?? "", "base64").length;
    console.log(
      `[helm] the release record of revision 2: ${(bytes / 1024).toFixed(0)} KiB of the Secret's 1024`,
    );
    expect(bytes).to.be.within(1, 1024 * 1024);
    // Both revisions applied server-side (Helm 4's default, kept by --server-side=auto).
    for (const revision of ["1", "2"]) {
      const status = runLines(
        [`helm status llsd-hook --namespace llsd-hook --revision ${revision} -o json`],
        tree,
        env,
      );
      expect(
        (JSON.parse(status.stdout) as { apply_method?: string }).apply_method,
        `revision ${revision}`,
      ).to.equal("ssa");
    }
  });

  it("helm uninstall removes all but the CRD, which keeps its resources; a new install adopts it", async () => {
    await kube.mustCreate(API_VERSION, PLURAL, parent("kept"));
    const run = runLines([helmDocCommand("## Uninstall", "uninstall")], tree, env);
    expect(run.status, describeRun(run)).to.equal(0);
    expect(run.stdout + run.stderr).to.include(CRD_NAME);
    for (const [apiVersion, resource, ns, name] of [
      ["v1", "namespaces", undefined, "llsd-hook"],
      ["metacontroller.k8s.io/v1alpha1", "compositecontrollers", undefined, "llsd-hook"],
      ["rbac.authorization.k8s.io/v1", "clusterroles", undefined, "metacontroller-llsd-hook"],
      [
        "rbac.authorization.k8s.io/v1",
        "clusterrolebindings",
        undefined,
        "metacontroller-llsd-hook",
      ],
    ] as const)
      await waitFor(
        `${resource} ${name} to go`,
        async () =>
          (await kube.get(apiVersion, resource, ns, name)) === undefined ? true : undefined,
        120_000,
      );
    expect(await kube.get(CRD_API, "customresourcedefinitions", undefined, CRD_NAME)).to.not.equal(
      undefined,
    );
    expect(await kube.get(API_VERSION, PLURAL, "default", "kept")).to.not.equal(undefined);
    const again = runLines([helmDocCommand("## Install", "install")], tree, env);
    expect(again.status, describeRun(again)).to.equal(0);
    expect(warned(again), describeRun(again)).to.deep.equal([]);
    await expectInstalled(rendered([]));
    // A warning of the API server is seen (the checks above could fail): helm prints it.
    const memory = runLines(
      [
        `${helmDocCommand("## Upgrade", "upgrade").replace(/ -f \S+/, "")} --set resources.requests.memory=500m`,
      ],
      tree,
      env,
    );
    expect(memory.status, describeRun(memory)).to.equal(0);
    expect(warned(memory).join("\n")).to.match(/fractional byte value \\?"500m\\?" is invalid/);
  });
});
