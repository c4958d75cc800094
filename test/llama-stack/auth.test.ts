// spec.auth against real servers and the suite's real kube-apiserver (RBAC,
// service-account signing keys; test/k8s/cluster.ts). The hook generates the
// config and the Deployment for a starter resource with spec.auth; the
// release's package runs that config (test/llama-stack/boot.ts) with two
// values swapped for their stand-ins, because this machine is not a pod:
//  - https://kubernetes.default.svc → the suite's API server URL (its serving
//    certificate also names kubernetes.default.svc, and the service-account
//    issuer is https://kubernetes.default.svc, as in a cluster);
//  - /etc/llama-stack/auth-ca/ca.crt (kube-root-ca.crt's ca.crt, mounted) →
//    the suite's CA in a temp file.
// Everything else is the generated config, byte for byte.
//
// kubernetes: a ServiceAccount with no RoleBinding at all gets a token through
// TokenRequest; SelfSubjectReview is allowed to every authenticated user by the
// default RBAC (system:basic-user), so that token is accepted (200 and the
// models), while no token and a forged one get 401. The server's own probe
// path, GET /v1/health, answers without a token (boot waits for it).
//
// oauth2 (the cluster's service-account issuer standing in for an OIDC
// issuer): tokens with audience `llama` are checked against the API server's
// /openid/v1/jwks, made readable without a token the documented way (a
// ClusterRoleBinding of system:service-account-issuer-discovery to
// system:unauthenticated), since the pod has no token. A token for another
// audience (the API server's) is refused.
import { expect } from "chai";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Deployment } from "kubernetes-types/apps/v1.js";
import { parse, stringify } from "yaml";
import { YAML_OPTIONS } from "../../src/config/canonical.js";
import { cluster } from "../k8s/setup.js";
import type { Kube } from "../k8s/kube.js";
import { bootLlamaStack, type BootedStack } from "./boot.js";
import { startFakeOpenAI, type FakeOpenAI } from "./fake-openai.js";
import { generate, llsd, related, vllmCreds, vllmStarter, type Generated } from "./generated.js";

const model = "meta-llama/Llama-3.2-3B-Instruct";
const NAME = "guarded";
const NAMESPACE = "llsd-auth";
const CALLER = "caller";
const AUDIENCE = "llama";
const IN_POD_CA = "/etc/llama-stack/auth-ca/ca.crt";
const IN_CLUSTER = "https://kubernetes.default.svc";
const DISCOVERY_BINDING = "llsd-test-oidc-discovery-unauthenticated";

/** boot-generated.test.ts's resource, with spec.auth (the server reads the cluster's CA from kube-root-ca.crt). */
function generateWith(endpoint: string, release: string, auth: unknown): Generated {
  return generate(llsd(NAME, NAMESPACE, { ...vllmStarter(release, endpoint, model), auth }), [
    vllmCreds(NAMESPACE),
    related("ConfigMap", NAMESPACE, "kube-root-ca.crt", { "ca.crt": "(the CA)" }),
  ]);
}

type ProviderConfig = Record<string, unknown>;

function providerConfigOf(configYaml: string): ProviderConfig {
  const doc = parse(configYaml) as { server?: { auth?: { provider_config?: ProviderConfig } } };
  const config = doc.server?.auth?.provider_config;
  if (config === undefined) throw new Error("the config has no server.auth.provider_config");
  return config;
}

/** The generated config with the in-cluster URL and CA path swapped for the suite's. */
function withStandIns(configYaml: string, server: string, caFile: string): string {
  const doc = parse(configYaml) as { server: { auth: { provider_config: ProviderConfig } } };
  const config = doc.server.auth.provider_config;
  expect(config["tls_cafile"]).to.equal(IN_POD_CA);
  config["tls_cafile"] = caFile;
  if (typeof config["api_server_url"] === "string") {
    expect(config["api_server_url"]).to.equal(IN_CLUSTER);
    config["api_server_url"] = server;
  }
  const jwks = config["jwks"] as { uri?: string } | undefined;
  if (jwks?.uri !== undefined) {
    expect(jwks.uri.startsWith(`${IN_CLUSTER}/`), jwks.uri).to.equal(true);
    jwks.uri = `${server}${jwks.uri.slice(IN_CLUSTER.length)}`;
  }
  return stringify(doc, YAML_OPTIONS);
}

