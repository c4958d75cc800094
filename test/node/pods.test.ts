// Real pods: the Deployment the hook generates runs the real server (a
// stand-in of the upstream image, test/node/image.sh) on a real kubelet and
// containerd (test/node/node.ts), driven through the Metacontroller stand-in.
// Nothing marks pods ready here: the kubelet's probes do. The fake
// OpenAI-compatible upstream listens on the node's bridge address, the one
// address pods reach. The last test stops the node and checks that the
// machine is as it was.
import { expect } from "chai";
import { readFileSync } from "node:fs";
import type { Server } from "node:http";
import { join } from "node:path";
import { pino } from "pino";
import { parse } from "yaml";
import type { KubeObject } from "../../src/api/hook.js";
import { API_VERSION } from "../../src/api/schema.js";
import { loadCatalog } from "../../src/edge/load-catalog.js";
import { createApp } from "../../src/server/app.js";
import { restrictedNamespace, waitFor, type Kube } from "../k8s/kube.js";
import { Metacontroller, type SyncRound } from "../k8s/metacontroller.js";
import { installCrd } from "../k8s/setup.js";
import { startFakeOpenAI, type FakeOpenAI } from "../llama-stack/fake-openai.js";
import { loadPeers } from "../peers.js";
import { BRIDGE, nodeUnavailable, startNode, type NodeCluster } from "./node.js";
import { commandLines, podLog, podsOf, waitServing, type PodView } from "./pods.js";

const ROOT = join(import.meta.dirname, "..", "..");
const RESOURCE = "llamastackdistributions";
const NS = "llsd-node";
const MODEL = "meta-llama/Llama-3.2-3B-Instruct";
const TOKEN = "node-canary-3c1f9a";

interface Condition {
  type: string;
  status: string;
  reason: string;
  message: string;
}
interface StoredStatus {
  phase?: string;
  conditions?: Condition[];
  configGeneration?: { configMapName: string };
}

function statusOf(round: SyncRound | undefined): StoredStatus {
  return (round?.storedStatus ?? {}) as StoredStatus;
}

/** examples/minimal.yaml as committed, its endpoint pointed at the fake upstream. */
function minimalExample(endpoint: string): KubeObject & { spec: Record<string, unknown> } {
  const cr = parse(readFileSync(join(ROOT, "examples", "minimal.yaml"), "utf8")) as KubeObject & {
    spec: { providers: { inference: { endpoint: string }[] } };
  };
  for (const p of cr.spec.providers.inference) p.endpoint = endpoint;
  return { ...cr, metadata: { ...cr.metadata, namespace: NS } };
}

async function getJson(url: string, init: RequestInit = {}): Promise<{ status: number; body: unknown }> {
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(30_000) });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // keep the text
  }
  return { status: res.status, body };
}

function modelIds(body: unknown): string[] {
  const data = (body as { data?: { id?: string; identifier?: string }[] }).data ?? [];
  return data.map((m) => m.id ?? m.identifier ?? "");
}

