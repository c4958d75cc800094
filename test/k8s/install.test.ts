// The README's install, as a GitOps tool or a person would run it: its literal
// `kubectl apply --server-side -k manifests` (and the HTTPS overlay's lines),
// with the kubectl built from the same Kubernetes release as the control plane,
// whose default --validate=strict asks the API server for strict field
// validation. Every object is applied for real, without warnings; the hook's
// own pods are admitted by Pod Security "restricted" (no kubelet runs them).
// Metacontroller stands in as its namespace and the CompositeController CRD
// of test/install/compositecontroller-schema.ts; cert-manager's CRDs come from
// its published module (scripts/third-party-crds.sh). Metacontroller's RBAC is
// checked with a SubjectAccessReview per verb and kind.
import { expect } from "chai";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";
import type { KubeObject } from "../../src/api/hook.js";
import { DEFAULT_IDENTITY, serviceAccountUser } from "../install/metacontroller-identity.js";
import { root, thirdPartyCrdDir } from "../support/tools.js";
import {
  copyTree,
  describeRun,
  httpsCommands,
  installCommand,
  installGone,
  installMetacontroller,
  kubectlEnv,
  mayDo,
  metacontrollerMustNot,
  reviewNeeds,
  runLines,
  thirdPartyCrdLines,
  uninstall,
  warnings,
  type Run,
} from "./install-run.js";
import { cluster, endTitle, ENDS } from "./setup.js";
import { waitFor } from "./kube.js";

const METACONTROLLER = serviceAccountUser(DEFAULT_IDENTITY);
const CC_API = "metacontroller.k8s.io/v1alpha1";

function objectsOf(yamlText: string): KubeObject[] {
  return parseAllDocuments(yamlText)
    .map((d) => d.toJS() as KubeObject | null)
    .filter((o): o is KubeObject => o !== null);
}

