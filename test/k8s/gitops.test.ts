// docs/operations/gitops.md as a GitOps tool would take it: every YAML block of
// the page is parsed; Argo CD's Application and Flux's GitRepository and
// Kustomizations are applied to the real API server as server-side dry runs
// with strict field validation and no warning, against the tools' own CRDs
// (Argo CD v3.5.7, kustomize-controller and source-controller v1.9.6, from
// their Go modules: scripts/third-party-crds.sh); the recipes say what the page
// promises (server-side apply, the install before the resources, waiting on
// health); and the Argo CD kustomization, built with the suite's kubectl
// (this repository's manifests/ standing for the remote base at its tag),
// gives the install with your image and the resource in the later wave, which
// the API server accepts the same way.
import { expect } from "chai";
import { execFileSync } from "node:child_process";
import type { Server } from "node:http";
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse, parseAllDocuments, stringify } from "yaml";
import type { KubeObject } from "../../src/api/hook.js";
import { CRD_FILE } from "../../src/api/crd-file.js";
import { API_VERSION, KIND, PLURAL } from "../../src/api/schema.js";
import { compositeControllerCrd } from "../install/compositecontroller-schema.js";
import {
  argocdTracking,
  codeBlocks,
  docSection,
  root,
  thirdPartyCrdDir,
} from "../support/tools.js";
import { copyTree, describeRun, gone, kubectlEnv, runLines, warnings } from "./install-run.js";
import { restrictedNamespace } from "./kube.js";
import { Metacontroller } from "./metacontroller.js";
import { serveHook } from "./serve-hook.js";
import { cluster } from "./setup.js";

const PAGE = "docs/operations/gitops.md";
const CRD_API = "apiextensions.k8s.io/v1";
const IMAGE = "ghcr.io/llsd-hook/llsd-hook";
/** Where the page's objects and the install go; made for the dry runs, deleted after. */
const NAMESPACES = ["argocd", "flux-system", "llama", "llsd-hook"];

type Obj = KubeObject & { spec?: Record<string, unknown> };

/** Every document of every yaml block of the page. */
function pageDocuments(): Obj[] {
  return codeBlocks(docSection(PAGE, "# GitOps: Argo CD and Flux"), "yaml").flatMap((block) =>
    parseAllDocuments(block).map((d) => {
      expect(d.errors, block).to.deep.equal([]);
      return d.toJS() as Obj;
    }),
  );
}

const ofKind = (docs: Obj[], apiVersion: RegExp, kind: string) =>
  docs.filter((d) => apiVersion.test(d.apiVersion) && d.kind === kind);

function one<T>(list: T[], what: string): T {
  expect(list, what).to.have.length(1);
  return list[0] as T;
}

