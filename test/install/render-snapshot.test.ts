// The CLI's startup snapshot (scripts/render-snapshot.ts, bin/llsd-hook):
// built the way `npm run build` builds it, into a copy of the package's file
// set, it must answer exactly what dist/cli/main.js answers — same stdout, same
// stderr (timestamps aside), same exit code — and the launcher must fall back
// to main.js when the snapshot cannot serve (no blob, IMAGE_OVERRIDES_FILE).
import { expect } from "chai";
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import { loadCases } from "../golden/harness.js";
import { root } from "./tools.js";

/** One case of each kind: the releases, TLS, storage, an invalid spec, a generation error. */
const CASES = [
  "n-1-starter-vllm",
  "ogx-1.4.1-starter-vllm-key-model",
  "ogx-us1-2-provider-and-postgres-storage",
  "net-tls-https-probes",
  "trust-ca-bundle-1.5.0",
  "edge-unknown-provider-type",
  "edge-invalid-combination",
];

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** stderr without the times a status carries (the two runs start at different seconds). */
const timeless = (text: string) => text.replace(/"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"/g, '"<time>"');

describe("render from the startup snapshot (bin/llsd-hook)", function () {
  this.timeout(240_000);
  let dir: string;
  const files: string[] = [];

  before(() => {
    dir = mkdtempSync(join(tmpdir(), "llsd-snapshot-"));
    const dist = join(dir, "dist");
    const tsc = spawnSync("npx", ["tsc", "-p", "tsconfig.build.json", "--outDir", dist], {
      cwd: root,
      stdio: "inherit",
    });
    expect(tsc.status, "tsc").to.equal(0);
    const snap = spawnSync(
      process.execPath,
      ["--import", "tsx", join(root, "scripts", "render-snapshot.ts"), dist],
      { cwd: root, stdio: "inherit" },
    );
    expect(snap.status, "scripts/render-snapshot.ts").to.equal(0);
    for (const d of ["bin", "configs"]) cpSync(join(root, d), join(dir, d), { recursive: true });
    // dist/cli/main.js needs the dependencies; the snapshot needs none.
    symlinkSync(join(root, "node_modules"), join(dir, "node_modules"));
    const byName = new Map(loadCases().map((c) => [c.name, c]));
    for (const name of CASES) {
      const c = byName.get(name);
      if (c === undefined) throw new Error(`no golden case ${name}`);
      const file = join(dir, `${name}.yaml`);
      const cr = {
        apiVersion: "llamastack.io/v1alpha2",
        kind: "LlamaStackDistribution",
        metadata: { name: c.file.name ?? "llama", namespace: c.file.namespace ?? "default" },
        spec: c.file.spec,
      };
      writeFileSync(file, stringify(cr));
      files.push(file);
    }
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const blobs = () => readdirSync(join(dir, "dist", "cli")).filter((f) => f.endsWith(".blob"));
  const launcher = (file: string, env: Record<string, string> = {}): Run =>
    spawnSync(join(dir, "bin", "llsd-hook"), ["render", file], {
      encoding: "utf8",
      env: { ...process.env, ...env },
    });
  const plain = (file: string): Run =>
    spawnSync(process.execPath, [join(dir, "dist", "cli", "main.js"), "render", file], {
      encoding: "utf8",
    });

  it("builds one blob, named for this Node.js", () => {
    expect(blobs()).to.deep.equal([`render-${process.version}-${process.arch}.blob`]);
  });

  it("answers what dist/cli/main.js answers, case by case", () => {
    const exits: (number | null)[] = [];
    for (const file of files) {
      const fast = launcher(file);
      const slow = plain(file);
      expect(fast.stdout, file).to.equal(slow.stdout);
      expect(timeless(fast.stderr), file).to.equal(timeless(slow.stderr));
      expect(fast.status, file).to.equal(slow.status);
      exits.push(slow.status);
    }
    // The cases reach both outcomes: a rendered resource and a Failed one.
    expect(exits).to.include(0).and.to.include(1);
  });

  it("serves render from the blob: it works with dist/cli/main.js gone", () => {
    const main = join(dir, "dist", "cli", "main.js");
    const [file] = files;
    if (file === undefined) throw new Error("no case");
    const expected = plain(file);
    const saved = join(dir, "main.js.saved");
    cpSync(main, saved);
    rmSync(main);
    try {
      const fast = launcher(file);
      expect(fast.status).to.equal(expected.status);
      expect(fast.stdout).to.equal(expected.stdout).and.to.include("kind: Deployment");
      // ...and IMAGE_OVERRIDES_FILE, read at run time, sends render to main.js (absent here).
      const overridden = launcher(file, { IMAGE_OVERRIDES_FILE: join(dir, "none.yaml") });
      expect(overridden.status).to.not.equal(0);
      expect(overridden.stderr).to.include("main.js");
    } finally {
      cpSync(saved, main);
    }
  });

  it("falls back to dist/cli/main.js without a blob for this Node.js", () => {
    const [file] = files;
    if (file === undefined) throw new Error("no case");
    const expected = plain(file);
    for (const b of blobs()) rmSync(join(dir, "dist", "cli", b));
    const fallback = launcher(file);
    expect(fallback.status).to.equal(expected.status);
    expect(fallback.stdout).to.equal(expected.stdout);
  });
});
