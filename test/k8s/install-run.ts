// What the install tests share (test/k8s/install*.test.ts, and the node's
// install of the hook, test/node/hook.ts): what installing Metacontroller and
// cert-manager's CRDs leaves, and its removal; the README's and the HTTPS
// page's command lines, run by bash with only the suite's kubectl on PATH; the
// Warning lines kubectl prints; a copy of the install tree to run them in; and the
// SubjectAccessReviews that say what a user may do with LlamaStackDistributions,
// their children and related objects (Metacontroller's needs, from
// metacontroller/compositecontroller.yaml and src/children/types.ts).
import { expect } from "chai";
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, readFileSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import type { KubeObject } from "../../src/api/hook.js";
import { API_VERSION, PLURAL } from "../../src/api/schema.js";
import { RELATED_TYPES } from "../../src/children/types.js";
import { compositeControllerCrd } from "../install/compositecontroller-schema.js";
import type { MetacontrollerIdentity } from "../install/metacontroller-identity.js";
import { commandLines, docSection, kubectl, root, thirdPartyCrdDir } from "../support/tools.js";
import type { Kube } from "./kube.js";
import { waitFor } from "./kube.js";

const CRD_API = "apiextensions.k8s.io/v1";
/** The CRDs an install applies beside the suite's own: Metacontroller's, cert-manager's two. */
const THIRD_PARTY_CRDS = [
  "compositecontrollers.metacontroller.k8s.io",
  "issuers.cert-manager.io",
  "certificates.cert-manager.io",
];

export interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

/**
 * A PATH with only the suite's kubectl (or `kubectlPath`, another release's) beside the system
 * tools, and a HOME of its own (no ~/.kube, no kuberc), under `work`.
 */
export function kubectlEnv(
  work: string,
  kubeconfig: string,
  kubectlPath = kubectl(),
): Record<string, string> {
  mkdirSync(join(work, "bin"));
  mkdirSync(join(work, "home"));
  symlinkSync(kubectlPath, join(work, "bin", "kubectl"));
  return {
    PATH: `${join(work, "bin")}:/usr/bin:/bin`,
    HOME: join(work, "home"),
    KUBECONFIG: kubeconfig,
  };
}

