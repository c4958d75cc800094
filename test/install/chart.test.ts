// charts/llsd-hook/ and manifests/ install the same objects: the chart is what
// npm run chart generates from manifests/ (scripts/chart/), `helm lint --strict`
// passes, and `helm template` with each value set equals the pinned kubectl's
// kustomize render of the same option, object for object: the defaults and
// `kubectl kustomize manifests`, the HTTPS overlay and examples/https, each
// component alone (on top of what it needs) and all together, the image, the
// replicas, the resources and Metacontroller's identity. The one difference
// allowed is the chart's helm.sh/resource-policy: keep on the CRD. The HTTPS
// settings kustomize has no counterpart for (an issuer of yours, Secrets of
// yours) are checked against the HTTPS render with exactly their change, and
// the combinations the chart refuses are refused with their messages.
import { expect } from "chai";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse, stringify } from "yaml";
import type { KubeObject } from "../../src/api/hook.js";
import { canonicalJson } from "../../src/lib/json.js";
import { CHART_DIR, features, generateChart, KEEP } from "../../scripts/chart/generate.js";
import { copyTree } from "../k8s/install-run.js";
import { describeHelm, helmEnv, objectId, runHelm, yamlObjects } from "./helm.js";
import { setMetacontrollerIdentity } from "./metacontroller-identity.js";
import { kubectl, root } from "../support/tools.js";

const TOKEN = "0123456789abcdef0123456789abcdef\n";

/** The objects without the chart's keep annotation, which every CRD must carry and nothing else. */
function withoutKeep(objects: KubeObject[]): KubeObject[] {
  return objects.map((o) => {
    const annotations = { ...o.metadata.annotations };
    const keep = annotations["helm.sh/resource-policy"];
    expect(keep, `${objectId(o)}: helm.sh/resource-policy`).to.equal(
      o.kind === "CustomResourceDefinition" ? KEEP["helm.sh/resource-policy"] : undefined,
    );
    delete annotations["helm.sh/resource-policy"];
    const metadata: KubeObject["metadata"] = { ...o.metadata, annotations };
    if (Object.keys(annotations).length === 0) delete metadata.annotations;
    return { ...o, metadata };
  });
}

/** Both lists hold the same objects, each equal to its twin (field order aside). */
function expectSameObjects(got: KubeObject[], want: KubeObject[], what: string): void {
  const index = (list: KubeObject[]) => new Map(list.map((o) => [objectId(o), o]));
  const g = index(got);
  const w = index(want);
  expect([...g.keys()].sort(), `${what}: the objects`).to.deep.equal([...w.keys()].sort());
  expect(g.size, `${what}: an object twice`).to.equal(got.length);
  for (const [id, o] of w)
    expect(JSON.parse(canonicalJson(g.get(id))), `${what}: ${id}`).to.deep.equal(
      JSON.parse(canonicalJson(o)),
    );
}

