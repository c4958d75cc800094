// What a release means for the hook, from the release table (src/release.ts):
// the facts of each release, the table against the supported releases'
// registries, and a release added as data only.
import { expect } from "chai";
import type { Deployment } from "kubernetes-types/apps/v1.js";
import { LLAMA_APIS, specKeyOf } from "../../src/api/llama-apis.js";
import type { Catalog, ReleaseData } from "../../src/config/catalog.js";
import { dialectOf } from "../../src/config/dialect.js";
import { RESERVED_ENV } from "../../src/container.js";
import { msg } from "../../src/messages.js";
import {
  apiChange,
  FALLBACK_RELEASE,
  RELEASE_TABLE,
  releaseFacts,
  removedByOgx,
} from "../../src/release.js";
import { sync } from "../../src/sync.js";
import { syncContext } from "../support/harness.js";
import { request } from "../support/request.js";

const catalog = syncContext().catalog;

/** Whether release `a` is `b` or later (X.Y.Z compared part by part). */
const atLeast = (a: string, b: string) => a.localeCompare(b, "en", { numeric: true }) >= 0;

describe("releaseFacts", () => {
  // OGX 1.2.0 added ogx/telemetry's scrape server; 1.1.3 and llama-stack 0.x have none.
  const rows: [release: string, has: boolean][] = [
    ["0.6.1", false],
    ["0.7.3", false],
    ["0.8.0", false],
    ["1.1.3", false],
    ["1.2.0", true],
    ["1.4.1", true],
    ["1.5.0", true],
    ["2.0.0", true],
  ];
  for (const [release, has] of rows)
    it(`${release}: ${has ? "a" : "no"} metrics endpoint`, () =>
      expect(releaseFacts(release).metricsEndpoint).to.equal(has));

  it("OGX from 0.8 on; a custom image's unknown release knows neither", () => {
    expect(releaseFacts("0.7.3").ogx).to.equal(false);
    expect(releaseFacts("0.8.0").ogx).to.equal(true);
    const unknown = releaseFacts(undefined);
    expect([unknown?.ogx, unknown?.metricsEndpoint]).to.deep.equal([undefined, undefined]);
    expect(unknown).to.equal(undefined);
  });

  const LLAMA_STACK_ENV = {
    config: ["RUN_CONFIG_PATH", "LLAMA_STACK_CONFIG"],
    port: "LLAMA_STACK_PORT",
  };
  const OGX_ENV = { config: ["RUN_CONFIG_PATH"], port: "OGX_PORT" };
  const facts: {
    release: string;
    product: string;
    env: object;
    command: string[] | undefined;
    parseMigrations: string[];
  }[] = [
    // 0.7 renamed agents and removed post_training: nothing the pod sees.
    {
      release: "0.6.1",
      product: "Llama Stack",
      env: LLAMA_STACK_ENV,
      command: undefined,
      parseMigrations: [],
    },
    {
      release: "0.7.3",
      product: "Llama Stack",
      env: LLAMA_STACK_ENV,
      command: undefined,
      parseMigrations: [],
    },
    {
      release: "0.8.0",
      product: "OGX",
      env: OGX_ENV,
      command: ["ogx", "run"],
      parseMigrations: [],
    },
    {
      release: "1.0.0",
      product: "OGX",
      env: OGX_ENV,
      command: ["ogx", "run"],
      parseMigrations: ["prompts-kv-to-sql"],
    },
    {
      release: "1.4.1",
      product: "OGX",
      env: OGX_ENV,
      command: ["ogx", "run"],
      parseMigrations: ["prompts-kv-to-sql", "connectors-kv-to-sql"],
    },
    {
      release: "1.10.0",
      product: "OGX",
      env: OGX_ENV,
      command: ["ogx", "run"],
      parseMigrations: ["prompts-kv-to-sql", "connectors-kv-to-sql"],
    },
  ];
  for (const row of facts)
    it(`${row.release}: ${row.product}, its env, command and parse migrations`, () => {
      const f = releaseFacts(row.release);
      expect(f.release).to.equal(row.release);
      expect([f.product, f.env, f.command, f.parseMigrations]).to.deep.equal([
        row.product,
        row.env,
        row.command,
        row.parseMigrations,
      ]);
    });

  it("is frozen: every reader shares the table's facts", () => {
    const f = releaseFacts("1.5.0");
    expect([f, f.env, f.env.config, f.command, f.parseMigrations].every(Object.isFrozen)).to.equal(
      true,
    );
    expect(RELEASE_TABLE.every(Object.isFrozen)).to.equal(true);
  });
});

