// The install manifests agree with the hook: every child type it returns is
// declared with the exact apiVersion, RBAC covers what Metacontroller does,
// kustomize lists every file, the CompositeController uses only fields
// Metacontroller defines, and the hook's own Deployment is locked down.
// (manifests/install.yaml is rendered from the rest: test/install/install-yaml.test.ts;
// the README's kubectl apply runs against a real API server: test/k8s/install.test.ts.)
import { expect } from "chai";
import { CACHE_BYTES } from "../../../src/server/app.js";
import { API_SERVER_CLASS, HOOK_CLASS } from "../../../src/server/classes.js";
import { DEFAULT_POOL_LIMITS } from "../../../src/server/pool/limits.js";
import { poolLimitsFromEnv } from "../../../src/server/settings.js";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { parseAllDocuments } from "yaml";
import { CHILD_TYPES, OPTIONAL_CHILD_TYPES, RELATED_TYPES } from "../../../src/children/types.js";
import { PLURAL, GROUP, API_VERSION } from "../../../src/api/schema.js";
import {
  COMPOSITE_CONTROLLER_SPEC,
  schemaErrors,
} from "../../install/compositecontroller-schema.js";
import { hookContainerOf } from "../../support/hook-container.js";

const root = join(import.meta.dirname, "..", "..", "..");
type Obj = Record<string, unknown> & {
  kind: string;
  metadata: { name: string; namespace?: string };
};

/** The YAML sources under dir (not manifests/install.yaml, which is rendered from them). */
function yamlFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return yamlFiles(path);
    return /\.ya?ml$/.test(name) && relative(root, path) !== "manifests/install.yaml" ? [path] : [];
  });
}

function docs(file: string): Obj[] {
  return parseAllDocuments(readFileSync(file, "utf8"))
    .map((d) => d.toJS() as Obj | null)
    .filter((d): d is Obj => d !== null);
}

/** Files a kustomization reaches, following directory resources, components and transformers. */
function kustomized(dir: string): string[] {
  const k = docs(join(dir, "kustomization.yaml"))[0] as {
    resources?: string[];
    components?: string[];
    transformers?: string[];
  };
  return [...(k.resources ?? []), ...(k.components ?? []), ...(k.transformers ?? [])].flatMap(
    (r) => {
      const path = resolve(dir, r);
      return statSync(path).isDirectory() ? kustomized(path) : [path];
    },
  );
}