describe("charts/llsd-hook: the chart made from manifests/", function () {
  this.timeout(300_000);
  let work: string;
  let env: Record<string, string>;
  let tokenFile: string;

  before(() => {
    work = mkdtempSync(join(tmpdir(), "llsd-chart-"));
    env = helmEnv(work);
    copyTree(join(work, "tree"), ["manifests", "metacontroller", "examples/https"]);
    tokenFile = join(work, "tree", "examples", "https", "token.txt");
    writeFileSync(tokenFile, TOKEN);
  });

  after(() => rmSync(work, { recursive: true, force: true }));

  /** `kubectl kustomize` of a kustomization written beside the copy of the tree. */
  function kustomize(name: string, kustomization: Record<string, unknown>): KubeObject[] {
    const dir = join(work, "tree", "variants", name);
    execFileSync("mkdir", ["-p", dir]);
    writeFileSync(join(dir, "kustomization.yaml"), stringify(kustomization));
    return yamlObjects(
      execFileSync(kubectl(), ["kustomize", dir], { encoding: "utf8", maxBuffer: 64 << 20 }),
    );
  }

  /** `helm template` of the chart with `args`, which must succeed. */
  function template(args: string[]): KubeObject[] {
    const run = runHelm(
      ["template", "llsd-hook", join(root, CHART_DIR), "--namespace", "llsd-hook", ...args],
      env,
    );
    expect(run.status, describeHelm(run)).to.equal(0);
    expect(run.stderr, describeHelm(run)).to.equal("");
    return withoutKeep(yamlObjects(run.stdout));
  }

  /** What a feature is turned on with: itself, what it needs, the HTTPS token. */
  function switches(keys: string[]): string[] {
    return [
      ...keys.flatMap((k) => ["--set", `${k}.enabled=true`]),
      ...(keys.includes("https") ? ["--set-file", `https.token.value=${tokenFile}`] : []),
    ];
  }

  /** The kustomization with `keys` on: the HTTPS overlay or the base, and the components. */
  function variant(keys: string[]): Record<string, unknown> {
    const all = features(root).filter((f) => keys.includes(f.key));
    return {
      resources: [keys.includes("https") ? "../../examples/https" : "../../manifests"],
      components: all.filter((f) => f.kind === "component").map((f) => `../../${f.dir}`),
    };
  }

  it("is what npm run chart writes from manifests/ (templates, values, schema, Chart.yaml, the values tables)", () => {
    const files = generateChart(root, kubectl());
    for (const f of files)
      if (readFileSync(join(root, f.path), "utf8") !== f.content)
        expect.fail(`${f.path} is out of step with manifests/: run npm run chart and commit it`);
    const templates = readdirSync(join(root, CHART_DIR, "templates")).map(
      (n) => `${CHART_DIR}/templates/${n}`,
    );
    expect(templates.sort()).to.deep.equal(
      files
        .map((f) => f.path)
        .filter((p) => p.startsWith(`${CHART_DIR}/templates/`))
        .sort(),
    );
  });

  it("has a value per component of manifests/components/ the base does not include, and the HTTPS overlay", () => {
    const base = parse(readFileSync(join(root, "manifests", "kustomization.yaml"), "utf8")) as {
      components: string[];
    };
    const included = base.components.map((c) => c.replace("components/", ""));
    const dirs = readdirSync(join(root, "manifests", "components")).filter(
      (d) => !included.includes(d),
    );
    const found = features(root);
    expect(found.map((f) => f.dir).sort()).to.deep.equal(
      ["examples/https", ...dirs.map((d) => `manifests/components/${d}`)].sort(),
    );
    const values = parse(readFileSync(join(root, CHART_DIR, "values.yaml"), "utf8")) as Record<
      string,
      { enabled?: boolean }
    >;
    for (const f of found) expect(values[f.key]?.enabled, `${f.key}.enabled`).to.equal(false);
  });

  it("passes helm lint --strict, with its defaults and with every feature on", () => {
    const all = features(root).map((f) => f.key);
    for (const args of [[], switches(all)]) {
      const run = runHelm(["lint", "--strict", join(root, CHART_DIR), ...args], env);
      expect(run.status, describeHelm(run)).to.equal(0);
      expect(run.stdout).to.include("1 chart(s) linted, 0 chart(s) failed");
    }
  });

  it("renders with its defaults what kubectl kustomize manifests renders, object for object", () => {
    const want = yamlObjects(
      execFileSync(kubectl(), ["kustomize", join(root, "manifests")], {
        encoding: "utf8",
        maxBuffer: 64 << 20,
      }),
    );
    expect(want.length).to.be.greaterThan(8);
    expectSameObjects(template([]), want, "the defaults");
  });

  it("renders each feature as kustomize renders it, on top of what it needs", () => {
    for (const f of features(root)) {
      const keys = [...f.needs, f.key];
      expectSameObjects(template(switches(keys)), kustomize(keys.join("+"), variant(keys)), f.key);
    }
  });

  it("renders every feature on at once as kustomize renders the HTTPS overlay with every component", () => {
    const keys = features(root).map((f) => f.key);
    expectSameObjects(template(switches(keys)), kustomize("all", variant(keys)), "every feature");
  });

  it("renders the image, replicas, resources and Metacontroller's identity as kustomize sets them", () => {
    const resources = {
      requests: { cpu: "100m", memory: "256Mi" },
      limits: { cpu: "1", memory: "512Mi" },
    };
    const identity = { namespace: "mc-system", serviceAccount: "mc-controller" };
    const tree = join(work, "identity-tree");
    copyTree(tree, ["manifests", "metacontroller"]);
    setMetacontrollerIdentity(tree, identity);
    const dir = join(tree, "settings");
    execFileSync("mkdir", ["-p", dir]);
    writeFileSync(
      join(dir, "kustomization.yaml"),
      stringify({
        resources: ["../manifests"],
        images: [
          {
            name: "ghcr.io/llsd-hook/llsd-hook",
            newName: "registry.example.com/mirror/llsd-hook",
            newTag: "9.9.9",
          },
        ],
        replicas: [{ name: "llsd-hook", count: 3 }],
        patches: [
          {
            patch: stringify({
              apiVersion: "apps/v1",
              kind: "Deployment",
              metadata: { name: "llsd-hook", namespace: "llsd-hook" },
              spec: { template: { spec: { containers: [{ name: "hook", resources }] } } },
            }),
          },
        ],
      }),
    );
    const want = yamlObjects(
      execFileSync(kubectl(), ["kustomize", dir], { encoding: "utf8", maxBuffer: 64 << 20 }),
    );
    const got = template([
      ...["--set", "image.repository=registry.example.com/mirror/llsd-hook"],
      ...["--set", "image.tag=9.9.9", "--set", "replicas=3"],
      ...["--set-json", `resources=${JSON.stringify(resources)}`],
      ...["--set", `metacontroller.namespace=${identity.namespace}`],
      ...["--set", `metacontroller.serviceAccount=${identity.serviceAccount}`],
    ]);
    expectSameObjects(got, want, "the settings");
  });

  describe("HTTPS settings kustomize has no overlay for", () => {
    const https = () => kustomize("https", variant(["https"]));
    type Change = (objects: KubeObject[]) => KubeObject[];
    const drop =
      (...ids: string[]): Change =>
      (objects) =>
        objects.filter((o) => !ids.includes(`${o.kind}/${o.metadata.name}`));
    /** Every field equal to `from`, but an object's own name, set to `to`. */
    const rename =
      (from: string, to: string): Change =>
      (objects) => {
        const walk = (v: unknown, path: string): unknown => {
          if (v === from && path !== ".metadata.name") return to;
          if (Array.isArray(v)) return v.map((x, i) => walk(x, `${path}[${i}]`));
          if (typeof v !== "object" || v === null) return v;
          return Object.fromEntries(
            Object.entries(v).map(([k, x]) => [k, walk(x, `${path}.${k}`)]),
          );
        };
        return objects.map((o) => walk(o, "") as KubeObject);
      };
    const issuerRef =
      (ref: Record<string, string>): Change =>
      (objects) =>
        objects.map((o) =>
          o.kind === "Certificate" && o.metadata.name === "llsd-hook-tls"
            ? { ...o, spec: { ...(o["spec"] as object), issuerRef: ref } }
            : o,
        );

    const rows: { what: string; args: () => string[]; change: Change[] }[] = [
      {
        what: "an Issuer or ClusterIssuer of yours: no CA of the chart's own",
        args: () => [
          ...switches(["https"]),
          ...["--set", "https.certificate.issuerRef.name=corp-ca"],
          ...["--set", "https.certificate.issuerRef.kind=ClusterIssuer"],
        ],
        change: [
          drop("Issuer/llsd-hook-selfsigned", "Certificate/llsd-hook-ca", "Issuer/llsd-hook-ca"),
          issuerRef({ kind: "ClusterIssuer", name: "corp-ca" }),
        ],
      },
      {
        what: "a certificate Secret of yours: no cert-manager object, the Secret named where the TLS one was",
        args: () => [...switches(["https"]), "--set", "https.certificate.existingSecret=corp-tls"],
        change: [
          drop(
            "Issuer/llsd-hook-selfsigned",
            "Certificate/llsd-hook-ca",
            "Issuer/llsd-hook-ca",
            "Certificate/llsd-hook-tls",
          ),
          rename("llsd-hook-tls", "corp-tls"),
        ],
      },
      {
        what: "a token Secret of yours: no Secret of the chart's, yours named where it was",
        args: () => [
          "--set",
          "https.enabled=true",
          "--set",
          "https.token.existingSecret=corp-token",
        ],
        change: [drop("Secret/llsd-hook-token"), rename("llsd-hook-token", "corp-token")],
      },
    ];
    for (const row of rows)
      it(row.what, () => {
        const want = row.change.reduce((objects, change) => change(objects), https());
        expectSameObjects(template(row.args()), want, row.what);
      });
  });

  it("refuses what does not work together, naming the value and the fix, before anything is applied", () => {
    const rows: [string[], string][] = [
      [
        ["--set", "v1alpha1.enabled=true"],
        "v1alpha1.enabled: needs https.enabled, since the API server calls a conversion webhook over HTTPS only",
      ],
      [
        ["--set", "hookMonitoring.enabled=true"],
        "hookMonitoring.enabled: needs hookServicemonitor.enabled, since its alerts and dashboard read the series of job llsd-hook",
      ],
      [
        ["--set", "https.enabled=true"],
        "https.token: https.enabled needs the bearer token Metacontroller sends and the hook checks; pass it with --set-file https.token.value=token.txt",
      ],
      [
        [...switches(["https"]), "--set", "https.token.existingSecret=corp-token"],
        "https.token: set https.token.value or https.token.existingSecret, not both; unset one",
      ],
      [
        [
          ...switches(["https"]),
          ...["--set", "https.certificate.existingSecret=corp-tls"],
          ...["--set", "https.certificate.issuerRef.name=corp-ca"],
        ],
        "https.certificate: set https.certificate.existingSecret (a Secret of yours) or https.certificate.issuerRef (cert-manager issues it), not both",
      ],
      [
        [
          ...switches(["https", "v1alpha1"]),
          ...["--set", "https.certificate.existingSecret=corp-tls"],
        ],
        "v1alpha1.enabled: cert-manager's CA injector fills the caBundle of CustomResourceDefinition llamastackdistributions.llamastack.io from the Certificate llsd-hook/llsd-hook-tls, which https.certificate.existingSecret leaves out",
      ],
    ];
    for (const [args, message] of rows) {
      const run = runHelm(["template", "llsd-hook", join(root, CHART_DIR), ...args], env);
      expect(run.status, describeHelm(run)).to.equal(1);
      expect(run.stderr, describeHelm(run)).to.include(message);
    }
    // docs/operations/helm.md shows the refusal of HTTPS without a token as helm prints it.
    const run = runHelm(
      ["template", "llsd-hook", join(root, CHART_DIR), "--set", "https.enabled=true"],
      env,
    );
    const printed = run.stderr.split("\n")[0] ?? "";
    expect(printed).to.match(/^Error: execution error at \(llsd-hook\/templates\/checks\.yaml:/);
    expect(readFileSync(join(root, "docs", "operations", "helm.md"), "utf8")).to.include(
      `\n${printed}\n`,
    );
  });

  it("refuses a value its schema does not know or a wrong type, naming it", () => {
    const rows: [string[], string[]][] = [
      [["--set", "replica=3"], ["replica"]],
      [
        ["--set", "replicas=0"],
        ["replicas", "minimum"],
      ],
      [
        ["--set", "https.enabled=yes"],
        ["https", "enabled", "boolean"],
      ],
      [
        ["--set", "https.certificate.issuerRef.kind=Certificate"],
        ["issuerRef", "kind"],
      ],
      [
        ["--set", "resources.limits.memory=lots"],
        ["resources", "limits", "memory"],
      ],
    ];
    for (const [args, words] of rows) {
      const run = runHelm(["template", "llsd-hook", join(root, CHART_DIR), ...args], env);
      expect(run.status, describeHelm(run)).to.equal(1);
      for (const w of words) expect(run.stderr, describeHelm(run)).to.include(w);
    }
  });
});