describe("the release table", () => {
  it("starts at 0.0.0, rows in release order", () => {
    const froms = RELEASE_TABLE.map((r) => r.from);
    expect(froms[0]).to.equal("0.0.0");
    expect([...froms].sort((a, b) => a.localeCompare(b, "en", { numeric: true }))).to.deep.equal(
      froms,
    );
  });

  it("the fallback release is the last Llama Stack release the hook supports", () => {
    const llamaStack = catalog.releases.filter((r) => releaseFacts(r).product === "Llama Stack");
    expect(llamaStack).to.include(FALLBACK_RELEASE);
    expect(llamaStack.every((r) => atLeast(FALLBACK_RELEASE, r))).to.equal(true);
  });

  it("every release's config and port names are reserved from the overrides", () => {
    for (const row of RELEASE_TABLE)
      for (const name of [...(row.env?.config ?? []), ...(row.env ? [row.env.port] : [])])
        expect(RESERVED_ENV, `${row.from}: ${name}`).to.have.property(name);
  });

  // An API the table says nothing of is in every supported release; one it
  // says was added, removed or renamed is in exactly the releases it says.
  it("agrees with every supported release's registry on its APIs", () => {
    const present = (api: string, release: string): boolean => {
      let has = !RELEASE_TABLE.some(
        (r) => r.added?.includes(api) === true || Object.values(r.renamed ?? {}).includes(api),
      );
      for (const r of RELEASE_TABLE.filter((row) => atLeast(release, row.from))) {
        if (r.added?.includes(api) === true || Object.values(r.renamed ?? {}).includes(api))
          has = true;
        if (r.removed?.includes(api) === true || Object.hasOwn(r.renamed ?? {}, api)) has = false;
      }
      return has;
    };
    for (const release of catalog.releases) {
      const data = catalog.byRelease[release];
      const expected = LLAMA_APIS.filter((api) => present(api, release));
      expect([...(data?.apis.providable ?? [])].sort(), release).to.deep.equal(expected);
    }
  });

  const changes: [api: string, change: ReturnType<typeof apiChange>, removedByOgx?: string][] = [
    ["agents", { change: "renamed", to: "responses", from: "0.7.0", product: "Llama Stack" }],
    ["post_training", { change: "removed", from: "0.7.0", product: "Llama Stack" }],
    ["eval", { change: "removed", from: "0.8.0", product: "OGX" }, "0.8.0"],
    ["safety", { change: "removed", from: "1.0.0", product: "OGX" }, "1.0.0"],
    ["skills", { change: "added", from: "1.1.0", product: "OGX" }],
    ["container_runtime", { change: "added", from: "1.2.0", product: "OGX" }],
    ["inference", undefined],
    // Own names only.
    ["constructor", undefined],
    ["__proto__", undefined],
  ];
  for (const [api, change, removedIn] of changes)
    it(`apiChange(${api})`, () => {
      expect(apiChange(api)).to.deep.equal(change);
      expect(removedByOgx(api)).to.equal(removedIn);
    });
});

// A release added as data only: its catalog entry (what npm run configs:update
// extracts, here 1.5.0's under a new number) and an image. No code names it,
// yet the dialect and every stage after it treat it as the OGX it is.
describe("a release added as data only (a fictional OGX 1.6.0)", () => {
  const FICTIONAL = "1.6.0";
  const extracted = catalog.byRelease["1.5.0"]!;
  // Its own objects, as a load gives each release: parsed base configs are cached by object.
  const data: ReleaseData = {
    ...structuredClone(extracted),
    release: FICTIONAL,
  };
  const fictional: Catalog = {
    releases: [FICTIONAL, ...catalog.releases],
    byRelease: { ...catalog.byRelease, [FICTIONAL]: data },
    images: {
      ...catalog.images,
      starter: {
        ...catalog.images["starter"],
        [FICTIONAL]: { image: "example.com/starter:1.6.0" },
      },
    },
  };
  const ctx = { ...syncContext(), catalog: fictional };
  const run = (spec: Record<string, unknown>) => {
    const out = sync(request(spec), "2026-11-01T12:00:00Z", ctx);
    if (out.kind !== "ok") throw new Error(out.message);
    return out.response;
  };
  const distribution = { name: "starter", release: FICTIONAL };

  it("the dialect reads the table for it", () => {
    const d = dialectOf(data);
    expect(d.release).to.equal(FICTIONAL);
    expect([d.product, d.ogx, d.metricsEndpoint, d.strictTls]).to.deep.equal([
      "OGX",
      true,
      true,
      true,
    ]);
    expect(d.env).to.deep.equal({ config: ["RUN_CONFIG_PATH"], port: "OGX_PORT" });
    expect(d.command).to.deep.equal(["ogx", "run"]);
    expect(d.parseMigrations).to.deep.equal(["prompts-kv-to-sql", "connectors-kv-to-sql"]);
  });

  it("its pod is an OGX pod: ogx run, OGX_PORT, /tmp in memory, metrics served, its release label", () => {
    const response = run({ distribution, monitoring: { metrics: { port: 9464 } } });
    const deployment = response.children.find((c) => c.kind === "Deployment") as Deployment;
    const pod = deployment.spec?.template.spec;
    const container = pod?.containers[0];
    expect(container?.image).to.equal("example.com/starter:1.6.0");
    expect(container?.command).to.deep.equal(["ogx", "run", "/etc/llama-stack/config.yaml"]);
    expect(container?.env?.map((e) => e.name)).to.include.members([
      "OGX_PORT",
      "OGX_METRICS_ENDPOINT_ENABLED",
    ]);
    expect(container?.env?.map((e) => e.name)).to.not.include("LLAMA_STACK_PORT");
    expect(pod?.volumes?.map((v) => v.name)).to.include("ogx-tmp");
    expect(deployment.metadata?.labels?.["llamastack.io/release"]).to.equal(FICTIONAL);
  });

  it("messages name it OGX 1.6.0, with the table's history of an API", () => {
    const response = run({ distribution, providers: { agents: [{ provider: "meta-reference" }] } });
    const valid = dialectOf(data).providableApis.map(specKeyOf);
    const conditions = (response.status["conditions"] ?? []) as { message?: string }[];
    const messages = conditions.map((c) => c.message ?? "");
    const want = `spec.providers.agents: ${msg.unknownApi("agents", FICTIONAL, valid, "renamed responses in 0.7")}`;
    expect(
      messages.some((m) => m.split("\n").includes(want)),
      messages.join("\n"),
    ).to.equal(true);
    expect(want).to.include("agents is not an API of OGX 1.6.0 (renamed responses in 0.7)");
  });
});
