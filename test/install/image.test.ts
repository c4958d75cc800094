// The hook's image as built from the Dockerfile (scripts/build-image.sh, by
// buildah on the stand-in base; npm run peers builds it): its config as the
// Dockerfile says, its files (compiled JavaScript, configs/, production
// dependencies only, no source maps, tests, sources or build secret), its size,
// and the image running under runc as the manifests run it (uid 1000, read-only
// root filesystem, no capabilities): /healthz answers, --version prints the
// package's version, SIGTERM stops it.
import { expect } from "chai";
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { parse } from "yaml";
import { freePort } from "../net.js";
import { loadPeers } from "../peers.js";
import { IMAGE_TEST_CONTAINERS } from "../node/host.js";
import { layerPaths, readOciArchive, unpackLayers, type OciImage } from "./oci-image.js";
import { root } from "../support/tools.js";

const MiB = 2 ** 20;

interface Dockerfile {
  base: string;
  user: string;
  workdir: string;
  expose: string[];
  entrypoint: string[];
  env: string[];
}

/** What the Dockerfile's last stage says the image is. */
function dockerfile(): Dockerfile {
  const text = readFileSync(join(root, "Dockerfile"), "utf8");
  const base = /^ARG NODE_IMAGE=(\S+)$/m.exec(text)?.[1];
  const last = text.slice(text.lastIndexOf("\nFROM "));
  const one = (instr: string): string => {
    const all = [...last.matchAll(new RegExp(`^${instr} (.+)$`, "gm"))].map((m) => m[1] ?? "");
    if (all.length !== 1) throw new Error(`the Dockerfile's last stage has ${all.length} ${instr}`);
    return all[0] ?? "";
  };
  if (base === undefined) throw new Error("the Dockerfile has no ARG NODE_IMAGE=");
  return {
    base,
    user: one("USER"),
    workdir: one("WORKDIR"),
    expose: one("EXPOSE").split(/\s+/),
    entrypoint: JSON.parse(one("ENTRYPOINT")) as string[],
    env: [...last.matchAll(/^ENV (\S+)=(\S+)$/gm)].map((m) => `${m[1]}=${m[2]}`),
  };
}

/** Every file and directory under `dir`, relative to it. */
function walk(dir: string, base = dir): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    return [relative(base, path), ...(e.isDirectory() ? walk(path, base) : [])];
  });
}

/** The package folders of a node_modules tree (node_modules/a, node_modules/@s/b, nested ones), relative to `app`. */
function packageDirs(app: string): string[] {
  return walk(join(app, "node_modules"), app)
    .filter((p) => /(^|\/)node_modules\/(@[^/]+\/)?[^/@.][^/]*$/.test(p))
    .filter((p) => existsSync(join(app, p, "package.json")))
    .sort();
}

function sha256(file: string): string {
  return createHash("sha256").update(readFileSync(file)).digest("hex");
}

function bytesOf(image: OciImage, layer: OciImage["manifest"]["layers"][number]): number {
  const file = join(image.layout, "blobs", ...layer.digest.split(":"));
  const cat = layer.mediaType.endsWith("+gzip") ? `gzip -dc '${file}'` : `cat '${file}'`;
  return Number(execFileSync("sh", ["-c", `${cat} | wc -c`], { encoding: "utf8" }).trim());
}

/** Why the image cannot run here, or undefined. */
function cannotRun(runc: string | undefined): string | undefined {
  if (process.getuid?.() !== 0) return "not root (runc needs it)";
  if (runc === undefined || !existsSync(runc))
    return `no runc at ${runc} (npm run peers builds the node)`;
  return undefined;
}

