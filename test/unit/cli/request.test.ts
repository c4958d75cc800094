// llsd-hook request: the request Metacontroller would send, answered by the
// hook's own sync() — the children of examples/minimal.yaml, a second sync
// with --observed answering the same children (and, after an invalid edit,
// keeping them as applied, which a request without Metacontroller's record of
// them gets a 409 for), related objects as the customize hook relates them,
// the controller's child types and key format, and a file/field/fix error for
// each file it cannot use.
import { expect } from "chai";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { SyncRequest, type KubeObject, type SyncResponse } from "../../../src/api/hook.js";
import { hookRequest, type HookRequestOptions } from "../../../src/cli/request.js";
import { RenderError } from "../../../src/cli/render.js";
import { customize } from "../../../src/customize.js";
import { sync } from "../../../src/sync.js";
import { syncContext } from "../../support/harness.js";

const root = join(import.meta.dirname, "..", "..", "..");
const read = (file: string) => readFileSync(join(root, file), "utf8");
const MINIMAL = { text: read("examples/minimal.yaml"), source: "examples/minimal.yaml" };
const CONTROLLER = {
  text: read("metacontroller/compositecontroller.yaml"),
  source: "compositecontroller.yaml",
};
const FIRST = "2026-11-01T12:00:00Z";
const SECOND = "2026-11-01T12:05:00Z";

interface Body {
  controller: { metadata: { name: string } };
  parent: KubeObject & { spec: unknown; status?: Record<string, unknown> };
  children: Record<string, Record<string, KubeObject>>;
  related: Record<string, Record<string, KubeObject & { data?: Record<string, string> }>>;
  finalizing: boolean;
}

function request(cr = MINIMAL, options: HookRequestOptions = {}, controller = CONTROLLER) {
  const out = hookRequest(cr, controller, options);
  return { ...out, body: JSON.parse(out.json) as Body };
}

/** The hook's answer to a request body, as /sync gives it: 200 and the response, or 409 and the message. */
function answer(
  json: string,
  now: string,
): { code: 200; response: SyncResponse } | { code: 409; message: string } {
  const outcome = sync(SyncRequest.parse(JSON.parse(json)), now, syncContext());
  return outcome.kind === "ok"
    ? { code: 200, response: outcome.response }
    : { code: 409, message: outcome.message };
}

function ok(json: string, now: string): SyncResponse {
  const a = answer(json, now);
  if (a.code !== 200) throw new Error(`409: ${a.message}`);
  return a.response;
}

const observing = (response: SyncResponse, source = "answer.json") => ({
  observed: { text: JSON.stringify(response), source },
});

const withSpec = (yaml: string) => ({
  text: MINIMAL.text.replace(/^spec:[\s\S]*$/m, yaml),
  source: "edited.yaml",
});