/** The Deployment mounts kube-root-ca.crt's ca.crt where tls_cafile points, and probes /v1/health. */
function expectPodForAuth(deployment: Deployment): void {
  const pod = deployment.spec?.template.spec;
  const volume = pod?.volumes?.find((v) => v.name === "auth-ca");
  expect(volume?.configMap).to.deep.equal({
    name: "kube-root-ca.crt",
    items: [{ key: "ca.crt", path: "ca.crt" }],
  });
  const container = pod?.containers[0];
  expect(container?.volumeMounts).to.deep.include({
    name: "auth-ca",
    mountPath: "/etc/llama-stack/auth-ca",
    readOnly: true,
  });
  expect(pod?.automountServiceAccountToken, "the pod needs no token of its own").to.equal(false);
  for (const probe of [
    container?.startupProbe,
    container?.readinessProbe,
    container?.livenessProbe,
  ])
    expect(probe?.httpGet?.path).to.equal("/v1/health");
}

async function tokenFor(kube: Kube, audiences?: string[]): Promise<string> {
  const res = await kube.request<{ status?: { token?: string } }>({
    method: "POST",
    path: `/api/v1/namespaces/${NAMESPACE}/serviceaccounts/${CALLER}/token`,
    body: {
      apiVersion: "authentication.k8s.io/v1",
      kind: "TokenRequest",
      spec: { expirationSeconds: 3600, ...(audiences === undefined ? {} : { audiences }) },
    },
  });
  const token = res.body.status?.token;
  if (res.status !== 201 || token === undefined)
    throw new Error(`TokenRequest: HTTP ${res.status}: ${JSON.stringify(res.body)}`);
  return token;
}

async function getModels(
  stack: BootedStack,
  token?: string,
): Promise<{ status: number; body: string }> {
  const headers: Record<string, string> =
    token === undefined ? {} : { authorization: `Bearer ${token}` };
  const res = await fetch(`${stack.baseUrl}/v1/models`, { headers });
  return { status: res.status, body: await res.text() };
}

/** A JWT-shaped token no issuer signed. */
const FORGED = [
  Buffer.from(JSON.stringify({ alg: "RS256", kid: "nope" })).toString("base64url"),
  Buffer.from(JSON.stringify({ sub: "mallory", iss: IN_CLUSTER, aud: [AUDIENCE] })).toString(
    "base64url",
  ),
  "c2lnbmF0dXJl",
].join(".");

