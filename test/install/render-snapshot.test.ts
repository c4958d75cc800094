// The CLI's startup snapshot (scripts/render-snapshot.ts, bin/llsd-hook):
// built the way `npm run build` builds it, into a copy of the package's file
// set, it must answer exactly what dist/cli/main.js answers — same stdout, same
// stderr (timestamps aside), same exit code — for resources of every release
// and of several distributions (each read from the JSON catalog on first use),
// and the launcher must fall back to main.js when the snapshot cannot serve
// (no blob, a blob built by another node binary, NODE_OPTIONS, whose --import
// a snapshot start skips, IMAGE_OVERRIDES_FILE).
import { expect } from "chai";
import { spawnSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import { loadCases } from "../support/harness.js";
import { root } from "../support/tools.js";

/**
 * One case of each kind: every release, distributions other than starter, TLS,
 * storage, embedded Kubernetes types, an invalid spec, a generation error, a
 * release or distribution the catalog does not have.
 */
const CASES = [
  "n-1-starter-vllm",
  "ogx-1.4.1-starter-vllm-key-model",
  "ogx-us1-2-provider-and-postgres-storage",
  "ogx-nvidia-no-published-image",
  "postgres-demo-provider",
  "net-tls-https-probes",
  "trust-ca-bundle-1.5.0",
  "wl-overrides",
  "edge-unknown-provider-type",
  "edge-invalid-combination",
  "edge-unsupported-release",
  "edge-distribution-named-constructor",
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

  it("builds one blob, named for this Node.js, its stamp and the JSON catalog", () => {
    const blob = `render-${process.version}-${process.arch}.blob`;
    expect(blobs()).to.deep.equal([blob]);
    expect(readFileSync(join(dir, "dist", "cli", "render-snapshot.stamp"), "utf8")).to.equal(
      `${process.execPath}\n${blob}\n`,
    );
    const catalog = join(dir, "dist", "cli", "render-catalog");
    for (const d of readdirSync(join(root, "configs", "1.5.0", "distributions"))) {
      expect(existsSync(join(catalog, "1.5.0", "distributions", d, "config.json")), d).to.equal(
        true,
      );
      expect(existsSync(join(catalog, "1.5.0", "distributions", d, "config.yaml")), d).to.equal(
        false,
      );
    }
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

  /** Runs `check` with dist/cli/main.js gone: what still works is served by the blob. */
  const withoutMain = (check: () => void) => {
    const main = join(dir, "dist", "cli", "main.js");
    const saved = join(dir, "main.js.saved");
    cpSync(main, saved);
    rmSync(main);
    try {
      check();
    } finally {
      cpSync(saved, main);
    }
  };
  const first = () => {
    const [file] = files;
    if (file === undefined) throw new Error("no case");
    return file;
  };
  /** The launcher went to dist/cli/main.js, absent here. */
  const wentToMain = (run: Run) => {
    expect(run.status).to.not.equal(0);
    expect(run.stderr).to.include("main.js");
  };

  it("serves render from the blob: it works with dist/cli/main.js gone", () => {
    const file = first();
    const expected = plain(file);
    withoutMain(() => {
      const fast = launcher(file);
      expect(fast.status).to.equal(expected.status);
      expect(fast.stdout).to.equal(expected.stdout).and.to.include("kind: Deployment");
      // ...and IMAGE_OVERRIDES_FILE, read at run time, sends render to main.js.
      wentToMain(launcher(file, { IMAGE_OVERRIDES_FILE: join(dir, "none.yaml") }));
    });
  });

  it("falls back to dist/cli/main.js under NODE_OPTIONS, whose --import a snapshot start skips", () => {
    const file = first();
    // A preload that says it ran; NODE_OPTIONS may name one (instrumentation, a proxy agent).
    const preload = join(dir, "preload.mjs");
    writeFileSync(preload, 'process.stderr.write("preload ran\\n");\n');
    const options = { NODE_OPTIONS: `--import ${preload}` };
    // Why: Node.js 24 starts the blob under NODE_OPTIONS but without running its --import
    // (V8 flags there, such as --max-old-space-size, no longer refuse it as on Node.js 20).
    const blob = join(dir, "dist", "cli", blobs()[0] ?? "");
    const direct = spawnSync(process.execPath, ["--snapshot-blob", blob, "render", file], {
      encoding: "utf8",
      env: { ...process.env, ...options },
    });
    const expected = plain(file);
    expect(direct.stdout).to.equal(expected.stdout);
    expect(direct.stderr).to.not.include("preload ran");
    const fallback = launcher(file, options);
    expect(fallback.status).to.equal(expected.status);
    expect(fallback.stdout).to.equal(expected.stdout);
    expect(fallback.stderr).to.include("preload ran");
    withoutMain(() => wentToMain(launcher(file, options)));
  });

  it("falls back to dist/cli/main.js when the node on PATH did not build the blob", () => {
    const file = first();
    const stamp = join(dir, "dist", "cli", "render-snapshot.stamp");
    const text = readFileSync(stamp, "utf8");
    try {
      // Another binary built it (the stamp names it), or this one changed after the build.
      writeFileSync(stamp, text.replace(process.execPath, "/bin/sh"));
      withoutMain(() => wentToMain(launcher(file)));
    } finally {
      writeFileSync(stamp, text);
    }
    // The blob older than the node binary: the binary was replaced in place since the build.
    const blob = join(dir, "dist", "cli", blobs()[0] ?? "");
    const { atime, mtime } = statSync(blob);
    const before = new Date(statSync(process.execPath).mtimeMs - 60_000);
    try {
      utimesSync(blob, before, before);
      withoutMain(() => wentToMain(launcher(file)));
    } finally {
      utimesSync(blob, atime, mtime);
    }
    withoutMain(() => expect(launcher(file).status).to.be.oneOf([0, 1]));
  });

  it("falls back to dist/cli/main.js without a blob for this Node.js", () => {
    const file = first();
    const expected = plain(file);
    for (const b of blobs()) rmSync(join(dir, "dist", "cli", b));
    const fallback = launcher(file);
    expect(fallback.status).to.equal(expected.status);
    expect(fallback.stdout).to.equal(expected.stdout);
  });
});
