// The install with Metacontroller in another namespace under another
// ServiceAccount (mc-system / mc-controller), set in the one place
// (manifests/components/metacontroller-identity/identity.yaml) of a copy of
// the tree, then the README's command and the HTTPS page's lines run as
// written with the suite's kubectl: strict, without a warning. What the API
// server decides is asked of it: the RBAC by SubjectAccessReview (the new
// ServiceAccount may do all Metacontroller needs, the default one nothing),
// the NetworkPolicy's peer by a label-selector list of namespaces. Then a
// sync succeeds as in a cluster: cert-manager's part stood in for (the
// serving Secret the Certificate names, for 127.0.0.1, since no cluster DNS
// resolves the Service), the hook process started as the applied Deployment
// describes it (its env, and its Secret and ConfigMap volumes written where it
// mounts them), and Metacontroller's stand-in signed in with a token the API
// server issues for mc-system/mc-controller: it reads the CA and the bearer
// token from the Secrets the applied CompositeController names, calls the hook
// over HTTPS, and writes the children and the status under that identity. The
// same stand-in without the token gets 401 from the hook; signed in as the
// default ServiceAccount, 403 from the API server.
import { expect } from "chai";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { request as httpsRequest } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";
import type { KubeObject } from "../../src/api/hook.js";
import { API_VERSION, PLURAL } from "../../src/api/schema.js";
import {
  DEFAULT_IDENTITY,
  serviceAccountUser,
  setMetacontrollerIdentity,
  type MetacontrollerIdentity,
} from "../install/metacontroller-identity.js";
import { root } from "../support/tools.js";
import { freePort } from "../net.js";
import { stopProcess, type ControlPlane } from "./cluster.js";
import { makeCertificates } from "./conversion-hook.js";
import {
  copyTree,
  describeRun,
  httpsCommands,
  installCommand,
  installGone,
  installMetacontroller,
  kubectlEnv,
  metacontrollerNeeds,
  reviewNeeds,
  runLines,
  thirdPartyCrdLines,
  uninstall,
  warnings,
} from "./install-run.js";
import { Kube, restrictedNamespace, waitFor } from "./kube.js";
import { Metacontroller } from "./metacontroller.js";
import { cluster, endTitle, ENDS } from "./setup.js";

const MOVED: MetacontrollerIdentity = { namespace: "mc-system", serviceAccount: "mc-controller" };
const APP_NS = "mc-identity-app";
const CC_API = "metacontroller.k8s.io/v1alpha1";
const NAMESPACES = ["llsd-hook", MOVED.namespace, DEFAULT_IDENTITY.namespace, APP_NS];

type SecretRef = { name: string; namespace: string; key?: string };
interface Webhook {
  caBundle?: { secretRef?: SecretRef };
  authorization?: { type?: string; secretRef: SecretRef };
}

interface Container {
  name: string;
  env?: { name: string; value?: string }[];
  volumeMounts?: { name: string; mountPath: string }[];
}
interface PodSpec {
  containers: Container[];
  volumes?: { name: string; secret?: { secretName: string }; configMap?: { name: string } }[];
}

/** A token the API server issues for the ServiceAccount (TokenRequest), and a client that sends it. */
async function signInAs(cp: ControlPlane, identity: MetacontrollerIdentity): Promise<Kube> {
  const res = await cp.kube.request<{ status: { token: string } }>({
    method: "POST",
    path: `/api/v1/namespaces/${identity.namespace}/serviceaccounts/${identity.serviceAccount}/token`,
    body: {
      apiVersion: "authentication.k8s.io/v1",
      kind: "TokenRequest",
      spec: { expirationSeconds: 600 },
    },
  });
  expect(res.status, JSON.stringify(res.body)).to.equal(201);
  return new Kube(cp.server, cp.ca, res.body.status.token);
}

/** Who the API server takes a client for (SelfSubjectReview). */
async function whoAmI(kube: Kube): Promise<string> {
  const res = await kube.request<{ status: { userInfo: { username: string } } }>({
    method: "POST",
    path: "/apis/authentication.k8s.io/v1/selfsubjectreviews",
    body: { apiVersion: "authentication.k8s.io/v1", kind: "SelfSubjectReview" },
  });
  expect(res.status, JSON.stringify(res.body)).to.equal(201);
  return res.body.status.userInfo.username;
}

