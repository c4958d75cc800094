// spec.trust.caBundle against real servers: the hook generates the config and
// the Deployment for a starter resource with two OpenAI-compatible upstreams
// served over HTTPS (node:https, test/llama-stack/fake-openai.ts):
//  - "private", whose certificate is signed by CA A, the one in the bundle;
//  - "public", whose certificate is signed by CA B, which stands in for the
//    image's system trust store: B is the server process's SSL_CERT_FILE, the
//    file OpenSSL's default verify paths read (X509_get_default_cert_file_env),
//    which is what ssl.create_default_context() loads through
//    load_default_certs() in every release.
// The server runs the config exactly as generated, with the container's
// environment; the one stand-in is LLSD_TRUST_CA_BUNDLE, the mounted file's
// path in the pod, which points at the bundle in a temp dir here. With the
// bundle, a chat completion reaches both upstreams; without spec.trust, the
// private one fails: the server gives up its TLS handshake and no request arrives. And the
// `min_version` beside `verify` is what keeps the system store: with `verify`
// alone (the config edited to drop min_version), the public upstream fails.
// Keys and certificates are made with the openssl CLI at test time in a temp
// dir, never committed.
import { expect } from "chai";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "yaml";
import { TRUST } from "../../src/container.js";
import { bootLlamaStack, type BootedStack } from "./boot.js";
import { startFakeOpenAI, type FakeOpenAI } from "./fake-openai.js";
import { generate, inferenceOnly, llsd, related, type Generated } from "./generated.js";

const RELEASES = ["0.7.3", "1.5.0", "0.6.1", "1.4.1"];
const PRIVATE_MODEL = "private-model";
const PUBLIC_MODEL = "public-model";

interface Pki {
  dir: string;
  /** CA A's certificate: the bundle. */
  caA: string;
  /** CA B's certificate: the stand-in for the system store. */
  caB: string;
  serverA: { cert: string; key: string };
  serverB: { cert: string; key: string };
}

function openssl(args: string[], cwd: string): void {
  execFileSync("openssl", args, { cwd, stdio: ["ignore", "ignore", "pipe"] });
}

/** A CA, and a server certificate for 127.0.0.1 that it signs. */
function makeCa(dir: string, name: string): { ca: string; cert: string; key: string } {
  openssl(
    ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"]
      .concat(["-keyout", `${name}-ca.key`, "-out", `${name}-ca.crt`, "-days", "2"])
      .concat(["-subj", `/CN=llsd-hook test CA ${name}`])
      .concat(["-addext", "basicConstraints=critical,CA:TRUE"])
      .concat(["-addext", "keyUsage=critical,keyCertSign,cRLSign"]),
    dir,
  );
  openssl(
    ["req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"]
      .concat(["-keyout", `${name}-server.key`, "-out", `${name}-server.csr`])
      .concat(["-subj", "/CN=127.0.0.1"]),
    dir,
  );
  const serverExt = join(dir, `${name}-server.ext`);
  writeFileSync(
    serverExt,
    [
      "basicConstraints=critical,CA:FALSE",
      "keyUsage=critical,digitalSignature",
      "extendedKeyUsage=serverAuth",
      "subjectAltName=IP:127.0.0.1",
      "subjectKeyIdentifier=hash",
      "authorityKeyIdentifier=keyid",
      "",
    ].join("\n"),
  );
  openssl(
    ["x509", "-req", "-in", `${name}-server.csr`, "-CA", `${name}-ca.crt`]
      .concat(["-CAkey", `${name}-ca.key`, "-CAcreateserial", "-days", "2"])
      .concat(["-extfile", serverExt, "-out", `${name}-server.crt`]),
    dir,
  );
  return {
    ca: join(dir, `${name}-ca.crt`),
    cert: readFileSync(join(dir, `${name}-server.crt`), "utf8"),
    key: readFileSync(join(dir, `${name}-server.key`), "utf8"),
  };
}

function makePki(): Pki {
  const dir = mkdtempSync(join(tmpdir(), "llsd-trust-"));
  const a = makeCa(dir, "a");
  const b = makeCa(dir, "b");
  return {
    dir,
    caA: a.ca,
    caB: b.ca,
    serverA: { cert: a.cert, key: a.key },
    serverB: { cert: b.cert, key: b.key },
  };
}

/** boot-generated.test.ts's shed of providers and APIs, with two upstreams and spec.trust or not. */
function generateWith(
  release: string,
  privateUrl: string,
  publicUrl: string,
  trust: boolean,
): Generated {
  const spec = parse(`
distribution: {name: starter, release: "${release}"}
providers:
  inference:
    - {id: private, provider: vllm, endpoint: "${privateUrl}"}
    - {id: public, provider: vllm, endpoint: "${publicUrl}"}
resources:
  models:
    - {name: ${PRIVATE_MODEL}, provider: private}
    - {name: ${PUBLIC_MODEL}, provider: public}
`) as Record<string, unknown>;
  if (trust) spec["trust"] = { caBundle: { configMapName: "corporate-ca" } };
  return generate(llsd("trusting", "default", { ...spec, ...inferenceOnly(release) }), [
    related("ConfigMap", "default", "corporate-ca", {
      "ca-bundle.crt": "(the hook reads only the key)",
    }),
  ]);
}

