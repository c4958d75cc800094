// The production file set the Dockerfile copies — compiled JavaScript,
// configs/, production dependencies only — built in a temporary directory and
// started: the image cannot ship without its configs or with a dev dependency
// it needs (the workers' dist/server/worker.js among them: a hook whose workers
// cannot start stops at start). Also the hook's HTTPS mode with a test
// certificate and bearer token.
import { expect } from "chai";
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { request as httpsRequest } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildRequest, loadCases } from "../support/harness.js";
import { freePort } from "../net.js";

const root = join(import.meta.dirname, "..", "..");

async function waitFor(
  url: string,
  proc: ChildProcess,
  log: () => string,
  init?: RequestInit,
): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`the hook exited (${proc.exitCode}):\n${log()}`);
    try {
      const res = await fetch(url, init);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`the hook did not answer ${url}:\n${log()}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The COPY lines of the Dockerfile's runtime stage. */
function runtimeCopies(): string[] {
  const text = readFileSync(join(root, "Dockerfile"), "utf8");
  const runtime = text.slice(text.indexOf("AS runtime"));
  return [...runtime.matchAll(/^COPY (?:--from=\S+ )?(.+)$/gm)].map((m) => m[1] ?? "");
}

describe("production file set (what the Dockerfile ships)", function () {
  this.timeout(240_000);
  let dir: string;
  const procs: ChildProcess[] = [];

  before(() => {
    dir = mkdtempSync(join(tmpdir(), "llsd-prod-"));
    // The Dockerfile: build stage compiles src/ to dist/; runtime copies package files, dist/ and configs/.
    expect(runtimeCopies()).to.deep.equal([
      "package.json package-lock.json ./",
      "/src/dist ./dist",
      "configs ./configs",
    ]);
    execFileSync("npx", ["tsc", "-p", "tsconfig.build.json", "--outDir", join(dir, "dist")], {
      cwd: root,
      stdio: "inherit",
    });
    cpSync(join(root, "configs"), join(dir, "configs"), { recursive: true });
    for (const f of ["package.json", "package-lock.json"]) cpSync(join(root, f), join(dir, f));
    execFileSync("npm", ["ci", "--omit=dev", "--ignore-scripts", "--no-audit", "--no-fund"], {
      cwd: dir,
      stdio: "inherit",
    });
  });
  after(() => {
    for (const p of procs) p.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  });

  function start(env: Record<string, string>): { proc: ChildProcess; log: () => string } {
    let out = "";
    const proc = spawn(process.execPath, ["dist/server/main.js"], {
      cwd: dir,
      env: { PATH: process.env["PATH"] ?? "", ...env },
    });
    proc.stdout?.on("data", (b: Buffer) => (out += b.toString()));
    proc.stderr?.on("data", (b: Buffer) => (out += b.toString()));
    procs.push(proc);
    return { proc, log: () => out };
  }

  it("has no dev dependency installed", () => {
    for (const dev of ["typescript", "mocha", "tsx", "fast-check"])
      expect(existsSync(join(dir, "node_modules", dev)), dev).to.equal(false);
    expect(existsSync(join(dir, "node_modules", "express"))).to.equal(true);
  });

  it("starts from the file set, answers /healthz and a /sync of a golden case, in a worker of the pool", async () => {
    const port = await freePort();
    const metricsPort = await freePort();
    const { proc, log } = start({
      PORT: String(port),
      METRICS_PORT: String(metricsPort),
      API_SERVER_PORT: String(await freePort()),
      HOOK_WORKERS: "3",
    });
    await waitFor(`http://127.0.0.1:${port}/healthz`, proc, log);
    const c = loadCases().find((x) => x.name === "us1-3-api-key-from-secret");
    if (c === undefined) throw new Error("golden case missing");
    const res = await fetch(`http://127.0.0.1:${port}/sync`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(buildRequest(c.file, "v2")),
    });
    expect(res.status).to.equal(200);
    const body = (await res.json()) as { status: { phase: string }; children: { kind: string }[] };
    expect(body.status.phase).to.equal("Initializing");
    expect(body.children.map((ch) => ch.kind)).to.include.members([
      "ConfigMap",
      "Deployment",
      "Service",
    ]);
    // The workers run from dist/server/worker.js (the image copies dist/ whole), as HOOK_WORKERS says.
    expect(existsSync(join(dir, "dist", "server", "worker.js"))).to.equal(true);
    const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    expect(metrics).to.match(/^llsd_hook_workers 3$/m);
    expect(metrics).to.match(/^llsd_hook_cache_misses_total\{cache="generation"\} [1-9]/m);
  });

  it("stops at start, naming the cause, when its workers cannot start", async () => {
    const worker = join(dir, "dist", "server", "worker.js");
    renameSync(worker, `${worker}.away`);
    try {
      const { proc, log } = start({
        PORT: String(await freePort()),
        METRICS_PORT: String(await freePort()),
        API_SERVER_PORT: String(await freePort()),
      });
      const [code] = (await once(proc, "exit")) as [number];
      expect(code, log()).to.equal(1);
      expect(log()).to.include("llsd-hook could not start");
      expect(log()).to.include("llsd-hook's workers do not start");
      expect(log()).to.include("worker.js");
    } finally {
      renameSync(`${worker}.away`, worker);
    }
  });

  it("refuses a pool setting out of range at start, naming the variable", async () => {
    const { proc, log } = start({
      PORT: String(await freePort()),
      METRICS_PORT: String(await freePort()),
      API_SERVER_PORT: String(await freePort()),
      WORKER_HEAP_MIB: "8",
    });
    const [code] = (await once(proc, "exit")) as [number];
    expect(code).to.equal(1);
    expect(log()).to.include("WORKER_HEAP_MIB=8 must be a whole number from 32 to 4096");
  });

  it("the render CLI works from the file set", () => {
    const out = execFileSync(
      process.execPath,
      [join(dir, "dist", "cli", "main.js"), "render", join(root, "examples", "minimal.yaml")],
      {
        encoding: "utf8",
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    expect(out).to.include("kind: Deployment");
  });

  it("serves HTTPS with a given certificate and requires the bearer token", async () => {
    const pki = join(dir, "pki");
    execFileSync("mkdir", ["-p", pki]);
    execFileSync(
      "openssl",
      [
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:P-256",
        "-nodes",
        "-days",
        "1",
        "-subj",
        "/CN=llsd-hook-test-ca",
        "-keyout",
        join(pki, "ca.key"),
        "-out",
        join(pki, "ca.crt"),
      ],
      { stdio: "ignore" },
    );
    execFileSync(
      "openssl",
      [
        "req",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:P-256",
        "-nodes",
        "-subj",
        "/CN=localhost",
        "-keyout",
        join(pki, "tls.key"),
        "-out",
        join(pki, "tls.csr"),
      ],
      { stdio: "ignore" },
    );
    writeFileSync(join(pki, "san.ext"), "subjectAltName=DNS:localhost,IP:127.0.0.1\n");
    execFileSync(
      "openssl",
      [
        "x509",
        "-req",
        "-in",
        join(pki, "tls.csr"),
        "-CA",
        join(pki, "ca.crt"),
        "-CAkey",
        join(pki, "ca.key"),
        "-CAcreateserial",
        "-days",
        "1",
        "-extfile",
        join(pki, "san.ext"),
        "-out",
        join(pki, "tls.crt"),
      ],
      { stdio: "ignore" },
    );
    writeFileSync(join(pki, "token"), "s3cret-token\n");
    const port = await freePort();
    const { proc, log } = start({
      PORT: String(port),
      METRICS_PORT: String(await freePort()),
      API_SERVER_PORT: String(await freePort()),
      TLS_CERT_FILE: join(pki, "tls.crt"),
      TLS_KEY_FILE: join(pki, "tls.key"),
      HOOK_TOKEN_FILE: join(pki, "token"),
    });
    const ca = readFileSync(join(pki, "ca.crt"));
    const post = (auth: string | undefined) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = httpsRequest(
          {
            host: "127.0.0.1",
            port,
            path: "/sync",
            method: "POST",
            ca,
            servername: "localhost",
            headers: {
              "content-type": "application/json",
              ...(auth === undefined ? {} : { authorization: auth }),
            },
          },
          (res) => {
            let body = "";
            res.setEncoding("utf8");
            res.on("data", (d: string) => (body += d));
            res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
          },
        );
        req.on("error", reject);
        const c = loadCases().find((x) => x.name === "us1-1-single-vllm-endpoint");
        req.end(JSON.stringify(buildRequest(c?.file ?? { description: "", spec: {} }, "v2")));
      });
    const deadline = Date.now() + 20_000;
    let first: { status: number; body: string } | undefined;
    while (first === undefined) {
      if (proc.exitCode !== null) throw new Error(`the hook exited:\n${log()}`);
      try {
        first = await post("Bearer s3cret-token");
      } catch (err) {
        if (Date.now() > deadline)
          throw new Error(`no HTTPS answer: ${(err as Error).message}\n${log()}`, { cause: err });
        await new Promise((r) => setTimeout(r, 200));
      }
    }
    expect(first.status, first.body.slice(0, 200)).to.equal(200);
    expect((JSON.parse(first.body) as { status: { phase: string } }).status.phase).to.equal(
      "Initializing",
    );
    expect((await post(undefined)).status).to.equal(401);
    expect((await post("Bearer wrong-token!")).status).to.equal(401);
  });
});
