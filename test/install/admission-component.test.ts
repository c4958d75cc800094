// The admission component (manifests/components/admission), rendered by the
// pinned kubectl's kustomize through examples/admission exactly as
// docs/operations/admission.md installs it: the HTTPS install plus the
// ValidatingWebhookConfiguration and one ingress rule on the hook's
// NetworkPolicy (labelled as opening the api-server port), nothing else
// changed; and beside the v1alpha1 component, the rule there once.
import { expect } from "chai";
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";
import { kubectl, root } from "../support/tools.js";

type Obj = Record<string, unknown> & { kind: string; metadata: { name: string } };

function kustomize(tree: string, dir: string): Map<string, Obj> {
  const text = execFileSync(kubectl(), ["kustomize", dir], { cwd: tree, encoding: "utf8" });
  const objects = parseAllDocuments(text).map((d) => d.toJS() as Obj);
  return new Map(objects.map((o) => [`${o.kind}/${o.metadata.name}`, o]));
}

const VWC = "ValidatingWebhookConfiguration/llsd-hook";
const NP = "NetworkPolicy/llsd-hook";
const ingress = (o: Obj | undefined) => (o?.["spec"] as { ingress: unknown[] }).ingress;
/** The API server's addresses: the private ranges, never the internet (docs/conversion.md). */
const API_SERVER_RULE = {
  from: ["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10", "fc00::/7"].map(
    (cidr) => ({ ipBlock: { cidr } }),
  ),
  ports: [{ port: "api-server", protocol: "TCP" }],
};

/** The NetworkPolicy's metadata with the label that keeps the other component from opening the port again. */
const withLabel = (np: Obj | undefined) => ({
  ...np?.metadata,
  labels: {
    ...(np?.metadata as { labels?: Record<string, string> } | undefined)?.labels,
    "llamastack.io/api-server-port": "open",
  },
});

describe("the admission component, rendered by kustomize", function () {
  this.timeout(60_000);
  let tree = "";

  before(() => {
    tree = mkdtempSync(join(tmpdir(), "llsd-admission-"));
    for (const dir of ["manifests", "metacontroller", "examples/https", "examples/admission"])
      cpSync(join(root, dir), join(tree, dir), { recursive: true });
    writeFileSync(join(tree, "examples/https/token.txt"), "test-token\n");
  });
  after(() => rmSync(tree, { recursive: true, force: true }));

  it("adds the webhook configuration and the API server's ingress to the HTTPS install, and nothing else", () => {
    const base = kustomize(tree, "examples/https");
    const withComponent = kustomize(tree, "examples/admission");
    expect([...withComponent.keys()].sort()).to.deep.equal([...base.keys(), VWC].sort());
    for (const [id, obj] of withComponent)
      if (id !== VWC && id !== NP) expect(obj, id).to.deep.equal(base.get(id));
    expect(ingress(withComponent.get(NP))).to.deep.equal([
      ...ingress(base.get(NP)),
      API_SERVER_RULE,
    ]);
    expect(withComponent.get(NP)?.metadata).to.deep.equal(withLabel(base.get(NP)));

    expect(withComponent.get(VWC)).to.deep.equal({
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingWebhookConfiguration",
      metadata: {
        name: "llsd-hook",
        labels: {
          "app.kubernetes.io/name": "llsd-hook",
          "app.kubernetes.io/part-of": "llama-stack",
        },
        annotations: { "cert-manager.io/inject-ca-from": "llsd-hook/llsd-hook-tls" },
      },
      webhooks: [
        {
          name: "llsd-hook.llamastack.io",
          admissionReviewVersions: ["v1"],
          sideEffects: "None",
          failurePolicy: "Fail",
          timeoutSeconds: 20,
          matchPolicy: "Equivalent",
          // The Service and port of examples/https, the API server's port, where /convert and /validate are served.
          clientConfig: {
            service: { namespace: "llsd-hook", name: "llsd-hook", port: 9443, path: "/validate" },
          },
          rules: [
            {
              apiGroups: ["llamastack.io"],
              apiVersions: ["v1alpha2"],
              operations: ["CREATE", "UPDATE"],
              resources: ["llamastackdistributions"],
              scope: "Namespaced",
            },
          ],
          matchConditions: [
            {
              name: "created-or-spec-changed",
              expression:
                "request.operation == 'CREATE' || !has(oldObject.spec) || !has(object.spec) || object.spec != oldObject.spec",
            },
            { name: "not-being-deleted", expression: "!has(object.metadata.deletionTimestamp)" },
          ],
        },
      ],
    });
  });

  it("goes beside the v1alpha1 component: both webhooks, and the API server's addresses opened once", () => {
    const both = join(tree, "examples/both");
    mkdirSync(both);
    writeFileSync(
      join(both, "kustomization.yaml"),
      [
        "apiVersion: kustomize.config.k8s.io/v1beta1",
        "kind: Kustomization",
        "resources: [../https]",
        "components: [../../manifests/components/v1alpha1, ../../manifests/components/admission]",
        "",
      ].join("\n"),
    );
    const base = kustomize(tree, "examples/https");
    const rendered = kustomize(tree, "examples/both");
    expect(rendered.has(VWC)).to.equal(true);
    const crd = rendered.get("CustomResourceDefinition/llamastackdistributions.llamastack.io");
    expect((crd?.["spec"] as { conversion: { strategy: string } }).conversion.strategy).to.equal(
      "Webhook",
    );
    expect(ingress(rendered.get(NP))).to.deep.equal([...ingress(base.get(NP)), API_SERVER_RULE]);
    expect(rendered.get(NP)?.metadata).to.deep.equal(withLabel(base.get(NP)));
  });
});