/** A JSON merge patch (RFC 7386), as kustomize applies a patch to a kind it has no schema for. */
function mergePatch(target: unknown, patch: unknown): unknown {
  if (typeof patch !== "object" || patch === null || Array.isArray(patch)) return patch;
  const out: Record<string, unknown> =
    typeof target === "object" && target !== null && !Array.isArray(target)
      ? { ...(target as Record<string, unknown>) }
      : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

const SERVICE_MONITOR_COMPONENT = join(root, "manifests", "components", "servicemonitor");
const CHILD_VERBS = ["get", "list", "watch", "create", "update", "patch", "delete"];

interface Op {
  op: string;
  path: string;
  value: unknown;
}

/** A component's JSON 6902 patches, with the kind and name each targets. */
function componentPatches(dir: string): { file: string; kind: string; name: string; ops: Op[] }[] {
  const k = docs(join(dir, "kustomization.yaml"))[0] as unknown as {
    kind: string;
    patches: { path: string; target: { kind: string; name: string } }[];
  };
  expect(k.kind).to.equal("Component");
  return k.patches.map((p) => {
    const file = join(dir, p.path);
    const ops = parseAllDocuments(readFileSync(file, "utf8"))[0]?.toJS() as Op[];
    return { file, kind: p.target.kind, name: p.target.name, ops };
  });
}

/** The `add … /-` operations the components use (append to a list), as kustomize applies them. */
function applyOps(target: unknown, ops: readonly Op[]): unknown {
  const out = structuredClone(target) as Record<string, unknown>;
  for (const { op, path, value } of ops) {
    const keys = path.split("/").slice(1);
    expect([op, keys.at(-1)], path).to.deep.equal(["add", "-"]);
    let node: unknown = out;
    for (const key of keys.slice(0, -1)) node = (node as Record<string, unknown>)[key];
    expect(node, path).to.be.an("array");
    (node as unknown[]).push(value);
  }
  return out;
}

const all = [
  ...yamlFiles(join(root, "manifests")),
  ...yamlFiles(join(root, "metacontroller")),
].flatMap(docs);
const cc = all.find((d) => d.kind === "CompositeController") as Obj & {
  spec: {
    generateSelector: boolean;
    resyncPeriodSeconds: number;
    parentResource: { apiVersion: string; resource: string };
    childResources: {
      apiVersion: string;
      resource: string;
      updateStrategy?: { method?: string };
    }[];
    hooks: Record<
      string,
      {
        version: string;
        webhook: {
          path: string;
          timeout: string;
          service: { name: string; namespace: string; port: number; protocol: string };
        };
      }
    >;
  };
};

type Role = Obj & { rules: { apiGroups: string[]; resources: string[]; verbs: string[] }[] };

/** The base install's CompositeController and ClusterRole with a component's patches applied. */
function applyComponent(dir: string): { cc: typeof cc; role: Role } {
  const role = all.find((d) => d.kind === "ClusterRole") as Role;
  const patched = { cc, role };
  for (const p of componentPatches(dir)) {
    if (p.kind === "CompositeController" && p.name === cc.metadata.name)
      patched.cc = applyOps(patched.cc, p.ops) as typeof cc;
    else if (p.kind === "ClusterRole" && p.name === role.metadata.name)
      patched.role = applyOps(patched.role, p.ops) as Role;
    else expect.fail(`${p.file}: targets ${p.kind} ${p.name}, which the base install lacks`);
  }
  return patched;
}

describe("install manifests", () => {
  it("the CompositeController declares exactly the child types the hook emits, each with an update strategy", () => {
    const declared = cc.spec.childResources.map((c) => `${c.apiVersion} ${c.resource}`).sort();
    expect(declared).to.deep.equal(CHILD_TYPES.map((t) => `${t.apiVersion} ${t.resource}`).sort());
    for (const c of cc.spec.childResources)
      expect(c.updateStrategy?.method, c.resource).to.be.oneOf(["InPlace", "Recreate", "OnDelete"]);
    expect(
      cc.spec.childResources.find((c) => c.resource === "persistentvolumeclaims")?.updateStrategy
        ?.method,
    ).to.equal("InPlace");
  });

  it("the CompositeController watches the parent, generates selectors, resyncs, and uses v2 hooks on the hook's Service", () => {
    expect(cc.spec.parentResource).to.deep.equal({ apiVersion: API_VERSION, resource: PLURAL });
    expect(cc.spec.generateSelector).to.equal(true);
    expect(cc.spec.resyncPeriodSeconds).to.be.a("number").greaterThan(0);
    const service = all.find(
      (d) => d.kind === "Service" && d.metadata.name === "llsd-hook",
    ) as Obj & { spec: { ports: { port: number }[] } };
    for (const [name, path] of [
      ["sync", "/sync"],
      ["customize", "/customize"],
    ] as const) {
      const hook = cc.spec.hooks[name];
      expect(hook?.version, name).to.equal("v2");
      expect(hook?.webhook.path).to.equal(path);
      // Plain HTTP inside the cluster (examples/https switches it), answered well inside the timeout.
      expect(hook?.webhook.service.protocol).to.equal("http");
      expect(hook?.webhook.timeout).to.match(/^[1-9][0-9]*s$/);
      expect(hook?.webhook.service).to.include({
        name: service.metadata.name,
        namespace: service.metadata.namespace,
        port: service.spec.ports[0]?.port,
      });
    }
  });

  it("the CompositeController sets only fields Metacontroller defines, with their types and enums; so does the HTTPS overlay", () => {
    expect(schemaErrors(cc.spec, COMPOSITE_CONTROLLER_SPEC)).to.deep.equal([]);
    const patch = docs(join(root, "examples", "https", "compositecontroller-https.yaml"))[0];
    expect(patch?.metadata.name).to.equal(cc.metadata.name);
    const patched = mergePatch(cc, patch) as typeof cc;
    expect(schemaErrors(patched.spec, COMPOSITE_CONTROLLER_SPEC)).to.deep.equal([]);
    expect(patched.spec.hooks["sync"]?.webhook.service).to.include({
      port: 8080,
      name: "llsd-hook",
    });
  });

  // The check itself, on the CompositeController with one thing wrong.
  const broken: [string, (spec: Record<string, unknown>) => void, string][] = [
    // Metacontroller's field is resyncPeriodSeconds.
    [
      "a field Metacontroller lacks",
      (s) => (s["resyncPeriod"] = "5m"),
      "spec.resyncPeriod: unknown field",
    ],
    [
      "an update method outside the enum",
      (s) =>
        ((
          s["childResources"] as { updateStrategy: { method: string } }[]
        )[0]!.updateStrategy.method = "Replace"),
      "spec.childResources[0].updateStrategy.method: Replace is not one of OnDelete, Recreate, InPlace, RollingRecreate, RollingInPlace",
    ],
    [
      "hook version v3",
      (s) => ((s["hooks"] as Record<string, { version: string }>)["sync"]!.version = "v3"),
      "spec.hooks.sync.version: v3 is not one of v1, v2",
    ],
    [
      "the port as a string",
      (s) =>
        ((s["hooks"] as Record<string, { webhook: { service: { port: unknown } } }>)[
          "customize"
        ]!.webhook.service.port = "8080"),
      "spec.hooks.customize.webhook.service.port: not an integer",
    ],
    ["no parentResource", (s) => delete s["parentResource"], "spec.parentResource: required"],
    [
      "a caBundle secretRef without its namespace",
      (s) =>
        ((s["hooks"] as Record<string, { webhook: Record<string, unknown> }>)["sync"]!.webhook[
          "caBundle"
        ] = { secretRef: { name: "x", key: "ca.crt" } }),
      "spec.hooks.sync.webhook.caBundle.secretRef.namespace: required",
    ],
  ];
  for (const [name, edit, error] of broken)
    it(`the field check refuses a CompositeController with ${name}`, () => {
      const spec = structuredClone(cc.spec) as unknown as Record<string, unknown>;
      edit(spec);
      expect(schemaErrors(spec, COMPOSITE_CONTROLLER_SPEC)).to.deep.equal([error]);
    });

  it("RBAC grants Metacontroller every verb it uses on the parent, the children and the related objects", () => {
    const role = all.find((d) => d.kind === "ClusterRole") as Obj & {
      rules: { apiGroups: string[]; resources: string[]; verbs: string[] }[];
    };
    const allows = (group: string, resource: string, verbs: string[]) =>
      verbs.every((v) =>
        role.rules.some(
          (r) =>
            r.apiGroups.includes(group) && r.resources.includes(resource) && r.verbs.includes(v),
        ),
      );
    const groupOf = (apiVersion: string) =>
      apiVersion.includes("/") ? (apiVersion.split("/")[0] ?? "") : "";
    for (const t of CHILD_TYPES) {
      expect(
        allows(groupOf(t.apiVersion), t.resource, [
          "get",
          "list",
          "watch",
          "create",
          "update",
          "patch",
          "delete",
        ]),
        t.resource,
      ).to.equal(true);
    }
    for (const t of RELATED_TYPES)
      expect(
        allows(groupOf(t.apiVersion), t.resource, ["get", "list", "watch"]),
        t.resource,
      ).to.equal(true);
    expect(allows(GROUP, PLURAL, ["get", "list", "watch", "update", "patch"])).to.equal(true);
    expect(allows(GROUP, `${PLURAL}/status`, ["update"])).to.equal(true);
    expect(allows("", "namespaces", ["list", "watch"])).to.equal(true);
    const binding = all.find((d) => d.kind === "ClusterRoleBinding") as Obj & {
      roleRef: { name: string };
    };
    expect(binding.roleRef.name).to.equal(role.metadata.name);
  });

  it("kubectl apply -k manifests installs every manifest file, the CRD and the CompositeController included; the optional components use the rest", () => {
    const reached = [
      ...kustomized(join(root, "manifests")),
      ...componentPatches(SERVICE_MONITOR_COMPONENT).map((p) => p.file),
      ...componentPatches(join(root, "manifests", "components", "v1alpha1")).map((p) => p.file),
      ...kustomized(join(root, "manifests", "components", "hook-servicemonitor")),
      ...kustomized(join(root, "manifests", "components", "hook-monitoring")),
      ...kustomized(join(root, "manifests", "components", "admission")),
      ...componentPatches(join(root, "manifests", "components", "admission")).map((p) => p.file),
    ]
      .map((f) => relative(root, f))
      .sort();
    const files = [
      ...yamlFiles(join(root, "manifests")),
      ...yamlFiles(join(root, "metacontroller")),
    ]
      .filter((f) => !f.endsWith("kustomization.yaml"))
      .map((f) => relative(root, f))
      .sort();
    expect(reached).to.deep.equal(files);
  });

  it("the ServiceMonitor component declares exactly the optional child types, and grants Metacontroller every verb on them", () => {
    const patched = applyComponent(SERVICE_MONITOR_COMPONENT);
    const spec = patched.cc.spec;
    expect(spec.childResources.map((c) => `${c.apiVersion} ${c.resource}`).sort()).to.deep.equal(
      [...CHILD_TYPES, ...OPTIONAL_CHILD_TYPES].map((t) => `${t.apiVersion} ${t.resource}`).sort(),
    );
    for (const c of spec.childResources)
      expect(c.updateStrategy?.method, c.resource).to.equal("InPlace");
    expect(schemaErrors(spec, COMPOSITE_CONTROLLER_SPEC)).to.deep.equal([]);
    for (const t of OPTIONAL_CHILD_TYPES)
      expect(
        patched.role.rules.some(
          (r) =>
            r.apiGroups.includes(t.apiVersion.split("/")[0] ?? "") &&
            r.resources.includes(t.resource) &&
            CHILD_VERBS.every((v) => r.verbs.includes(v)),
        ),
        t.resource,
      ).to.equal(true);
    // The base install stays without them: an absent CRD stops the whole CompositeController.
    expect(cc.spec.childResources.map((c) => c.resource)).to.not.include("servicemonitors");
  });

  it("the hook runs non-root on a read-only root filesystem, probed, with limits and the image overrides file", () => {
    const dep = all.find(
      (d) => d.kind === "Deployment" && d.metadata.name === "llsd-hook",
    ) as Obj & {
      spec: {
        template: {
          spec: {
            securityContext: Record<string, unknown>;
            containers: Record<string, never>[];
            volumes: { name: string; configMap?: { name: string } }[];
          };
        };
      };
    };
    const pod = dep.spec.template.spec;
    const c = pod.containers[0] as unknown as {
      securityContext: {
        readOnlyRootFilesystem: boolean;
        allowPrivilegeEscalation: boolean;
        capabilities: { drop: string[] };
      };
      readinessProbe: { httpGet: { path: string } };
      livenessProbe: { httpGet: { path: string } };
      resources: { requests: object; limits: object };
      env: { name: string; value: string }[];
      volumeMounts: { name: string; mountPath: string }[];
    };
    expect(pod.securityContext).to.include({ runAsNonRoot: true });
    expect(c.securityContext).to.deep.include({
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
      capabilities: { drop: ["ALL"] },
    });
    expect(c.readinessProbe.httpGet.path).to.equal("/readyz");
    expect(c.livenessProbe.httpGet.path).to.equal("/healthz");
    expect(c.resources.requests).to.not.equal(undefined);
    expect(c.resources.limits).to.not.equal(undefined);
    const file = c.env.find((e) => e.name === "IMAGE_OVERRIDES_FILE")?.value ?? "";
    const mount = c.volumeMounts.find((m) => file.startsWith(`${m.mountPath}/`));
    const volume = pod.volumes.find((v) => v.name === mount?.name);
    const cm = all.find(
      (d) => d.kind === "ConfigMap" && d.metadata.name === volume?.configMap?.name,
    ) as (Obj & { data: Record<string, string> }) | undefined;
    expect(
      cm?.data[file.slice((mount?.mountPath.length ?? 0) + 1)],
      "image overrides file in its ConfigMap",
    ).to.be.a("string");
  });

  it("the hook's pool settings are the defaults, and its heaps, the body budget and the caches stay under the memory limit", () => {
    const deployment = all.find((d) => d.kind === "Deployment" && d.metadata.name === "llsd-hook");
    const c = hookContainerOf(deployment, "the kustomize install");
    const env = Object.fromEntries(c.env.map((e) => [e.name, e.value]));
    const limits = poolLimitsFromEnv(env);
    expect(limits).to.deep.equal(DEFAULT_POOL_LIMITS);
    const mainHeap = Number(/--max-old-space-size=(\d+)/.exec(env["NODE_OPTIONS"] ?? "")?.[1]);
    const limit = Number(/^(\d+)Mi$/.exec(c.resources.limits.memory)?.[1]);
    // docs/operations/hook-server.md, "Sizing": the process about 60 MiB, each worker about 25 beside its heaps.
    const bounds =
      mainHeap +
      CACHE_BYTES / 2 / 2 ** 20 +
      (HOOK_CLASS.defaultBudgetBytes + API_SERVER_CLASS.defaultBudgetBytes) / 2 ** 20 +
      60 +
      limits.workers * (limits.heapMib + 8 + 25);
    expect(bounds).to.equal(362);
    expect(bounds).to.be.below(limit);
  });

  it("only Metacontroller's namespace may reach the hook; the monitoring namespace only its metrics port", () => {
    const np = all.find(
      (d) => d.kind === "NetworkPolicy" && d.metadata.name === "llsd-hook",
    ) as Obj & {
      spec: {
        ingress: {
          from: { namespaceSelector: { matchLabels: Record<string, string> } }[];
          ports: { port: string }[];
        }[];
      };
    };
    const from = (ns: string) => [
      { namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": ns } } },
    ];
    expect(np.spec.ingress.map((r) => [r.from, r.ports.map((p) => p.port)])).to.deep.equal([
      [from("metacontroller"), ["http"]],
      [from("monitoring"), ["metrics"]],
    ]);
  });

  it("the HTTPS example overlay sets the caBundle and bearer token on both hooks and serves the certificate", () => {
    const patch = docs(
      join(root, "examples", "https", "compositecontroller-https.yaml"),
    )[0] as Obj & {
      spec: {
        hooks: Record<
          string,
          {
            webhook: {
              service: { protocol: string };
              caBundle: unknown;
              authorization: { type: string };
            };
          }
        >;
      };
    };
    for (const hook of ["sync", "customize"]) {
      const w = patch.spec.hooks[hook]?.webhook;
      expect(w?.service.protocol, hook).to.equal("https");
      expect(w?.caBundle, hook).to.deep.equal({
        secretRef: { name: "llsd-hook-tls", namespace: "llsd-hook", key: "ca.crt" },
      });
      expect(w?.authorization.type, hook).to.equal("Bearer");
    }
    const dep = readFileSync(join(root, "examples", "https", "deployment-https.yaml"), "utf8");
    for (const v of ["TLS_CERT_FILE", "TLS_KEY_FILE", "HOOK_TOKEN_FILE"]) expect(dep).to.include(v);
  });

  it("the HTTPS example overlay makes every HTTP probe of the hook's Deployment HTTPS (the kubelet's plain HTTP gets no answer from a TLS port)", () => {
    type Probe = { httpGet?: { path: string; port: string; scheme?: string }; tcpSocket?: object };
    const probesOf = (file: string) => {
      const d = docs(file)[0] as Obj & {
        spec: { template: { spec: { containers: Record<string, unknown>[] } } };
      };
      const c = d.spec.template.spec.containers[0] ?? {};
      return Object.fromEntries(Object.entries(c).filter(([k]) => k.endsWith("Probe"))) as Record<
        string,
        Probe
      >;
    };
    const base = probesOf(join(root, "manifests", "hook", "deployment.yaml"));
    const https = probesOf(join(root, "examples", "https", "deployment-https.yaml"));
    const overHttp = Object.keys(base).filter((k) => base[k]?.httpGet !== undefined);
    expect(overHttp.sort()).to.deep.equal(["livenessProbe", "readinessProbe"]);
    // The startup probe opens a TCP connection only: the same on either scheme.
    expect(base["startupProbe"]?.tcpSocket).to.deep.equal({ port: "http" });
    expect(Object.keys(https).sort()).to.deep.equal(overHttp);
    for (const name of overHttp)
      expect(https[name]?.httpGet, name).to.deep.equal({
        ...base[name]?.httpGet,
        scheme: "HTTPS",
      });
  });
});