describe("llsd-hook request", () => {
  it("examples/minimal.yaml: the hook answers with its ConfigMap, Deployment, Service and ServiceAccount", () => {
    const { body, notes } = request();
    expect(body.parent.metadata.namespace).to.equal("default");
    expect(body.parent.metadata.generation).to.equal(1);
    expect(body.parent.metadata.uid).to.match(/^[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}$/);
    expect(body.controller.metadata.name).to.equal("llsd-hook");
    expect(body.finalizing).to.equal(false);
    // A group for every child type the CompositeController declares, keyed namespace/name (hook v2).
    expect(Object.keys(body.children)).to.have.length(9);
    expect(Object.values(body.children).every((g) => Object.keys(g).length === 0)).to.equal(true);
    expect(Object.keys(body.related["Secret.v1"] ?? {})).to.deep.equal(["default/vllm-creds"]);
    expect(body.related["Secret.v1"]?.["default/vllm-creds"]?.data).to.deep.equal({ token: "" });
    expect(notes).to.deep.equal([
      "note: related, not in examples/minimal.yaml, so sent as if they existed in namespace default with empty values: Secret/vllm-creds",
    ]);
    const response = ok(request().json, FIRST);
    expect(response.children.map((c) => c.kind)).to.deep.equal([
      "ConfigMap",
      "Deployment",
      "Service",
      "ServiceAccount",
    ]);
  });

  it("gives the same bytes for the same files", () => {
    expect(request().json).to.equal(request().json);
    const first = ok(request().json, FIRST);
    expect(request(MINIMAL, observing(first)).json).to.equal(
      request(MINIMAL, observing(first)).json,
    );
  });

  it("--observed: the next sync answers 200 with the same children, the status carried on", () => {
    const first = ok(request().json, FIRST);
    const { body, notes } = request(MINIMAL, observing(first));
    const second = ok(JSON.stringify(body), SECOND);
    expect(second.children).to.deep.equal(first.children);
    // The parent's status is the first answer's, as Metacontroller writes it.
    expect(body.parent.status).to.deep.equal({ ...first.status, observedGeneration: 1 });
    expect(second.status.configGeneration?.generatedAt).to.equal(FIRST);
    expect(notes[0]).to.equal(
      "note: observed: 4 children of answer.json as Metacontroller applies them (last-applied annotation, controller-uid label, owner reference, uid), and its status as the parent's",
    );
  });

  it("--observed: each child as dynamic apply created it — its record, label, owner and server fields", () => {
    const first = ok(request().json, FIRST);
    const { body } = request(MINIMAL, observing(first));
    const uid = body.parent.metadata.uid;
    const children = Object.values(body.children).flatMap((g) => Object.values(g));
    expect(children.map((c) => `${c.kind}/${c.metadata.name}`)).to.have.members(
      first.children.map((c) => `${c.kind}/${c.metadata.name}`),
    );
    for (const child of children) {
      const returned = first.children.find((c) => c.kind === child.kind) as KubeObject;
      const labels = { ...returned.metadata.labels, "controller-uid": uid };
      // The record: what the hook returned, with the label generateSelector adds; keys sorted.
      const record = JSON.parse(
        child.metadata.annotations?.["metacontroller.k8s.io/last-applied-configuration"] ?? "",
      ) as KubeObject;
      expect(record).to.deep.equal({ ...returned, metadata: { ...returned.metadata, labels } });
      expect(child.metadata.labels).to.deep.equal(labels);
      expect(child["metadata"]).to.include({ creationTimestamp: FIRST });
      expect((child.metadata as { ownerReferences?: unknown }).ownerReferences).to.deep.equal([
        {
          apiVersion: "llamastack.io/v1alpha2",
          kind: "LlamaStackDistribution",
          name: "llama",
          uid,
          controller: true,
          blockOwnerDeletion: true,
        },
      ]);
      // Of these kinds only a Deployment has a generation (the API server's registry strategies).
      expect(child.metadata.generation, child.kind).to.equal(
        child.kind === "Deployment" ? 1 : undefined,
      );
    }
  });

  it("--observed after an invalid edit: 200, the children kept as applied; without the record, 409", () => {
    const first = ok(request().json, FIRST);
    const edited = withSpec(
      "spec:\n  distribution: { name: starter }\n  providers: { inference: [{ provider: vllm, endpiont: x }] }\n",
    );
    const { body } = request(edited, observing(first));
    const kept = ok(JSON.stringify(body), SECOND);
    expect(kept.children).to.deep.equal(first.children);
    expect(kept.status.phase).to.equal("Failed");
    // The same children without Metacontroller's record of what it applied: the hook cannot keep them.
    for (const group of Object.values(body.children))
      for (const child of Object.values(group))
        delete child.metadata.annotations?.["metacontroller.k8s.io/last-applied-configuration"];
    const refused = answer(JSON.stringify(body), SECOND);
    expect(refused.code).to.equal(409);
  });

  it("related: the file's Secrets and ConfigMaps the spec names, a Secret's stringData as data; the others are not sent", () => {
    const text = [
      MINIMAL.text,
      "---\napiVersion: v1\nkind: Secret\nmetadata: { name: vllm-creds }\nstringData: { token: abc }",
      "---\napiVersion: v1\nkind: Secret\nmetadata: { name: unrelated }\ndata: { x: eA== }",
      "---\napiVersion: v1\nkind: Secret\nmetadata: { name: vllm-creds, namespace: elsewhere }\ndata: { token: eA== }",
    ].join("\n");
    const { body, notes } = request({ text, source: "cr.yaml" });
    const secret = body.related["Secret.v1"]?.["default/vllm-creds"];
    expect(secret?.data).to.deep.equal({ token: Buffer.from("abc").toString("base64") });
    expect(secret).to.not.have.property("stringData");
    expect(secret?.metadata.uid).to.be.a("string");
    expect(Object.keys(body.related["Secret.v1"] ?? {})).to.deep.equal(["default/vllm-creds"]);
    expect(notes).to.deep.equal([
      "note: related, from cr.yaml: Secret/vllm-creds (a Secret's values as the file has them)",
      "note: not sent: Secret/unrelated of cr.yaml, which the spec does not name, so Metacontroller would not relate them",
    ]);
    expect(ok(JSON.stringify(body), FIRST).status.phase).to.equal("Initializing");
  });

  it("--namespace: the parent and what it relates are in it; a file naming another is refused", () => {
    const { body } = request(MINIMAL, { namespace: "team-a" });
    expect(body.parent.metadata.namespace).to.equal("team-a");
    expect(Object.keys(body.related["Secret.v1"] ?? {})).to.deep.equal(["team-a/vllm-creds"]);
    const other = {
      text: MINIMAL.text.replace("name: llama", "name: llama\n  namespace: team-b"),
      source: "cr.yaml",
    };
    expect(() => request(other, { namespace: "team-a" })).to.throw(
      RenderError,
      "cr.yaml: metadata.namespace: team-b differs from --namespace team-a; give one of them, or the same in both (as kubectl requires)",
    );
  });

  it("--customize: the /customize request, whose answer names the Secret", () => {
    const body = JSON.parse(request(MINIMAL, { customize: true }).json) as Body;
    expect(Object.keys(body).sort()).to.deep.equal(["controller", "parent"]);
    expect(customize(body as never).relatedResources).to.deep.equal([
      { apiVersion: "v1", resource: "secrets", namespace: "default", names: ["vllm-creds"] },
    ]);
  });

  it("follows the controller: its sync hook's v1 keys, and only the child types it declares", () => {
    const v1 = {
      text: CONTROLLER.text.replaceAll("version: v2", "version: v1"),
      source: "v1.yaml",
    };
    const first = ok(request().json, FIRST);
    const { body } = request(MINIMAL, observing(first), v1);
    expect(Object.keys(body.children["Service.v1"] ?? {})).to.deep.equal(["llama-service"]);
    expect(Object.keys(body.related["Secret.v1"] ?? {})).to.deep.equal(["vllm-creds"]);
    expect(ok(JSON.stringify(body), SECOND).children).to.deep.equal(first.children);
    const noServices = {
      text: CONTROLLER.text.replace(/ {4}- apiVersion: v1\n {6}resource: services\n.*\n.*\n/, ""),
      source: "cc.yaml",
    };
    const fewer = request(MINIMAL, observing(first), noServices);
    expect(fewer.body.children).to.not.have.property("Service.v1");
    expect(fewer.notes).to.include(
      "note: answer.json: children[2] Service/llama-service: the CompositeController declares no Service.v1, so Metacontroller creates it but never observes it: not sent",
    );
  });

  const refused: { name: string; run: () => unknown; error: string }[] = [
    {
      name: "an answer that is not JSON",
      run: () => request(MINIMAL, { observed: { text: "{", source: "a.json" } }),
      error:
        "a.json: not JSON (Expected property name or '}' in JSON at position 1 (line 1 column 2)); give the body /sync answered with 200, as it was (curl -s … -o a.json)",
    },
    {
      name: "an answer that is the hook's 409",
      run: () =>
        request(MINIMAL, {
          observed: { text: '{"error":"Deployment default/llama: …"}', source: "a.json" },
        }),
      error:
        "a.json: an error the hook answered, not children: Deployment default/llama: …; act on it, sync again and give that answer",
    },
    {
      name: "an answer whose child has no name",
      run: () =>
        request(MINIMAL, {
          observed: {
            text: '{"children":[{"apiVersion":"v1","kind":"Service","metadata":{}}]}',
            source: "a.json",
          },
        }),
      error:
        "a.json: children[0].metadata.name: Invalid input: expected string, received undefined; give the body /sync answered with 200, as it was (curl -s … -o a.json)",
    },
    {
      name: "a controller file without a CompositeController",
      run: () => request(MINIMAL, {}, { text: "kind: Deployment\n", source: "cc.yaml" }),
      error:
        "cc.yaml: no document of kind CompositeController; give a CompositeController such as metacontroller/compositecontroller.yaml, or the cluster's (kubectl get compositecontroller llsd-hook -o yaml > cc.yaml)",
    },
    {
      name: "a controller declaring a child type the hook does not return",
      run: () =>
        request(
          MINIMAL,
          {},
          {
            text: CONTROLLER.text.replace("resource: configmaps", "resource: jobs"),
            source: "cc.yaml",
          },
        ),
      error:
        "cc.yaml: spec.childResources[0]: jobs (v1) is none of the types llsd-hook returns; remove it, or give a CompositeController such as metacontroller/compositecontroller.yaml, or the cluster's (kubectl get compositecontroller llsd-hook -o yaml > cc.yaml)",
    },
    {
      name: "two resources in one file",
      run: () =>
        request({
          text: `${MINIMAL.text}---\n${MINIMAL.text.replace("name: llama", "name: b")}`,
          source: "cr.yaml",
        }),
      error:
        "cr.yaml: 2 documents of kind LlamaStackDistribution (llama, b); request takes one: put each in a file of its own",
    },
  ];
  for (const row of refused)
    it(`refuses ${row.name}, naming the file, the field and the fix`, () => {
      expect(row.run).to.throw(RenderError).with.property("message", row.error);
    });
});