/** The lines, each run as written by bash in `cwd`, with our kubectl and kubeconfig. */
export function runLines(lines: string[], cwd: string, env: Record<string, string>): Run {
  // stdin from /dev/null: on a socket (Node's pipes) bash would read /etc/bash.bashrc.
  const r = spawnSync("bash", ["-euo", "pipefail", "-c", lines.join("\n")], {
    cwd,
    stdio: ["ignore", "pipe", "pipe"],
    env,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
    timeout: 120_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

export const warnings = (run: Run) => run.stderr.split("\n").filter((l) => /^Warning:/.test(l));

export function describeRun(run: Run): string {
  return `exit ${run.status}\nstdout:\n${run.stdout}\nstderr:\n${run.stderr}`;
}

/** The README's install command: the one `kubectl apply --server-side` of "Install" before its subsections. */
export function installCommand(): string {
  const section = docSection("README.md", "## Install");
  const lines = commandLines(
    section.slice(0, section.indexOf("\n### ")),
    "kubectl apply --server-side",
  );
  expect(lines, 'README "Install": one kubectl apply --server-side line').to.have.length(1);
  return lines[0]!;
}

/** The HTTPS page's lines: the token, then the overlay's kubectl apply. */
export function httpsCommands(): string[] {
  const section = docSection(
    "docs/operations/https.md",
    "# HTTPS between Metacontroller and the hook",
  );
  const lines = [...commandLines(section, "openssl "), ...commandLines(section, "kubectl apply")];
  expect(
    lines,
    'docs/operations/https.md "HTTPS between Metacontroller and the hook": the token and the apply',
  ).to.have.length(2);
  return lines;
}

/** Copies the repository's directories `dirs` (e.g. "manifests") under `to`. */
export function copyTree(to: string, dirs: string[]): void {
  for (const d of dirs) cpSync(join(root, d), join(to, d), { recursive: true });
}

/** Waits until the cluster-scoped objects are gone (a namespace or CRD being deleted refuses to be made again). */
export async function gone(
  kube: Kube,
  apiVersion: string,
  resource: string,
  names: string[],
): Promise<void> {
  for (const name of names)
    await waitFor(
      `${resource} ${name} to be gone`,
      async () =>
        (await kube.get(apiVersion, resource, undefined, name)) === undefined ? true : undefined,
      120_000,
    );
}

/** Whether the ServiceAccount user `system:serviceaccount:<ns>:<name>` may do `verb`, by SubjectAccessReview. */
export async function mayDo(
  kube: Kube,
  user: string,
  verb: string,
  group: string,
  resource: string,
  opts: { subresource?: string; namespace?: string } = {},
): Promise<boolean> {
  const [, , ns] = user.split(":");
  const res = await kube.request<{ status: { allowed: boolean; evaluationError?: string } }>({
    method: "POST",
    path: "/apis/authorization.k8s.io/v1/subjectaccessreviews",
    body: {
      apiVersion: "authorization.k8s.io/v1",
      kind: "SubjectAccessReview",
      spec: {
        user,
        groups: ["system:serviceaccounts", `system:serviceaccounts:${ns}`, "system:authenticated"],
        resourceAttributes: {
          verb,
          group,
          resource,
          ...(opts.subresource === undefined ? {} : { subresource: opts.subresource }),
          ...(opts.namespace === undefined ? {} : { namespace: opts.namespace }),
        },
      },
    },
  });
  expect(res.status, JSON.stringify(res.body)).to.equal(201);
  expect(res.body.status.evaluationError ?? "").to.equal("");
  return res.body.status.allowed;
}

const groupOf = (apiVersion: string) => (apiVersion.includes("/") ? apiVersion.split("/")[0]! : "");

/**
 * What Metacontroller does for llsd-hook, each as "verb group/resource[/sub] namespace": every
 * verb on every child kind (claimed, created, updated by dynamic apply, patched by server-side
 * apply, deleted, through cluster-wide informers), what the parent needs (watched, adopted
 * into, its status written), the related objects the customize hook names; cluster-wide and in
 * namespace "default".
 */
export function metacontrollerNeeds(): [
  string,
  string,
  string,
  string | undefined,
  string | undefined,
][] {
  const cc = parse(
    readFileSync(join(root, "metacontroller", "compositecontroller.yaml"), "utf8"),
  ) as {
    spec: { childResources: { apiVersion: string; resource: string }[] };
  };
  const want: [string, string, string, string?][] = [];
  for (const c of cc.spec.childResources)
    for (const verb of ["get", "list", "watch", "create", "update", "patch", "delete"])
      want.push([verb, groupOf(c.apiVersion), c.resource]);
  const group = groupOf(API_VERSION);
  for (const verb of ["get", "list", "watch", "update", "patch"]) want.push([verb, group, PLURAL]);
  for (const verb of ["update", "patch"]) want.push([verb, group, PLURAL, "status"]);
  for (const t of RELATED_TYPES)
    for (const verb of ["get", "list", "watch"])
      want.push([verb, groupOf(t.apiVersion), t.resource]);
  return want.flatMap(([verb, g, resource, sub]) =>
    [undefined, "default"].map(
      (namespace) =>
        [verb, g, resource, sub, namespace] as [
          string,
          string,
          string,
          string | undefined,
          string | undefined,
        ],
    ),
  );
}

/** What Metacontroller must not be granted: writing Secrets, deleting parents, Pods, RBAC (in namespace "default"). */
export function metacontrollerMustNot(): [string, string, string][] {
  const group = groupOf(API_VERSION);
  return [
    ["create", "", "secrets"],
    ["update", "", "secrets"],
    ["patch", "", "secrets"],
    ["delete", "", "secrets"],
    ["delete", group, PLURAL],
    ["create", "", "pods"],
    ["create", "rbac.authorization.k8s.io", "clusterrolebindings"],
  ];
}

/** Which of Metacontroller's needs `user` is allowed and which denied, by SubjectAccessReview. */
export async function reviewNeeds(
  kube: Kube,
  user: string,
): Promise<{ allowed: string[]; denied: string[] }> {
  const allowed: string[] = [];
  const denied: string[] = [];
  for (const [verb, g, resource, subresource, namespace] of metacontrollerNeeds()) {
    const what = `${verb} ${g}/${resource}${subresource ? `/${subresource}` : ""} ${namespace ?? "(all namespaces)"}`;
    const ok = await mayDo(kube, user, verb, g, resource, {
      ...(subresource ? { subresource } : {}),
      ...(namespace ? { namespace } : {}),
    });
    (ok ? allowed : denied).push(what);
  }
  return { allowed, denied };
}

/**
 * What installing Metacontroller leaves, for each of `identities`: its
 * namespace and its ServiceAccount there; and the CompositeController CRD.
 */
export async function installMetacontroller(
  kube: Kube,
  identities: MetacontrollerIdentity[],
): Promise<void> {
  for (const identity of identities) {
    await kube.mustCreate("v1", "namespaces", {
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: identity.namespace },
    });
    await kube.mustCreate("v1", "serviceaccounts", {
      apiVersion: "v1",
      kind: "ServiceAccount",
      metadata: { name: identity.serviceAccount, namespace: identity.namespace },
    });
  }
  const crd = compositeControllerCrd() as KubeObject;
  const res = await kube.apply(CRD_API, "customresourcedefinitions", crd, {
    fieldManager: "llsd-test",
    force: true,
  });
  if (res.status >= 300)
    throw new Error(`the CompositeController CRD: ${JSON.stringify(res.body)}`);
}

/** cert-manager's CRDs applied as a user applies them, then every third-party CRD established. */
export function thirdPartyCrdLines(): string[] {
  return [
    `kubectl apply --server-side -f ${thirdPartyCrdDir()}`,
    `kubectl wait --for=condition=Established --timeout=60s ${THIRD_PARTY_CRDS.map((c) => `crd/${c}`).join(" ")}`,
  ];
}

/**
 * Waits until nothing of an earlier install is left: `namespaces` and the
 * third-party CRDs (one being deleted refuses to be made again).
 */
export async function installGone(kube: Kube, namespaces: string[]): Promise<void> {
  await gone(kube, "v1", "namespaces", namespaces);
  await gone(kube, CRD_API, "customresourcedefinitions", THIRD_PARTY_CRDS);
}

/**
 * Removes what an install made (the CompositeController, the third-party CRDs,
 * `namespaces`, Metacontroller's cluster RBAC) and waits until it is gone.
 */
export async function uninstall(kube: Kube, namespaces: string[]): Promise<void> {
  await kube.remove(
    "metacontroller.k8s.io/v1alpha1",
    "compositecontrollers",
    undefined,
    "llsd-hook",
  );
  for (const name of THIRD_PARTY_CRDS)
    await kube.remove(CRD_API, "customresourcedefinitions", undefined, name);
  for (const ns of namespaces) await kube.remove("v1", "namespaces", undefined, ns);
  for (const resource of ["clusterrolebindings", "clusterroles"])
    await kube.remove(
      "rbac.authorization.k8s.io/v1",
      resource,
      undefined,
      "metacontroller-llsd-hook",
    );
  await installGone(kube, namespaces);
}