/** One key of a Secret, read by `kube` (as Metacontroller's hooks.ResolveCABundle and ResolveAuthorization do). */
async function secretKey(kube: Kube, ref: SecretRef, defaultKey: string): Promise<string> {
  const secret = (await kube.get("v1", "secrets", ref.namespace, ref.name)) as
    (KubeObject & { data?: Record<string, string> }) | undefined;
  const value = secret?.data?.[ref.key ?? defaultKey];
  if (value === undefined)
    throw new Error(`no key ${ref.key} in Secret ${ref.namespace}/${ref.name}`);
  return Buffer.from(value, "base64").toString();
}

/** GET over https trusting only `ca`: the status code. */
function httpsStatus(url: string, ca: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(url, { ca }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on("error", reject);
    req.end();
  });
}

for (const end of ENDS) {
  describe(`${endTitle(end)}: install: Metacontroller in another namespace and ServiceAccount, set in the one place`, function () {
    this.timeout(300_000);
    let work: string;
    let tree: string;
    let env: Record<string, string>;
    let hook: { proc: ChildProcess; port: number; log: () => string } | undefined;

    before(async () => {
      const kube = cluster(end).kube;
      // The other install test (install.test.ts) may have just deleted them.
      await installGone(kube, NAMESPACES);
      work = mkdtempSync(join(tmpdir(), "llsd-install-identity-"));
      env = kubectlEnv(work, cluster(end).kubeconfig, cluster(end).kubectl);
      // What installing Metacontroller elsewhere leaves. The default namespace and ServiceAccount
      // exist too, unused.
      await installMetacontroller(kube, [MOVED, DEFAULT_IDENTITY]);
      const crds = runLines(thirdPartyCrdLines(), root, env);
      expect(crds.status, describeRun(crds)).to.equal(0);
      tree = join(work, "tree");
      copyTree(tree, ["manifests", "metacontroller", "examples/https"]);
      setMetacontrollerIdentity(tree, MOVED);
    });

    after(async () => {
      if (hook !== undefined) await stopProcess(hook.proc);
      const kube = cluster(end).kube;
      await kube.remove(API_VERSION, PLURAL, APP_NS, "llama");
      await uninstall(kube, NAMESPACES);
      rmSync(work, { recursive: true, force: true });
    });

    it("the README's command, then the HTTPS lines, apply every object strictly and without a warning", () => {
      const run = runLines([installCommand()], tree, env);
      expect(run.status, describeRun(run)).to.equal(0);
      expect(warnings(run), describeRun(run)).to.deep.equal([]);
      const rendered = runLines(["kubectl kustomize manifests"], tree, env);
      const objects = parseAllDocuments(rendered.stdout).map((d) => d.toJS() as KubeObject);
      expect(objects.map((o) => o.metadata.name)).not.to.include("metacontroller-identity");
      const applied = run.stdout.split("\n").filter((l) => l.endsWith(" serverside-applied"));
      expect(applied, run.stdout).to.have.length(objects.length);

      const https = runLines(httpsCommands(), tree, env);
      expect(https.status, describeRun(https)).to.equal(0);
      expect(warnings(https), describeRun(https)).to.deep.equal([]);
    });

    it("the ClusterRoleBinding names the new ServiceAccount, which may do all Metacontroller needs; the default one nothing", async () => {
      const kube = cluster(end).kube;
      const binding = (await kube.get(
        "rbac.authorization.k8s.io/v1",
        "clusterrolebindings",
        undefined,
        "metacontroller-llsd-hook",
      )) as KubeObject & { subjects: unknown[] };
      expect(binding.subjects).to.deep.equal([
        { kind: "ServiceAccount", name: MOVED.serviceAccount, namespace: MOVED.namespace },
      ]);
      const moved = await reviewNeeds(kube, serviceAccountUser(MOVED));
      expect(moved.denied).to.deep.equal([]);
      expect(moved.allowed).to.have.length(metacontrollerNeeds().length);
      const old = await reviewNeeds(kube, serviceAccountUser(DEFAULT_IDENTITY));
      expect(old.allowed).to.deep.equal([]);
      // Half-moved does not count: the new name in the old namespace, and the reverse.
      for (const half of [
        { namespace: DEFAULT_IDENTITY.namespace, serviceAccount: MOVED.serviceAccount },
        { namespace: MOVED.namespace, serviceAccount: DEFAULT_IDENTITY.serviceAccount },
      ])
        expect((await reviewNeeds(kube, serviceAccountUser(half))).allowed).to.deep.equal([]);
    });

    it("the NetworkPolicy admits the hook's port from Metacontroller's namespace and no other", async () => {
      const kube = cluster(end).kube;
      const policy = (await kube.get(
        "networking.k8s.io/v1",
        "networkpolicies",
        "llsd-hook",
        "llsd-hook",
      )) as KubeObject & {
        spec: {
          ingress: {
            from: { namespaceSelector?: { matchLabels: Record<string, string> } }[];
            ports: { port: string }[];
          }[];
        };
      };
      const rules = policy.spec.ingress.filter((r) => r.ports.some((p) => p.port === "http"));
      expect(rules).to.have.length(1);
      const selectors = rules[0]!.from.map((f) => f.namespaceSelector?.matchLabels);
      expect(selectors).to.have.length(1);
      // The namespaces the API server lists for that selector.
      const labelSelector = Object.entries(selectors[0]!)
        .map(([k, v]) => `${k}=${v}`)
        .join(",");
      const selected = await kube.list("v1", "namespaces", undefined, labelSelector);
      expect(selected.map((n) => n.metadata.name)).to.deep.equal([MOVED.namespace]);
    });

    it("syncs succeed: Metacontroller's stand-in, signed in as the new ServiceAccount, syncs a resource through the hook over HTTPS", async () => {
      const kube = cluster(end).kube;
      const dir = join(work, "hook");
      mkdirSync(dir);

      // cert-manager's part: the Secret the serving Certificate names, with its CA.
      const certificate = (await kube.get(
        "cert-manager.io/v1",
        "certificates",
        "llsd-hook",
        "llsd-hook-tls",
      )) as KubeObject & { spec: { secretName: string } };
      const pki = join(work, "pki");
      mkdirSync(pki);
      makeCertificates(pki);
      const pem = (f: string) => readFileSync(join(pki, f)).toString("base64");
      await kube.mustCreate("v1", "secrets", {
        apiVersion: "v1",
        kind: "Secret",
        type: "kubernetes.io/tls",
        metadata: { name: certificate.spec.secretName, namespace: "llsd-hook" },
        data: { "tls.crt": pem("tls.crt"), "tls.key": pem("tls.key"), "ca.crt": pem("ca.crt") },
      });

      // The kubelet's part: the hook process as the applied Deployment describes it.
      const deployment = (await kube.get(
        "apps/v1",
        "deployments",
        "llsd-hook",
        "llsd-hook",
      )) as KubeObject & { spec: { template: { spec: PodSpec } } };
      const pod = deployment.spec.template.spec;
      const container = pod.containers.find((c) => c.name === "hook")!;
      const mounts = container.volumeMounts ?? [];
      for (const m of mounts) {
        const volume = pod.volumes?.find((v) => v.name === m.name);
        const data: Record<string, string> = {};
        if (volume?.secret !== undefined) {
          const s = (await kube.get(
            "v1",
            "secrets",
            "llsd-hook",
            volume.secret.secretName,
          )) as KubeObject & { data: Record<string, string> };
          for (const [k, v] of Object.entries(s.data))
            data[k] = Buffer.from(v, "base64").toString();
        } else if (volume?.configMap !== undefined) {
          const c = (await kube.get(
            "v1",
            "configmaps",
            "llsd-hook",
            volume.configMap.name,
          )) as KubeObject & { data: Record<string, string> };
          Object.assign(data, c.data);
        } else throw new Error(`volume ${m.name}: neither a Secret nor a ConfigMap`);
        mkdirSync(join(dir, m.mountPath), { recursive: true });
        for (const [k, v] of Object.entries(data)) writeFileSync(join(dir, m.mountPath, k), v);
      }
      const local = (value: string) =>
        mounts.some((m) => value.startsWith(`${m.mountPath}/`)) ? join(dir, value) : value;
      const port = await freePort();
      const hookEnv: Record<string, string> = { PATH: process.env["PATH"] ?? "" };
      for (const e of container.env ?? []) hookEnv[e.name] = local(e.value ?? "");
      expect(Object.keys(hookEnv)).to.include.members([
        "TLS_CERT_FILE",
        "TLS_KEY_FILE",
        "HOOK_TOKEN_FILE",
      ]);
      hookEnv["PORT"] = String(port);
      hookEnv["METRICS_PORT"] = String(await freePort());
      hookEnv["API_SERVER_PORT"] = String(await freePort());
      let out = "";
      const proc = spawn(process.execPath, ["--import", "tsx", "src/server/main.ts"], {
        cwd: root,
        env: hookEnv,
      });
      proc.stdout.on("data", (b: Buffer) => (out += b.toString()));
      proc.stderr.on("data", (b: Buffer) => (out += b.toString()));
      hook = { proc, port, log: () => out };
      const hookUrl = `https://127.0.0.1:${port}`;
      const ca = readFileSync(join(pki, "ca.crt"), "utf8");
      await waitFor(
        "the hook to answer /readyz over HTTPS",
        async () =>
          (await httpsStatus(`${hookUrl}/readyz`, ca).catch(() => 0)) === 200 ? true : undefined,
        60_000,
      ).catch((err: Error) => {
        throw new Error(`${err.message}\nthe hook's log:\n${out}`);
      });

      // Metacontroller, signed in as the new ServiceAccount, resolves the applied
      // CompositeController's caBundle and authorization from their Secrets.
      const asMoved = await signInAs(cluster(end), MOVED);
      expect(await whoAmI(asMoved)).to.equal(serviceAccountUser(MOVED));
      const cc = (await kube.get(
        CC_API,
        "compositecontrollers",
        undefined,
        "llsd-hook",
      )) as KubeObject & { spec: { hooks: Record<"sync" | "customize", { webhook: Webhook }> } };
      const resolved = [];
      for (const name of ["sync", "customize"] as const) {
        const webhook = cc.spec.hooks[name].webhook;
        const auth = webhook.authorization!;
        resolved.push({
          caBundle: await secretKey(asMoved, webhook.caBundle!.secretRef!, "ca.crt"),
          authorization: `${auth.type ?? "Bearer"} ${(await secretKey(asMoved, auth.secretRef, "")).trim()}`,
        });
      }
      expect(resolved[1]).to.deep.equal(resolved[0]);
      const webhook = resolved[0]!;
      expect(webhook.caBundle).to.equal(ca);

      await kube.mustCreate("v1", "namespaces", restrictedNamespace(APP_NS));
      await kube.mustCreate("v1", "secrets", {
        apiVersion: "v1",
        kind: "Secret",
        metadata: { name: "vllm-creds", namespace: APP_NS },
        stringData: { token: "not-a-real-key" },
      });
      const minimal = parseAllDocuments(
        readFileSync(join(root, "examples", "minimal.yaml"), "utf8"),
      )[0]!.toJS() as KubeObject;
      await kube.mustCreate(API_VERSION, PLURAL, {
        ...minimal,
        metadata: { ...minimal.metadata, namespace: APP_NS },
      });

      // Without the token, the hook refuses; as the default ServiceAccount, the API server does.
      const noToken = new Metacontroller(asMoved, hookUrl, {
        webhook: { caBundle: webhook.caBundle },
      });
      const refused = await noToken.sync(APP_NS, "llama").then(
        () => "synced",
        (err: Error) => err.message,
      );
      expect(refused).to.equal("/customize answered 401");
      const asDefault = await signInAs(cluster(end), DEFAULT_IDENTITY);
      const forbidden = await new Metacontroller(asDefault, hookUrl, { webhook })
        .sync(APP_NS, "llama")
        .then(
          () => "synced",
          (err: Error) => err.message,
        );
      expect(forbidden)
        .to.match(/HTTP 403/)
        .and.to.include(serviceAccountUser(DEFAULT_IDENTITY));

      const mc = new Metacontroller(asMoved, hookUrl, { webhook });
      const rounds = await mc.reconcile(APP_NS, "llama");
      const first = rounds[0]!;
      expect(first.httpStatus, JSON.stringify(first.body)).to.equal(200);
      expect(first.errors).to.deep.equal([]);
      expect(first.created).to.include.members([
        "Deployment/llama",
        "Service/llama-service",
        "ServiceAccount/llama-sa",
      ]);
      expect(first.statusWritten).to.equal(true);
      const parent = (await kube.get(API_VERSION, PLURAL, APP_NS, "llama")) as KubeObject & {
        status?: { phase?: string; observedGeneration?: number };
      };
      expect(parent.status?.phase).to.equal("Initializing");
      expect(parent.status?.observedGeneration).to.equal(parent.metadata.generation);
      const made = await kube.get("apps/v1", "deployments", APP_NS, "llama");
      expect(made?.metadata.uid).to.be.a("string");
      expect(hook.log()).not.to.include("not-a-real-key");
    });
  });
}