describe("llsd-hook request (the command)", function () {
  this.timeout(60_000);
  const cli = (args: string[]) =>
    spawnSync("node", ["--import", "tsx", join(root, "src", "cli", "start.ts"), ...args], {
      cwd: root,
      encoding: "utf8",
    });

  it("prints the request on stdout and the notes on stderr, exit 0", () => {
    const run = cli(["request", "examples/minimal.yaml"]);
    expect(run.status, run.stderr).to.equal(0);
    expect(run.stdout).to.equal(request().json);
    expect(run.stderr).to.include("note: related, not in examples/minimal.yaml");
  });

  for (const [args, error] of [
    [["request", "missing.yaml"], "llsd-hook: missing.yaml: no such file; check the path\n"],
    [
      ["request", "-", "--observed", "-"],
      "llsd-hook: request: the resource and --observed cannot both be stdin (-); give one as a file\n",
    ],
  ] as const)
    it(`${args.join(" ")}: one line naming the file and the fix, exit 2`, () => {
      const run = cli([...args]);
      expect(run.stderr).to.equal(error);
      expect(run.stdout).to.equal("");
      expect(run.status).to.equal(2);
    });

  it("an unknown option, or no file: exit 2 without a stack trace", () => {
    for (const args of [["request", "examples/minimal.yaml", "--observd", "a.json"], ["request"]]) {
      const run = cli(args);
      expect(run.status, args.join(" ")).to.equal(2);
      expect(run.stderr, args.join(" ")).to.not.match(/\n\s+at /);
    }
  });
});