describe("GitOps: the page's Argo CD and Flux YAML on the real API server", function () {
  this.timeout(180_000);
  const docs = pageDocuments();
  let work: string;
  let env: Record<string, string>;
  let gitopsCrds: string[] = [];

  before(async () => {
    const kube = cluster().kube;
    work = mkdtempSync(join(tmpdir(), "llsd-gitops-"));
    env = kubectlEnv(work, cluster().kubeconfig, cluster().kubectl);
    const dir = join(thirdPartyCrdDir(), "gitops");
    gitopsCrds = readdirSync(dir)
      .filter((f) => f.endsWith(".yaml"))
      .flatMap((f) =>
        parseAllDocuments(readFileSync(join(dir, f), "utf8")).map(
          (d) => (d.toJS() as KubeObject).metadata.name,
        ),
      );
    const setup = runLines(
      [
        `kubectl apply --server-side -f ${dir}`,
        `kubectl wait --for=condition=Established --timeout=60s ${gitopsCrds.map((c) => `crd/${c}`).join(" ")}`,
        ...NAMESPACES.map((ns) => `kubectl create namespace ${ns}`),
      ],
      work,
      env,
    );
    expect(setup.status, describeRun(setup)).to.equal(0);
    const cc = compositeControllerCrd() as KubeObject;
    const res = await kube.apply(CRD_API, "customresourcedefinitions", cc, {
      fieldManager: "llsd-test",
      force: true,
    });
    expect(res.status, JSON.stringify(res.body)).to.be.below(300);
    const established = runLines(
      [`kubectl wait --for=condition=Established --timeout=60s crd/${cc.metadata.name}`],
      work,
      env,
    );
    expect(established.status, describeRun(established)).to.equal(0);
  });

  after(async () => {
    const kube = cluster().kube;
    const crds = [...gitopsCrds, (compositeControllerCrd() as KubeObject).metadata.name];
    for (const name of crds)
      await kube.remove(CRD_API, "customresourcedefinitions", undefined, name);
    for (const ns of NAMESPACES) await kube.remove("v1", "namespaces", undefined, ns);
    await gone(kube, "v1", "namespaces", NAMESPACES);
    await gone(kube, CRD_API, "customresourcedefinitions", crds);
    rmSync(work, { recursive: true, force: true });
  });

  it("has Argo CD's Application, a kustomization, a resource, and Flux's GitRepository and two Kustomizations", () => {
    expect(docs.map((d) => `${d.apiVersion} ${d.kind}`)).to.deep.equal([
      "argoproj.io/v1alpha1 Application",
      "kustomize.config.k8s.io/v1beta1 Kustomization",
      `${API_VERSION} ${KIND}`,
      "source.toolkit.fluxcd.io/v1 GitRepository",
      "kustomize.toolkit.fluxcd.io/v1 Kustomization",
      "kustomize.toolkit.fluxcd.io/v1 Kustomization",
    ]);
  });

  it("server-side, because client-side apply's annotation (256 KiB) holds the CRD with little to spare, and not with the v1alpha1 component", () => {
    const LIMIT = 256 * 1024;
    const tree = join(work, "client-side");
    copyTree(tree, ["manifests"]);
    mkdirSync(join(tree, "crd"));
    copyFileSync(join(tree, CRD_FILE), join(tree, "crd", "crd.yaml"));
    writeFileSync(
      join(tree, "crd", "kustomization.yaml"),
      stringify({
        apiVersion: "kustomize.config.k8s.io/v1beta1",
        kind: "Kustomization",
        resources: ["crd.yaml"],
      }),
    );
    mkdirSync(join(tree, "crd-v1alpha1"));
    writeFileSync(
      join(tree, "crd-v1alpha1", "kustomization.yaml"),
      stringify({
        apiVersion: "kustomize.config.k8s.io/v1beta1",
        kind: "Kustomization",
        resources: ["../crd"],
        components: ["../manifests/components/v1alpha1"],
      }),
    );
    const jsonBytes = (dir: string) => {
      const built = runLines([`kubectl kustomize ${dir}`], tree, env);
      expect(built.status, describeRun(built)).to.equal(0);
      return Buffer.byteLength(JSON.stringify(parseAllDocuments(built.stdout)[0]?.toJS()));
    };
    const plain = jsonBytes("crd");
    const withV1alpha1 = jsonBytes("crd-v1alpha1");
    console.log(
      `    the CRD as JSON: ${plain} bytes, ${withV1alpha1} with the v1alpha1 component (the annotation limit: ${LIMIT})`,
    );
    expect(plain).to.be.below(LIMIT);
    expect(withV1alpha1).to.be.above(LIMIT);
    // kubectl apply without --server-side writes the whole object into an annotation.
    const refused = runLines(["kubectl apply --dry-run=server -k crd-v1alpha1"], tree, env);
    expect(refused.status, describeRun(refused)).to.not.equal(0);
    expect(refused.stderr).to.match(
      /metadata\.annotations: Too long: (must have at most|may not be more than) 262144 bytes/,
    );
    const serverSide = runLines(
      ["kubectl apply --server-side --force-conflicts --dry-run=server -k crd-v1alpha1"],
      tree,
      env,
    );
    expect(serverSide.status, describeRun(serverSide)).to.equal(0);
  });

  it("the Application, the GitRepository and the Kustomizations: a server-side dry run, strictly validated, without a warning", () => {
    const objects = docs.filter((d) => /argoproj\.io|toolkit\.fluxcd\.io/.test(d.apiVersion));
    expect(objects).to.have.length(4);
    const file = join(work, "objects.yaml");
    writeFileSync(file, objects.map((o) => stringify(o)).join("---\n"));
    const run = runLines([`kubectl apply --server-side --dry-run=server -f ${file}`], work, env);
    expect(run.status, describeRun(run)).to.equal(0);
    expect(warnings(run), describeRun(run)).to.deep.equal([]);
    expect(run.stdout.split("\n").filter((l) => l.endsWith("(server dry run)"))).to.have.length(4);
    // The same command refuses a field the CRD does not know: strict validation is on.
    const typo = { ...objects[0], spec: { ...objects[0]?.spec, syncPolicyy: {} } };
    writeFileSync(file, stringify(typo));
    const refused = runLines(
      [`kubectl apply --server-side --dry-run=server -f ${file}`],
      work,
      env,
    );
    expect(refused.status, describeRun(refused)).to.not.equal(0);
    expect(refused.stderr).to.match(/\.spec\.syncPolicyy: field not declared in schema/);
  });

  it("the recipes say what the page promises: server-side apply, the install first, waiting on health", () => {
    const app = one(ofKind(docs, /^argoproj\.io\//, "Application"), "Application") as Obj & {
      spec: { syncPolicy: { syncOptions: string[] } };
    };
    expect(app.spec.syncPolicy.syncOptions).to.include.members([
      "ServerSideApply=true",
      "SkipDryRunOnMissingResource=true",
    ]);
    const llsd = one(ofKind(docs, /^llamastack\.io\//, KIND), "resource");
    expect(llsd.metadata.annotations?.["argocd.argoproj.io/sync-wave"]).to.equal("1");

    const [install, resources] = ofKind(
      docs,
      /^kustomize\.toolkit\.fluxcd\.io\//,
      "Kustomization",
    ) as (Obj & {
      spec: {
        path: string;
        wait?: boolean;
        dependsOn?: { name: string }[];
        images?: { name: string }[];
      };
    })[];
    expect(install?.spec.path).to.equal("./manifests");
    expect(install?.spec.wait).to.equal(true);
    expect(install?.spec.images?.map((i) => i.name)).to.deep.equal([IMAGE]);
    expect(resources?.spec.dependsOn).to.deep.equal([{ name: install?.metadata.name }]);
    expect(resources?.spec.wait).to.equal(true);
  });

  it("the Argo CD kustomization builds the install with your image and the resource in wave 1, which a server-side dry run accepts", () => {
    const kustomization = one(
      ofKind(docs, /^kustomize\.config\.k8s\.io\//, "Kustomization"),
      "kustomization",
    ) as Obj & { resources: string[]; images: { name: string; newName: string; newTag: string }[] };
    const [remote, local] = kustomization.resources;
    expect(remote, "the install: this repository's manifests/ at a tag").to.match(
      /\.git\/\/manifests\?ref=v\d+\.\d+\.\d+$/,
    );
    expect(local).to.equal("llama.yaml");
    // This repository's manifests/ stands for the remote base at its tag.
    const tree = join(work, "repos");
    copyTree(join(tree, "llsd-hook"), ["manifests", "metacontroller"]);
    const dir = join(tree, "gitops", "llama-stack");
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, "kustomization.yaml"),
      stringify({ ...kustomization, resources: ["../../llsd-hook/manifests", local] }),
    );
    const llsd = one(ofKind(docs, /^llamastack\.io\//, KIND), "resource");
    writeFileSync(join(dir, "llama.yaml"), stringify(llsd));
    const built = runLines(["kubectl kustomize gitops/llama-stack"], tree, env);
    expect(built.status, describeRun(built)).to.equal(0);
    const objects = parseAllDocuments(built.stdout).map((d) => d.toJS() as Obj);
    const image = kustomization.images[0];
    const deployment = objects.find((o) => o.kind === "Deployment") as
      (Obj & { spec: { template: { spec: { containers: { image: string }[] } } } }) | undefined;
    expect(deployment?.spec.template.spec.containers[0]?.image).to.equal(
      `${image?.newName}:${image?.newTag}`,
    );
    expect(objects.some((o) => o.kind === "CustomResourceDefinition")).to.equal(true);
    // The destination namespace, as Argo CD sets it on objects that name none.
    const resource = objects.find((o) => o.kind === KIND);
    expect(resource?.metadata.annotations?.["argocd.argoproj.io/sync-wave"]).to.equal("1");
    if (resource !== undefined) resource.metadata.namespace = "llama";
    const file = join(work, "built.yaml");
    writeFileSync(file, objects.map((o) => stringify(o)).join("---\n"));
    const run = runLines([`kubectl apply --server-side --dry-run=server -f ${file}`], work, env);
    expect(run.status, describeRun(run)).to.equal(0);
    expect(warnings(run), describeRun(run)).to.deep.equal([]);
    expect(run.stdout.split("\n").filter((l) => l.endsWith("(server dry run)"))).to.have.length(
      objects.length,
    );
  });
});

/** What argocd-tracking reports for one tracking method. */
interface Tracked {
  method: string;
  trackingOf: Record<string, string>;
  managed: string[];
  prune: string[];
}

describe("GitOps: Argo CD's resource tracking and an Argo-managed resource's children (Argo CD's own code)", function () {
  this.timeout(180_000);
  const NS = "argo-app";
  // The worst case: the Application and the resource share a name, so the
  // children's app.kubernetes.io/instance is the Application's name.
  const APP = "llama";
  let server: Server;
  let mc: Metacontroller;
  let work: string;
  const kube = () => cluster().kube;

  /** The resource as the Application renders it, with the marks both tracking methods write. */
  const target = (): KubeObject => ({
    apiVersion: API_VERSION,
    kind: KIND,
    metadata: {
      name: APP,
      namespace: NS,
      labels: { "app.kubernetes.io/instance": APP },
      annotations: {
        "argocd.argoproj.io/tracking-id": `${APP}:llamastack.io/${KIND}:${NS}/${APP}`,
      },
    },
    spec: parse(readFileSync(join(root, "examples", "minimal.yaml"), "utf8")).spec,
  });

  function track(): Tracked[] {
    const cp = cluster();
    const out = execFileSync(argocdTracking(), [], {
      input: JSON.stringify({
        server: cp.server,
        token: cp.token,
        caFile: join(cp.dir, "ca.crt"),
        namespace: NS,
        application: APP,
        targets: [target()],
        methods: ["label", "annotation"],
      }),
      encoding: "utf8",
      maxBuffer: 64 * 1024 * 1024,
      // The cache's log (klog) is noise unless the command fails, when it is in the error.
      stdio: ["pipe", "pipe", "pipe"],
    });
    return JSON.parse(out) as Tracked[];
  }

  before(async () => {
    work = mkdtempSync(join(tmpdir(), "llsd-argocd-tracking-"));
    const hook = await serveHook();
    server = hook.server;
    mc = new Metacontroller(kube(), hook.url);
    await kube().mustCreate("v1", "namespaces", restrictedNamespace(NS));
    await kube().mustCreate("v1", "secrets", {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "vllm-creds", namespace: NS },
      stringData: { token: "unused" },
    });
    await kube().mustCreate(API_VERSION, PLURAL, target());
    await mc.reconcile(NS, APP);
  });

  after(async () => {
    await new Promise((resolve) => server?.close(resolve));
    await kube().remove("v1", "namespaces", undefined, NS);
    await gone(kube(), "v1", "namespaces", [NS]);
    rmSync(work, { recursive: true, force: true });
  });

  it("under either method the Application's own objects are the resource alone, and a sync prunes nothing, though under label tracking every child reads as the Application's", async () => {
    const children = (await mc.children((await kube().get(API_VERSION, PLURAL, NS, APP))!)).map(
      (c) => `${c.kind}/${c.metadata.name}`,
    );
    expect(children).to.include.members([`Deployment/${APP}`, `Service/${APP}-service`]);
    const [label, annotation] = track();
    for (const t of [label, annotation]) {
      expect(t?.managed, t?.method).to.deep.equal([`${KIND}/${APP}`]);
      expect(t?.prune, t?.method).to.deep.equal([]);
    }
    // What each method reads on the children: the instance label is the Application's name.
    for (const c of children) {
      expect(label?.trackingOf[c], `label: ${c}`).to.equal(APP);
      expect(annotation?.trackingOf[c] ?? "", `annotation: ${c}`).to.equal("");
    }
  });

  it("a child that loses its owner reference (an orphan) is pruned under label tracking, not under annotation tracking", async () => {
    const service = `${APP}-service`;
    const res = await kube().patch(
      "v1",
      "services",
      NS,
      service,
      [{ op: "remove", path: "/metadata/ownerReferences" }],
      "application/json-patch+json",
    );
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    const [label, annotation] = track();
    expect(label?.managed).to.deep.equal([`${KIND}/${APP}`, `Service/${service}`]);
    expect(label?.prune).to.deep.equal([`Service/${service}`]);
    expect(annotation?.managed).to.deep.equal([`${KIND}/${APP}`]);
    expect(annotation?.prune).to.deep.equal([]);
  });
});
