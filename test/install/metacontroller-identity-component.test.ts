// Metacontroller's namespace and ServiceAccount set in the one place
// (manifests/components/metacontroller-identity/identity.yaml), rendered by the
// pinned kubectl's kustomize through every install in the tree: each differs
// from the same install with the defaults in exactly the NetworkPolicy's peer
// and the ClusterRoleBinding's subject, names the default identity nowhere,
// and never renders the values' ConfigMap. A kustomization of one's own over
// an unedited tree, as docs/operations/install.md shows it, renders the same.
// On a real API server: test/k8s/install-identity.test.ts.
import { expect } from "chai";
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { parse, parseAllDocuments, stringify } from "yaml";
import {
  DEFAULT_IDENTITY,
  setMetacontrollerIdentity,
  type MetacontrollerIdentity,
} from "./metacontroller-identity.js";
import { codeBlocks, docSection, kubectl, root } from "../support/tools.js";

type Obj = Record<string, unknown> & {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
};

/** Every install the tree offers, each a directory `kubectl apply --server-side -k` takes. */
const INSTALLS = [
  "manifests",
  "examples/https",
  "examples/v1alpha1-conversion",
  "examples/servicemonitor",
  "examples/hook-servicemonitor",
  "examples/hook-monitoring",
];

const MOVED: MetacontrollerIdentity = { namespace: "mc-system", serviceAccount: "mc-controller" };

function copyTree(to: string): void {
  for (const d of ["manifests", "metacontroller", "examples"])
    cpSync(join(root, d), join(to, d), { recursive: true });
  // What docs/operations/https.md has a user write first.
  writeFileSync(join(to, "examples", "https", "token.txt"), "0123456789abcdef\n");
}

function kustomize(dir: string): Obj[] {
  const text = execFileSync(kubectl(), ["kustomize", dir], {
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  return parseAllDocuments(text).map((d) => d.toJS() as Obj);
}

const id = (o: Obj) => `${o.kind}/${o.metadata.namespace ?? ""}/${o.metadata.name}`;

/** The objects of a default render with the identity's two fields set to `identity`, as the component should leave them. */
function withIdentity(objects: Obj[], identity: MetacontrollerIdentity): Obj[] {
  return objects.map((o) => {
    const copy = structuredClone(o);
    if (o.kind === "NetworkPolicy" && o.metadata.name === "llsd-hook") {
      const rule = (
        copy["spec"] as {
          ingress: {
            from: { namespaceSelector: { matchLabels: Record<string, string> } }[];
            ports: { port: string }[];
          }[];
        }
      ).ingress[0]!;
      expect(rule.ports.map((p) => p.port)).to.deep.equal(["http"]);
      rule.from[0]!.namespaceSelector.matchLabels["kubernetes.io/metadata.name"] =
        identity.namespace;
    }
    if (o.kind === "ClusterRoleBinding" && o.metadata.name === "metacontroller-llsd-hook")
      copy["subjects"] = [
        { kind: "ServiceAccount", name: identity.serviceAccount, namespace: identity.namespace },
      ];
    return copy;
  });
}

/** Paths of every string equal to `value` under a key that names a namespace, an object or a ServiceAccount. */
function namings(value: unknown, of: string, path = ""): string[] {
  if (Array.isArray(value)) return value.flatMap((v, i) => namings(v, of, `${path}.${i}`));
  if (typeof value !== "object" || value === null) return [];
  return Object.entries(value).flatMap(([k, v]) =>
    /^(namespace|name|kubernetes\.io\/metadata\.name)$/.test(k) && v === of
      ? [`${path}.${k}`]
      : namings(v, of, `${path}.${k}`),
  );
}

describe("Metacontroller's namespace and ServiceAccount, set in one place, rendered by kustomize", function () {
  this.timeout(120_000);
  let work: string;
  const rendered: Record<"defaults" | "moved" | "own", Record<string, Obj[]>> = {
    defaults: {},
    moved: {},
    own: {},
  };

  before(() => {
    work = mkdtempSync(join(tmpdir(), "llsd-identity-"));
    copyTree(join(work, "defaults"));
    copyTree(join(work, "moved"));
    setMetacontrollerIdentity(join(work, "moved"), MOVED);
    // A kustomization of one's own over the unedited tree, the one docs/operations/install.md shows.
    const block = codeBlocks(
      docSection("docs/operations/install.md", "## Metacontroller's namespace and ServiceAccount"),
      "yaml",
    );
    expect(block, "one yaml block").to.have.length(1);
    const own = parse(block[0]!) as {
      resources: string[];
      configMapGenerator: { literals: string[] }[];
      transformers: string[];
    };
    expect(own.configMapGenerator[0]?.literals).to.deep.equal([
      `namespace=${MOVED.namespace}`,
      `serviceAccount=${MOVED.serviceAccount}`,
    ]);
    expect(own.resources).to.deep.equal(["<llsd-hook>/manifests"]);
    for (const install of INSTALLS) {
      const dir = join(work, "own", install);
      mkdirSync(dir, { recursive: true });
      const tree = relative(dir, join(work, "defaults"));
      writeFileSync(
        join(dir, "kustomization.yaml"),
        stringify({
          ...own,
          resources: [`${tree}/${install}`],
          transformers: own.transformers.map((t) => t.replace("<llsd-hook>", tree)),
        }),
      );
    }
    for (const install of INSTALLS) {
      rendered.defaults[install] = kustomize(join(work, "defaults", install));
      rendered.moved[install] = kustomize(join(work, "moved", install));
      rendered.own[install] = kustomize(join(work, "own", install));
    }
  });

  after(() => rmSync(work, { recursive: true, force: true }));

  for (const install of INSTALLS)
    it(`${install}: only the NetworkPolicy's peer and the ClusterRoleBinding's subject change, both ways of setting it`, () => {
      const defaults = rendered.defaults[install]!;
      const moved = rendered.moved[install]!;
      expect(defaults.map(id)).to.include.members([
        "NetworkPolicy/llsd-hook/llsd-hook",
        "ClusterRoleBinding//metacontroller-llsd-hook",
      ]);
      // The defaults render as the two objects always named them.
      expect(withIdentity(defaults, DEFAULT_IDENTITY)).to.deep.equal(defaults);
      expect(moved).to.deep.equal(withIdentity(defaults, MOVED));
      expect(rendered.own[install]).to.deep.equal(moved);
      expect(namings(moved, DEFAULT_IDENTITY.namespace)).to.deep.equal([]);
      expect(defaults.map(id).filter((i) => i.includes("metacontroller-identity"))).to.deep.equal(
        [],
      );
    });

  it("the HTTPS overlay's Secrets are in the hook's namespace, where the CompositeController's webhooks read them", () => {
    const objects = rendered.moved["examples/https"]!;
    const secrets = objects.filter((o) => o.kind === "Secret").map(id);
    expect(secrets).to.deep.equal(["Secret/llsd-hook/llsd-hook-token"]);
    const cc = objects.find((o) => o.kind === "CompositeController") as Obj & {
      spec: { hooks: Record<string, { webhook: Record<string, unknown> }> };
    };
    for (const hook of ["sync", "customize"])
      expect(cc.spec.hooks[hook]?.webhook["authorization"], hook).to.deep.equal({
        type: "Bearer",
        secretRef: { name: "llsd-hook-token", namespace: "llsd-hook", key: "token" },
      });
  });
});