interface Chat {
  status: number;
  text: string;
}

async function chat(stack: BootedStack, model: string): Promise<Chat> {
  const res = await fetch(`${stack.baseUrl}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model, messages: [{ role: "user", content: "ping" }] }),
    signal: AbortSignal.timeout(60_000),
  });
  return { status: res.status, text: await res.text() };
}

function chatPaths(fake: FakeOpenAI): string[] {
  return fake.requests.filter((r) => r.method === "POST").map((r) => r.path);
}

describe("spec.trust.caBundle on real servers", function () {
  this.timeout(900_000);
  let pki: Pki;
  let privateUpstream: FakeOpenAI;
  let publicUpstream: FakeOpenAI;

  before(async () => {
    pki = makePki();
    privateUpstream = await startFakeOpenAI({
      models: [PRIVATE_MODEL],
      reply: "from the private CA",
      tls: pki.serverA,
    });
    publicUpstream = await startFakeOpenAI({
      models: [PUBLIC_MODEL],
      reply: "from the system store",
      tls: pki.serverB,
    });
  });

  after(async () => {
    await privateUpstream.close();
    await publicUpstream.close();
    rmSync(pki.dir, { recursive: true, force: true });
  });

  beforeEach(() => {
    privateUpstream.requests.length = 0;
    privateUpstream.tlsErrors.length = 0;
    publicUpstream.requests.length = 0;
    publicUpstream.tlsErrors.length = 0;
  });

  /** Boots the config with the container's env, the bundle's stand-in and CA B as the system store. */
  async function boot(release: string, configYaml: string, env: Record<string, string>) {
    const withStandIns: Record<string, string> = { ...env, SSL_CERT_FILE: pki.caB };
    if (env[TRUST.env] !== undefined) withStandIns[TRUST.env] = pki.caA;
    return bootLlamaStack({ release, configYaml, env: withStandIns });
  }

  for (const release of RELEASES) {
    it(`${release}: with the bundle, both the private CA's upstream and the system store's answer`, async () => {
      const { configYaml, env } = generateWith(
        release,
        privateUpstream.baseUrl,
        publicUpstream.baseUrl,
        true,
      );
      expect(env[TRUST.env]).to.equal("/etc/llama-stack-trust/ca-bundle.crt");
      let stack: BootedStack | undefined;
      try {
        stack = await boot(release, configYaml, env);
        const viaPrivate = await chat(stack, `private/${PRIVATE_MODEL}`);
        expect(viaPrivate.status, viaPrivate.text).to.equal(200);
        expect(viaPrivate.text).to.include("from the private CA");
        const viaPublic = await chat(stack, `public/${PUBLIC_MODEL}`);
        expect(viaPublic.status, viaPublic.text).to.equal(200);
        expect(viaPublic.text).to.include("from the system store");
        expect(chatPaths(privateUpstream)).to.include("/v1/chat/completions");
        expect(chatPaths(publicUpstream)).to.include("/v1/chat/completions");
        expect(privateUpstream.tlsErrors).to.deep.equal([]);
        expect(publicUpstream.tlsErrors).to.deep.equal([]);
      } finally {
        await stack?.stop();
      }
    });
  }

  for (const release of ["0.7.3", "1.5.0"]) {
    it(`${release}: without spec.trust, the private CA's upstream is refused in the TLS handshake`, async () => {
      const { configYaml, env } = generateWith(
        release,
        privateUpstream.baseUrl,
        publicUpstream.baseUrl,
        false,
      );
      expect(env[TRUST.env]).to.equal(undefined);
      expect(configYaml).not.to.include(TRUST.env);
      let stack: BootedStack | undefined;
      try {
        stack = await boot(release, configYaml, env);
        const viaPrivate = await chat(stack, `private/${PRIVATE_MODEL}`);
        expect(viaPrivate.status, viaPrivate.text).not.to.equal(200);
        // The client gave up the handshake (Node sees the socket close), no request came.
        expect(privateUpstream.tlsErrors).not.to.deep.equal([]);
        expect(chatPaths(privateUpstream)).to.deep.equal([]);
      } finally {
        await stack?.stop();
      }
    });

    it(`${release}: verify without min_version would replace the system store (why both are set)`, async () => {
      const generated = generateWith(
        release,
        privateUpstream.baseUrl,
        publicUpstream.baseUrl,
        true,
      );
      const lines = generated.configYaml.split("\n");
      const verifyOnly = lines.filter((l) => l.trim() !== "min_version: TLSv1.2").join("\n");
      expect(verifyOnly.length).to.be.lessThan(generated.configYaml.length);
      let stack: BootedStack | undefined;
      try {
        stack = await boot(release, verifyOnly, generated.env);
        const viaPrivate = await chat(stack, `private/${PRIVATE_MODEL}`);
        expect(viaPrivate.status, viaPrivate.text).to.equal(200);
        const viaPublic = await chat(stack, `public/${PUBLIC_MODEL}`);
        expect(viaPublic.status, viaPublic.text).not.to.equal(200);
        expect(publicUpstream.tlsErrors).not.to.deep.equal([]);
        expect(chatPaths(publicUpstream)).to.deep.equal([]);
      } finally {
        await stack?.stop();
      }
    });
  }
});