describe("spec.auth on real servers, with the suite's kube-apiserver", function () {
  this.timeout(900_000);
  let dir = "";
  let caFile = "";
  let kube: Kube;
  let server = "";
  let fake: FakeOpenAI;

  before(async () => {
    const cp = cluster();
    kube = cp.kube;
    server = cp.server;
    dir = mkdtempSync(join(tmpdir(), "llsd-auth-"));
    caFile = join(dir, "ca.crt");
    writeFileSync(caFile, cp.ca);
    await kube.mustCreate("v1", "namespaces", {
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: NAMESPACE },
    });
    await kube.mustCreate("v1", "serviceaccounts", {
      apiVersion: "v1",
      kind: "ServiceAccount",
      metadata: { name: CALLER, namespace: NAMESPACE },
    });
    fake = await startFakeOpenAI({ models: [model] });
  });

  after(async () => {
    await fake?.close();
    await kube?.remove("v1", "namespaces", undefined, NAMESPACE);
    await kube?.remove(
      "rbac.authorization.k8s.io/v1",
      "clusterrolebindings",
      undefined,
      DISCOVERY_BINDING,
    );
    if (dir !== "") rmSync(dir, { recursive: true, force: true });
  });

  for (const release of ["0.6.1", "0.7.3", "1.4.1", "1.5.0"]) {
    it(`${release} kubernetes: no token and a forged one get 401, a ServiceAccount's token 200 with the models; /v1/health needs none`, async () => {
      const generated = generateWith(fake.baseUrl, release, { kubernetes: {} });
      expect(providerConfigOf(generated.configYaml)).to.deep.equal({
        type: "kubernetes",
        api_server_url: IN_CLUSTER,
        verify_tls: true,
        tls_cafile: IN_POD_CA,
      });
      expectPodForAuth(generated.deployment);
      const token = await tokenFor(kube);
      // boot waits for GET /v1/health without a token (the probes' request),
      // then lists the models with the ServiceAccount's token.
      const stack = await bootLlamaStack({
        release,
        configYaml: withStandIns(generated.configYaml, server, caFile),
        env: generated.env,
        bearerToken: token,
      });
      try {
        expect(
          stack.modelIds.some((id) => id.endsWith(model)),
          stack.modelIds.join(", "),
        ).to.equal(true);
        const none = await getModels(stack);
        expect(none.status, none.body).to.equal(401);
        const forged = await getModels(stack, FORGED);
        expect(forged.status, forged.body).to.equal(401);
        const good = await getModels(stack, token);
        expect(good.status, good.body).to.equal(200);
        expect(good.body).to.include(model);
        console.log(
          `      [auth ${release}] kubernetes: healthy in ${(stack.startMs / 1000).toFixed(1)} s; 401 without and with a forged token, 200 with the ServiceAccount's`,
        );
      } finally {
        await stack.stop();
      }
    });
  }

  for (const release of ["0.7.3", "1.5.0"]) {
    it(`${release} oauth2 (the service-account issuer's JWKS): a token for audience ${AUDIENCE} gets 200, one for the API server's audience, a forged one and none get 401`, async () => {
      const res = await kube.apply(
        "rbac.authorization.k8s.io/v1",
        "clusterrolebindings",
        {
          apiVersion: "rbac.authorization.k8s.io/v1",
          kind: "ClusterRoleBinding",
          metadata: { name: DISCOVERY_BINDING },
          roleRef: {
            apiGroup: "rbac.authorization.k8s.io",
            kind: "ClusterRole",
            name: "system:service-account-issuer-discovery",
          },
          subjects: [
            {
              apiGroup: "rbac.authorization.k8s.io",
              kind: "Group",
              name: "system:unauthenticated",
            },
          ],
        },
        { fieldManager: "llsd-test", force: true },
      );
      expect(res.status, JSON.stringify(res.body)).to.be.below(300);
      const generated = generateWith(fake.baseUrl, release, {
        oauth2: {
          issuer: IN_CLUSTER,
          audience: AUDIENCE,
          jwksURI: `${IN_CLUSTER}/openid/v1/jwks`,
          caBundle: { configMapName: "kube-root-ca.crt" },
        },
      });
      expect(providerConfigOf(generated.configYaml)).to.deep.equal({
        type: "oauth2_token",
        issuer: IN_CLUSTER,
        audience: AUDIENCE,
        jwks: { uri: `${IN_CLUSTER}/openid/v1/jwks` },
        verify_tls: true,
        tls_cafile: IN_POD_CA,
      });
      expectPodForAuth(generated.deployment);
      const token = await tokenFor(kube, [AUDIENCE]);
      const stack = await bootLlamaStack({
        release,
        configYaml: withStandIns(generated.configYaml, server, caFile),
        env: generated.env,
        bearerToken: token,
      });
      try {
        expect(
          stack.modelIds.some((id) => id.endsWith(model)),
          stack.modelIds.join(", "),
        ).to.equal(true);
        const none = await getModels(stack);
        expect(none.status, none.body).to.equal(401);
        const forged = await getModels(stack, FORGED);
        expect(forged.status, forged.body).to.equal(401);
        const otherAudience = await getModels(stack, await tokenFor(kube));
        expect(otherAudience.status, otherAudience.body).to.equal(401);
        const good = await getModels(stack, token);
        expect(good.status, good.body).to.equal(200);
        console.log(
          `      [auth ${release}] oauth2: healthy in ${(stack.startMs / 1000).toFixed(1)} s; 200 for audience ${AUDIENCE}, 401 for the API server's, a forged token and none`,
        );
      } finally {
        await stack.stop();
      }
    });
  }
});