describe("real pods on a real node (kubelet + containerd)", function () {
  this.timeout(600_000);
  let node: NodeCluster;
  let hook: Server;
  let mc: Metacontroller;
  let upstream: FakeOpenAI;
  let name: string;
  const kube = (): Kube => node.cp.kube;

  before(async function () {
    const why = nodeUnavailable();
    if (why !== undefined) {
      if (process.env["CI"] === "true") throw new Error(`the node tests cannot run here: ${why}`);
      console.log(`[node] SKIPPED: the node tests cannot run on this machine: ${why}`);
      this.skip();
    }
    node = await startNode();
    await installCrd(node.cp);
    const image = loadPeers().node?.images["1.5.0"];
    if (image === undefined) throw new Error("no server image for 1.5.0 (npm run peers)");
    await node.importImage(image);
    upstream = await startFakeOpenAI({ host: BRIDGE.ip, models: [MODEL], reply: "pong" });
    const app = createApp({
      catalog: loadCatalog(),
      logger: pino({ level: "silent" }),
      fieldManager: "metacontroller",
    });
    hook = await new Promise<Server>((resolve) => {
      const s = app.listen(0, "127.0.0.1", () => resolve(s));
    });
    const addr = hook.address();
    if (addr === null || typeof addr === "string") throw new Error("no hook address");
    mc = new Metacontroller(kube(), `http://127.0.0.1:${addr.port}`);
    await kube().mustCreate("v1", "namespaces", restrictedNamespace(NS));
  });

  after(async () => {
    await new Promise((resolve) => (hook === undefined ? resolve(undefined) : hook.close(resolve)));
    await upstream?.close();
    await node?.stop();
  });

  async function serving(): Promise<PodView> {
    const pod = await waitServing(kube(), NS, name).catch(async (err: Error) => {
      const pods = await podsOf(kube(), NS, name);
      throw new Error(
        `${err.message}\npods: ${JSON.stringify(pods)}\n--- kubelet log ---\n${node.logs("kubelet")}`,
      );
    });
    return pod;
  }

  async function reconcile(): Promise<SyncRound | undefined> {
    return (await mc.reconcile(NS, name)).at(-1);
  }

  describe("examples/minimal.yaml with its Secret", () => {
    let first: PodView;

    it("becomes Ready on its own, lists the model and reaches the upstream with the Secret's token", async () => {
      const cr = minimalExample(upstream.baseUrl);
      name = cr.metadata.name;
      await kube().mustCreate("v1", "secrets", {
        apiVersion: "v1",
        kind: "Secret",
        metadata: { name: "vllm-creds", namespace: NS },
        stringData: { token: TOKEN },
      });
      await kube().mustCreate(API_VERSION, RESOURCE, cr);
      await reconcile();
      first = await serving();
      const round = await reconcile();
      expect(statusOf(round).phase).to.equal("Ready");
      expect(statusOf(round).conditions?.find((c) => c.type === "Available")).to.include({
        status: "True",
      });

      const models = await getJson(`http://${first.ip}:8321/v1/models`);
      expect(models.status).to.equal(200);
      const id = modelIds(models.body).find((m) => m.endsWith(MODEL));
      expect(id, JSON.stringify(models.body)).to.be.a("string");

      const chat = await getJson(`http://${first.ip}:8321/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model: id, messages: [{ role: "user", content: "ping" }] }),
      });
      expect(chat.status, JSON.stringify(chat.body)).to.equal(200);
      expect(JSON.stringify(chat.body)).to.include("pong");
      const auth = upstream.requests
        .filter((r) => r.path.endsWith("/chat/completions"))
        .map((r) => r.headers["authorization"]);
      expect(auth).to.include(`Bearer ${TOKEN}`);
    });

    it("reports container start → server listening → Ready", async () => {
      const lines = await podLog(kube(), NS, first.name);
      const listening = lines.find((l) => /Uvicorn running on|Application startup complete/.test(l.line));
      expect(listening, lines.map((l) => l.line).join("\n")).to.not.equal(undefined);
      const started = Date.parse(first.startedAt ?? "");
      const listen = Date.parse(listening?.at ?? "");
      const ready = Date.parse(first.readyAt ?? "");
      console.log(
        `[node] 1.5.0 pod: container start → listening ${((listen - started) / 1000).toFixed(1)} s → Ready ${((ready - listen) / 1000).toFixed(1)} s (Ready is whole seconds)`,
      );
      // Ready within 3 s of the server listening (the condition has 1 s resolution).
      expect(ready - listen).to.be.at.most(4_000);
    });

    it("runs the server from the generated config alone: no --insecure on its command line", () => {
      const lines = commandLines(first.uid);
      const server = lines.find((l) => / run /.test(l));
      expect(server, lines.join("\n")).to.be.a("string");
      expect(server).to.include("/etc/llama-stack/config.yaml");
      expect(server).not.to.include("--insecure");
    });
  });

  it("leaves the machine as it was once the node stops", async function () {
    if (node === undefined) this.skip();
    const left = await node.stop();
    expect(left).to.deep.equal([]);
    void waitFor;
  });
});