describe("the hook's image (scripts/build-image.sh: the Dockerfile, built by buildah)", function () {
  this.timeout(180_000);
  const version = (
    JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string }
  ).version;
  const df = dockerfile();
  let work: string;
  let image: OciImage;
  let rootfs: string;
  let base: OciImage;

  before(function () {
    const built = loadPeers().hookImage;
    if (built === undefined || !existsSync(built.archive) || !existsSync(built.base))
      throw new Error(
        `no hook image in peers.json (${JSON.stringify(built)}): run "npm run peers"`,
      );
    work = mkdtempSync(join(tmpdir(), "llsd-image-"));
    image = readOciArchive(built.archive, join(work, "layout"));
    base = readOciArchive(built.base, join(work, "base"));
    rootfs = join(work, "bundle", "rootfs");
    unpackLayers(image, rootfs);
    console.log(`    image: ${built.archive}`);
  });

  after(() => {
    if (work !== undefined) rmSync(work, { recursive: true, force: true });
  });

  it("is named as the manifests name it, for ctr images import", function () {
    const deployment = parse(
      readFileSync(join(root, "manifests", "hook", "deployment.yaml"), "utf8"),
    ) as { spec: { template: { spec: { containers: { image: string }[] } } } };
    const named = deployment.spec.template.spec.containers[0]?.image;
    expect(named).to.equal(`ghcr.io/llsd-hook/llsd-hook:${version}`);
    const annotations = image.index.manifests[0]?.annotations ?? {};
    expect(annotations["io.containerd.image.name"]).to.equal(named);
    expect(annotations["org.opencontainers.image.ref.name"]).to.equal(named);
    // The platform on the index, as containerd matches it on import.
    expect(image.index.manifests[0]?.platform).to.deep.equal({
      architecture: image.config.architecture,
      os: image.config.os,
    });
    expect(image.config.architecture).to.equal("amd64");
  });

  it("is built on the Dockerfile's base: its layers first, its environment", function () {
    expect(image.manifest.annotations?.["org.opencontainers.image.base.name"]).to.equal(df.base);
    const baseIds = base.config.rootfs.diff_ids;
    expect(image.config.rootfs.diff_ids.slice(0, baseIds.length)).to.deep.equal(baseIds);
    // The hook's own files are one layer above the base (buildah commits a stage once).
    expect(image.config.rootfs.diff_ids).to.have.length(baseIds.length + 1);
    const baseEnv = base.config.config.Env ?? [];
    expect(image.config.config.Env).to.include.members(baseEnv);
    expect(baseEnv.some((e) => e.startsWith("NODE_VERSION="))).to.equal(true);
    expect(baseEnv).to.include(`NODE_VERSION=${/node:(\d+\.\d+\.\d+)-/.exec(df.base)?.[1]}`);
    // The stand-in says so, in its label (docs/operations/image.md).
    const label = image.config.config.Labels?.["io.llsd-hook.stand-in-base"] ?? "";
    if (label !== "") console.log(`    base: a stand-in: ${label}`);
  });

  it("has the Dockerfile's user, ports, entrypoint, working directory and environment", function () {
    const c = image.config.config;
    expect(c.User).to.equal(df.user);
    expect(Object.keys(c.ExposedPorts ?? {}).sort()).to.deep.equal(
      df.expose.map((p) => `${p}/tcp`).sort(),
    );
    expect(c.Entrypoint).to.deep.equal(df.entrypoint);
    // ENTRYPOINT in the Dockerfile resets the base's CMD ["node"].
    expect(c.Cmd ?? []).to.deep.equal([]);
    expect(c.WorkingDir).to.equal(df.workdir);
    expect(c.Env).to.include.members(df.env);
  });

  it("runs as the non-root node user, uid and gid 1000, and cannot change its own files", function () {
    const [uid, gid] = (image.config.config.User ?? "").split(":").map(Number);
    expect(uid).to.equal(1000);
    expect(gid).to.equal(1000);
    const passwd = readFileSync(join(rootfs, "etc", "passwd"), "utf8");
    expect(passwd).to.match(/^node:x:1000:1000:/m);
    const group = readFileSync(join(rootfs, "etc", "group"), "utf8");
    expect(group).to.match(/^node:x:1000:/m);
    for (const p of ["app", "app/dist/server/main.js", "app/node_modules", "app/configs"]) {
      const s = statSync(join(rootfs, p));
      expect(s.uid, p).to.equal(0);
      expect(s.mode & 0o022, `${p} writable by group or others`).to.equal(0);
    }
  });

  it("holds compiled JavaScript, configs/ and package files only: no sources, tests or source maps", function () {
    const app = join(rootfs, "app");
    expect(readdirSync(app).sort()).to.deep.equal([
      "configs",
      "dist",
      "node_modules",
      "package-lock.json",
      "package.json",
    ]);
    const dist = walk(join(app, "dist"));
    const files = dist.filter((p) => statSync(join(app, "dist", p)).isFile());
    // JavaScript, and the JSON modules it imports (the embedded Kubernetes schemas).
    expect(files.filter((p) => !/\.(js|json)$/.test(p))).to.deep.equal([]);
    expect(files.filter((p) => /(^|\/)test(s)?\/|\.test\.js$/.test(p))).to.deep.equal([]);
    expect(files).to.include("server/main.js");
    for (const p of ["package.json", "package-lock.json"])
      expect(sha256(join(app, p)), p).to.equal(sha256(join(root, p)));
    const maps = walk(join(app, "node_modules")).filter((p) => p.endsWith(".map")).length;
    console.log(`    source maps: none in dist/; ${maps} shipped inside production packages`);
  });

  it("has configs/ exactly as the repository has it", function () {
    const mine = walk(join(root, "configs")).filter((p) =>
      statSync(join(root, "configs", p)).isFile(),
    );
    const theirs = walk(join(rootfs, "app", "configs")).filter((p) =>
      statSync(join(rootfs, "app", "configs", p)).isFile(),
    );
    expect(theirs.sort()).to.deep.equal(mine.sort());
    expect(mine.length).to.be.greaterThan(0);
    for (const p of mine)
      expect(sha256(join(rootfs, "app", "configs", p)), p).to.equal(
        sha256(join(root, "configs", p)),
      );
  });

  it("has the production dependencies only: node_modules is npm ls --omit=dev of the lock", function () {
    const out = execFileSync("npm", ["ls", "--omit=dev", "--all", "--parseable"], {
      cwd: root,
      encoding: "utf8",
    });
    const prod = out
      .split("\n")
      .filter((p) => p.startsWith(join(root, "node_modules")))
      .map((p) => relative(root, p))
      .sort();
    const shipped = packageDirs(join(rootfs, "app"));
    expect(prod.length).to.be.greaterThan(10);
    expect(
      shipped.filter((p) => !prod.includes(p)),
      "in the image, not production",
    ).to.deep.equal([]);
    expect(
      prod.filter((p) => !shipped.includes(p)),
      "production, not in the image",
    ).to.deep.equal([]);
    for (const dev of ["typescript", "mocha", "eslint", "tsx", "esbuild"])
      expect(existsSync(join(rootfs, "app", "node_modules", dev)), dev).to.equal(false);
  });

  it("keeps no build secret, npm cache, logs or temporary files", function () {
    const hookLayer = image.manifest.layers[image.manifest.layers.length - 1];
    if (hookLayer === undefined) throw new Error("no layers");
    const added = layerPaths(image, hookLayer);
    expect(added.filter((p) => /(^|\/)\.?npmrc$/.test(p))).to.deep.equal([]);
    expect(added.filter((p) => p.startsWith("root/") || p.startsWith("tmp/"))).to.deep.equal([]);
    expect(existsSync(join(rootfs, "root", ".npm"))).to.equal(false);
    expect(readdirSync(join(rootfs, "tmp"))).to.deep.equal([]);
    // buildah leaves the secret's mount point directory, empty.
    const secrets = join(rootfs, "run", "secrets");
    if (existsSync(secrets)) expect(readdirSync(secrets)).to.deep.equal([]);
  });

  it("has its size recorded: the base, the hook's layer, the archive", function () {
    const layers = image.manifest.layers.map((l) => bytesOf(image, l));
    const total = layers.reduce((a, b) => a + b, 0);
    const hook = layers[layers.length - 1] ?? 0;
    const archive = image.manifest.layers.reduce((a, l) => a + l.size, 0);
    const nodeModules = walk(join(rootfs, "app", "node_modules"))
      .map((p) => lstatSync(join(rootfs, "app", "node_modules", p)))
      .filter((st) => st.isFile())
      .reduce((a, st) => a + st.size, 0);
    console.log(
      `    size: ${(total / MiB).toFixed(1)} MiB unpacked (base ${((total - hook) / MiB).toFixed(1)} MiB, ` +
        `the hook's layer ${(hook / MiB).toFixed(1)} MiB, of it node_modules ${(nodeModules / MiB).toFixed(1)} MiB); ` +
        `${(archive / MiB).toFixed(1)} MiB compressed`,
    );
    // A regression guard, not a target: the hook's layer is about 20 MiB; the
    // dev dependencies alone are over 100 MiB, so a build that ships them, or
    // the repository, fails here.
    expect(hook).to.be.below(64 * MiB);
  });

  describe("running under runc as the manifests run it", function () {
    let runc: string | undefined;
    // Named so that the node's check of the machine, running beside, leaves its cgroups to it.
    const id = `${IMAGE_TEST_CONTAINERS}${process.pid}`;
    let state: string;
    let bundle: string;
    let proc: ChildProcess | undefined;
    let logFile: string;
    let port: number;
    let metricsPort: number;
    let apiServerPort: number;

    before(async function () {
      const node = loadPeers().node;
      runc = node === undefined ? undefined : join(node.binDir, "runc");
      const why = cannotRun(runc);
      if (why !== undefined) {
        if (process.env["CI"] === "true") throw new Error(`the image cannot run here: ${why}`);
        console.log(`[image] SKIPPED: the image cannot run on this machine: ${why}`);
        this.skip();
      }
      state = join(work, "runc");
      bundle = join(work, "bundle");
      logFile = join(work, "hook.log");
      mkdirSync(state, { recursive: true });
      port = await freePort();
      metricsPort = await freePort();
      apiServerPort = await freePort();
    });

    /** An OCI runtime config: the image's user, environment and working directory, read-only root, no capabilities, the host's network (so loopback reaches it). */
    function runtimeConfig(args: string[]): void {
      const c = image.config.config;
      const [uid, gid] = (c.User ?? "").split(":").map(Number);
      const spec = {
        ociVersion: "1.0.2",
        process: {
          terminal: false,
          user: { uid, gid },
          args,
          env: [
            ...(c.Env ?? []),
            `PORT=${port}`,
            `METRICS_PORT=${metricsPort}`,
            `API_SERVER_PORT=${apiServerPort}`,
          ],
          cwd: c.WorkingDir,
          capabilities: { bounding: [], effective: [], permitted: [] },
          noNewPrivileges: true,
        },
        root: { path: "rootfs", readonly: true },
        hostname: "llsd-hook",
        mounts: [
          { destination: "/proc", type: "proc", source: "proc" },
          {
            destination: "/dev",
            type: "tmpfs",
            source: "tmpfs",
            options: ["nosuid", "strictatime", "mode=755", "size=65536k"],
          },
          {
            destination: "/dev/pts",
            type: "devpts",
            source: "devpts",
            options: ["nosuid", "noexec", "newinstance", "ptmxmode=0666", "mode=0620"],
          },
          {
            destination: "/dev/shm",
            type: "tmpfs",
            source: "shm",
            options: ["nosuid", "noexec", "nodev", "mode=1777", "size=65536k"],
          },
          {
            destination: "/sys",
            type: "sysfs",
            source: "sysfs",
            options: ["nosuid", "noexec", "nodev", "ro"],
          },
        ],
        linux: {
          namespaces: [{ type: "pid" }, { type: "ipc" }, { type: "uts" }, { type: "mount" }],
          maskedPaths: ["/proc/kcore", "/proc/keys", "/sys/firmware"],
          readonlyPaths: ["/proc/sys", "/proc/sysrq-trigger", "/proc/irq", "/proc/bus"],
        },
      };
      writeFileSync(join(bundle, "config.json"), JSON.stringify(spec));
    }

    const runcArgs = (...args: string[]): string[] => ["--root", state, ...args];
    const entrypoint = (): string[] => [
      ...(image.config.config.Entrypoint ?? []),
      ...(image.config.config.Cmd ?? []),
    ];

    after(function () {
      if (runc === undefined || state === undefined || !existsSync(state)) return;
      try {
        execFileSync(runc, runcArgs("delete", "--force", id), { stdio: "ignore" });
      } catch {
        // not there
      }
      proc?.kill("SIGKILL");
    });

    it("runs the base reference's Node.js", function () {
      runtimeConfig(["node", "--version"]);
      const out = execFileSync(runc ?? "", runcArgs("run", "--bundle", bundle, `${id}-node`), {
        encoding: "utf8",
        stdio: ["ignore", "pipe", "pipe"],
        timeout: 30_000,
      });
      expect(out.trim()).to.equal(`v${/node:(\d+\.\d+\.\d+)-/.exec(df.base)?.[1]}`);
    });

    it("prints the package's version with --version", function () {
      runtimeConfig([...entrypoint(), "--version"]);
      const out = execFileSync(runc ?? "", runcArgs("run", "--bundle", bundle, `${id}-version`), {
        encoding: "utf8",
        stdio: ["ignore", "pipe", "pipe"],
        timeout: 30_000,
      });
      expect(out.trim()).to.equal(version);
    });

    it("serves GET /healthz and /readyz, and its version on /metrics; SIGTERM stops it", async function () {
      runtimeConfig(entrypoint());
      const log = openSync(logFile, "w");
      proc = spawn(runc ?? "", runcArgs("run", "--bundle", bundle, id), {
        stdio: ["ignore", log, log],
      });
      const t0 = Date.now();
      const logText = (): string => readFileSync(logFile, "utf8");
      let health: Response | undefined;
      while (Date.now() - t0 < 30_000) {
        if (proc.exitCode !== null)
          throw new Error(`the image exited (${proc.exitCode}):\n${logText()}`);
        try {
          health = await fetch(`http://127.0.0.1:${port}/healthz`);
          break;
        } catch {
          await new Promise((r) => setTimeout(r, 200));
        }
      }
      if (health === undefined) throw new Error(`no answer on /healthz in 30 s:\n${logText()}`);
      console.log(`    listening ${Date.now() - t0} ms after runc run`);
      expect(health.status).to.equal(200);
      expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).to.equal(200);
      const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
      expect(metrics).to.include(`llsd_hook_build_info{version="${version}"} 1`);
      // What the process is: uid and gid 1000, no capabilities, the image's entrypoint.
      const { pid } = JSON.parse(
        execFileSync(runc ?? "", runcArgs("state", id), { encoding: "utf8" }),
      ) as { pid: number };
      const status = readFileSync(`/proc/${pid}/status`, "utf8");
      expect(status).to.match(/^Uid:\s+1000\s+1000\s+1000\s+1000$/m);
      expect(status).to.match(/^Gid:\s+1000\s+1000\s+1000\s+1000$/m);
      expect(status).to.match(/^CapEff:\s+0+$/m);
      expect(status).to.match(/^NoNewPrivs:\s+1$/m);
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean);
      expect(cmdline).to.deep.equal(entrypoint());
      const stopped = new Promise<number | null>((r) => proc?.once("exit", (code) => r(code)));
      execFileSync(runc ?? "", runcArgs("kill", id, "TERM"));
      const code = await Promise.race([
        stopped,
        new Promise<string>((r) => setTimeout(() => r("still running 15 s after SIGTERM"), 15_000)),
      ]);
      expect(code, logText()).to.equal(0);
      expect(logText()).to.include('"msg":"shutting down"');
      expect(lstatSync(logFile).size).to.be.greaterThan(0);
    });
  });
});