for (const end of ENDS) {
  describe(`${endTitle(end)}: install: the README's kubectl apply against the real API server`, function () {
    this.timeout(180_000);
    let work: string;
    let env: Record<string, string>;

    before(async () => {
      const kube = cluster(end).kube;
      work = mkdtempSync(join(tmpdir(), "llsd-install-"));
      env = kubectlEnv(work, cluster(end).kubeconfig, cluster(end).kubectl);
      // The other install test (install-identity.test.ts) may have just deleted them.
      await installGone(kube, ["llsd-hook", "metacontroller"]);
      await installMetacontroller(kube, [DEFAULT_IDENTITY]);
      const established = runLines(
        [
          "kubectl wait --for=condition=Established --timeout=60s crd/compositecontrollers.metacontroller.k8s.io",
        ],
        root,
        env,
      );
      expect(established.status, describeRun(established)).to.equal(0);
    });

    after(async () => {
      await uninstall(cluster(end).kube, ["llsd-hook", "metacontroller"]);
      rmSync(work, { recursive: true, force: true });
    });

    it("kubectl apply --server-side -k manifests applies every object, strictly validated, without a warning", async () => {
      const command = installCommand();
      const run = runLines([command], root, env);
      expect(run.status, describeRun(run)).to.equal(0);
      expect(warnings(run), describeRun(run)).to.deep.equal([]);
      // One "serverside-applied" line per object of the kustomization.
      const rendered = runLines(["kubectl kustomize manifests"], root, env);
      const objects = objectsOf(rendered.stdout);
      expect(objects.length).to.be.greaterThan(8);
      const applied = run.stdout.split("\n").filter((l) => l.endsWith(" serverside-applied"));
      expect(applied, run.stdout).to.have.length(objects.length);
      // The hook's Deployment makes its pods, admitted under Pod Security "restricted".
      const deployment = objects.find((o) => o.kind === "Deployment") as
        (KubeObject & { spec: { replicas: number } }) | undefined;
      const replicas = deployment?.spec.replicas ?? 0;
      expect(replicas).to.be.greaterThan(0);
      const kube = cluster(end).kube;
      await waitFor(
        `the hook's ${replicas} pods to be created`,
        async () => {
          const list = await kube.list(
            "v1",
            "pods",
            "llsd-hook",
            "app.kubernetes.io/name=llsd-hook",
          );
          return list.length === replicas ? list : undefined;
        },
        60_000,
      );
      // Applied again, as a GitOps tool does on every sync: still no warning.
      const again = runLines([command], root, env);
      expect(again.status, describeRun(again)).to.equal(0);
      expect(warnings(again), describeRun(again)).to.deep.equal([]);
    });

    it("the same command fails on a field unknown to a core kind or to the CompositeController, and its warnings are seen", () => {
      const command = installCommand();
      /** A copy of the install tree with one file edited, run with the README's command as a server dry run. */
      const edited = (name: string, file: string, from: string, to: string): Run => {
        const tree = join(work, name);
        copyTree(tree, ["manifests", "metacontroller"]);
        const text = readFileSync(join(tree, file), "utf8");
        expect(text, file).to.include(from);
        writeFileSync(join(tree, file), text.replace(from, to));
        return runLines([`${command} --dry-run=server`], tree, env);
      };
      const typo = edited(
        "typo",
        "manifests/hook/service.yaml",
        "  type: ClusterIP\n",
        "  type: ClusterIP\n  typo: x\n",
      );
      expect(typo.status, describeRun(typo)).to.not.equal(0);
      expect(typo.stderr).to.match(/\.spec\.typo: field not declared in schema/);
      const cc = edited(
        "cc-typo",
        "metacontroller/compositecontroller.yaml",
        "  resyncPeriodSeconds: 300\n",
        "  resyncPeriodSeconds: 300\n  resyncPeriod: 5m\n",
      );
      expect(cc.status, describeRun(cc)).to.not.equal(0);
      expect(cc.stderr).to.match(
        /Kind=CompositeController\): \.spec\.resyncPeriod: field not declared/,
      );
      // Accepted, with a warning from the API server: the check above would fail.
      const warned = edited(
        "warned",
        "manifests/hook/deployment.yaml",
        "memory: 160Mi",
        "memory: 500m",
      );
      expect(warned.status, describeRun(warned)).to.equal(0);
      expect(warnings(warned).join("\n")).to.match(/fractional byte value "500m" is invalid/);
    });

    it("the HTTPS overlay applies over it with cert-manager's CRDs from its published module", async () => {
      const crds = runLines(thirdPartyCrdLines(), root, env);
      expect(crds.status, describeRun(crds)).to.equal(0);
      const tree = join(work, "https");
      copyTree(tree, ["manifests", "metacontroller", "examples/https"]);
      const run = runLines(httpsCommands(), tree, env);
      expect(run.status, describeRun(run)).to.equal(0);
      expect(warnings(run), describeRun(run)).to.deep.equal([]);

      const kube = cluster(end).kube;
      const cc = (await kube.get(
        CC_API,
        "compositecontrollers",
        undefined,
        "llsd-hook",
      )) as unknown as {
        spec: { hooks: Record<string, { webhook: Record<string, unknown> }> };
      };
      for (const name of ["sync", "customize"]) {
        const webhook = cc.spec.hooks[name]?.webhook;
        expect(webhook?.["service"], name).to.include({ protocol: "https", name: "llsd-hook" });
        expect(webhook?.["caBundle"], name).to.deep.equal({
          secretRef: { name: "llsd-hook-tls", namespace: "llsd-hook", key: "ca.crt" },
        });
        expect(webhook?.["path"], name).to.equal(`/${name}`);
      }
      // One token, in the Secret the hook mounts and Metacontroller's webhooks name.
      const token = readFileSync(join(tree, "examples", "https", "token.txt"), "utf8");
      for (const name of ["sync", "customize"])
        expect(cc.spec.hooks[name]?.webhook["authorization"], name).to.deep.equal({
          type: "Bearer",
          secretRef: { name: "llsd-hook-token", namespace: "llsd-hook", key: "token" },
        });
      const secret = (await kube.get(
        "v1",
        "secrets",
        "llsd-hook",
        "llsd-hook-token",
      )) as unknown as {
        data: { token: string };
      };
      expect(Buffer.from(secret.data.token, "base64").toString()).to.equal(token);
      for (const [resource, name] of [
        ["certificates", "llsd-hook-tls"],
        ["certificates", "llsd-hook-ca"],
        ["issuers", "llsd-hook-ca"],
        ["issuers", "llsd-hook-selfsigned"],
      ] as const)
        expect(
          await kube.get("cert-manager.io/v1", resource, "llsd-hook", name),
          name,
        ).to.not.equal(undefined);
    });

    it("Metacontroller's ServiceAccount may do, by SubjectAccessReview, every verb on every child kind and what the parent needs, and no more", async () => {
      const kube = cluster(end).kube;
      const { allowed, denied } = await reviewNeeds(kube, METACONTROLLER);
      expect(denied).to.deep.equal([]);
      expect(allowed.length).to.be.greaterThan(140);

      const granted: string[] = [];
      for (const [verb, g, resource] of metacontrollerMustNot())
        if (await mayDo(kube, METACONTROLLER, verb, g, resource, { namespace: "default" }))
          granted.push(`${verb} ${g}/${resource}`);
      expect(granted).to.deep.equal([]);
      // And another ServiceAccount gets none of it: the binding names Metacontroller's.
      expect(
        await mayDo(
          kube,
          "system:serviceaccount:default:default",
          "create",
          "apps",
          "deployments",
          {
            namespace: "default",
          },
        ),
      ).to.equal(false);
    });
  });
}

// The cert-manager files, so that a stale cache shows up as a plain failure.
describe("install: the third-party CRDs", () => {
  it("are cert-manager's Issuer and Certificate, cert-manager.io/v1, and prometheus-operator's ServiceMonitor and PrometheusRule", () => {
    const names = readdirSync(thirdPartyCrdDir())
      .filter((f) => f.endsWith(".yaml"))
      .flatMap((f) => objectsOf(readFileSync(join(thirdPartyCrdDir(), f), "utf8")))
      .map((o) => o.metadata.name)
      .sort();
    expect(names).to.deep.equal([
      "certificates.cert-manager.io",
      "issuers.cert-manager.io",
      "prometheusrules.monitoring.coreos.com",
      "servicemonitors.monitoring.coreos.com",
    ]);
  });
});
