// npm start and bin/llsd-hook as a user meets them, in a copy of the checkout
// (its own dist/; node_modules linked):
//   - the README's "Try the hook with curl" blocks, taken from README.md and run
//     as written — `npm start` (which builds dist/ first) in one shell, the two
//     curl lines in another — in a network namespace of their own, so the
//     localhost:8080 they name is theirs: the first sync answers the
//     ConfigMap, Deployment and Service, the --observed one the same children;
//   - npm start again rebuilds nothing; after a source changed, it rebuilds;
//   - this machine's own older Node.js (20 here, outside the project's cache):
//     npm start stops before building, and bin/llsd-hook --version and the
//     server's entry print one line naming the version found, the one needed
//     and the PATH to set, with a non-zero exit.
// The tests run in order: the second builds what the later ones use.
import { expect } from "chai";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { homedir, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { SyncResponse } from "../../src/api/hook.js";
import { engineProblem, unsupportedNode } from "../../src/edge/node-engines.js";
import { freePort } from "../net.js";
import { enginesRange } from "../node-version.js";
import { codeBlocks, docSection, root } from "../support/tools.js";

const CACHE = process.env["LLSD_CACHE_DIR"] ?? join(homedir(), ".cache", "llsd-hook");

/**
 * A Node.js on this machine that engines.node refuses, outside the project's
 * cache: what a user's `node` is before they set PATH. Found on PATH and in the
 * usual system folders; absent, the test fails saying so.
 */
function olderNode(): { path: string; version: string } {
  const range = enginesRange();
  const cache = existsSync(CACHE) ? realpathSync(CACHE) : CACHE;
  const dirs = [...(process.env["PATH"] ?? "").split(":"), "/usr/local/bin", "/usr/bin", "/bin"];
  const looked: string[] = [];
  for (const path of new Set(
    dirs
      .map((dir) => join(dir, "node"))
      .filter((p) => existsSync(p))
      .map((p) => realpathSync(p)),
  )) {
    if (path.startsWith(`${cache}/`) || path === realpathSync(process.execPath)) continue;
    const run = spawnSync(path, ["--version"], { encoding: "utf8" });
    const version = run.stdout.trim().replace(/^v/, "");
    looked.push(`${path} (${version || "no version"})`);
    if (run.status === 0 && engineProblem(range, version) !== undefined) return { path, version };
  }
  throw new Error(
    `no Node.js older than engines.node "${range}" outside ${cache} on this machine (looked at: ${looked.join(", ") || "none"}); this test runs the one a user has before setting PATH: install one (Debian 13: apt-get install nodejs, which is 20)`,
  );
}

/** A copy of what `npm start` and the README's blocks use, unbuilt; node_modules linked. */
function checkoutCopy(): string {
  const dir = mkdtempSync(join(tmpdir(), "llsd-start-"));
  for (const f of ["bin", "src", "configs", "examples", "metacontroller"])
    cpSync(join(root, f), join(dir, f), { recursive: true });
  mkdirSync(join(dir, "scripts"));
  for (const f of ["build.ts", "render-snapshot.ts", "use-node.sh", "cache-lock.sh"])
    cpSync(join(root, "scripts", f), join(dir, "scripts", f));
  for (const f of ["package.json", "package-lock.json", "tsconfig.json", "tsconfig.build.json"])
    cpSync(join(root, f), join(dir, f));
  symlinkSync(join(root, "node_modules"), join(dir, "node_modules"));
  return dir;
}

/**
 * Runs the README's two shells in a network namespace of their own: `first`
 * in the background (its own process group), `second` once /readyz answers on
 * localhost:8080; then SIGINT to the first. Their output lands in `out`.
 */
const DRIVER = `set -u
ip link set lo up
setsid sh -e "$1" >"$3/server.log" 2>&1 &
server=$!
n=0
until curl -sf localhost:8080/readyz >/dev/null; do
  kill -0 "$server" 2>/dev/null || { echo "the hook stopped; its log:" >&2; cat "$3/server.log" >&2; exit 90; }
  n=$((n + 1))
  [ "$n" -le 2400 ] || { echo "the hook did not answer in 10 minutes" >&2; kill -INT -"$server"; exit 91; }
  sleep 0.25
done
sh -e "$2" >"$3/stdout" 2>"$3/stderr"
echo $? >"$3/rc"
kill -INT -"$server"
wait "$server" || true
`;

/** A server started with `npm start` in `dir` on free ports; its log so far. */
async function npmStart(
  dir: string,
): Promise<{ proc: ChildProcess; log: () => string; port: number }> {
  const port = await freePort();
  const proc = spawn("npm", ["start"], {
    cwd: dir,
    detached: true,
    env: {
      ...process.env,
      PORT: String(port),
      METRICS_PORT: String(await freePort()),
      API_SERVER_PORT: String(await freePort()),
    },
  });
  let log = "";
  proc.stdout?.on("data", (b: Buffer) => (log += b.toString()));
  proc.stderr?.on("data", (b: Buffer) => (log += b.toString()));
  for (const deadline = Date.now() + 600_000; ;) {
    if (proc.exitCode !== null) throw new Error(`npm start exited (${proc.exitCode}):\n${log}`);
    if (/llsd-hook listening/.test(log)) return { proc, log: () => log, port };
    if (Date.now() > deadline) throw new Error(`npm start did not listen:\n${log}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function stop(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null || proc.pid === undefined) return;
  const exited = once(proc, "exit");
  process.kill(-proc.pid, "SIGINT");
  await exited;
}

describe("npm start and bin/llsd-hook, as a user meets them", function () {
  this.timeout(900_000);
  let dir: string;
  let older: { path: string; version: string } | undefined;
  const olderOne = () => (older ??= olderNode());
  /** `args` run with the older Node.js first on PATH (its npm, if it has one, too). */
  const onOlder = (command: string, args: string[]) =>
    spawnSync(command, args, {
      cwd: dir,
      encoding: "utf8",
      env: { ...process.env, PATH: `${dirname(olderOne().path)}:${process.env["PATH"] ?? ""}` },
    });
  const line = () => `${unsupportedNode(enginesRange(), olderOne().version, olderOne().path)}\n`;

  before(() => (dir = checkoutCopy()));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("on this machine's older Node.js, before any build: npm start stops with one line before building; bin/llsd-hook too", () => {
    const start = onOlder("npm", ["start"]);
    expect(start.status, start.stderr).to.not.equal(0);
    expect(start.stderr.split("\n")).to.include(line().trimEnd());
    expect(existsSync(join(dir, "dist")), "dist/ built").to.equal(false);
    const version = onOlder("sh", ["bin/llsd-hook", "--version"]);
    expect(version.stderr).to.equal(
      `llsd-hook: note: dist/ is not built, so this runs from src/ through tsx (slower); npm run build builds it\n${line()}`,
    );
    expect([version.status, version.stdout]).to.deep.equal([2, ""]);
  });

  it('the README\'s "Try the hook with curl", run as written: the ConfigMap, Deployment and Service, then the same children', () => {
    const [server, client, ...more] = codeBlocks(
      docSection("README.md", "## Try the hook with curl"),
      "sh",
    );
    expect(more, "two blocks: the hook's shell and the curl one").to.deep.equal([]);
    expect(server, "the hook's shell").to.match(/^npm start$/m);
    const work = mkdtempSync(join(tmpdir(), "llsd-curl-"));
    try {
      const scripts: [string, string][] = [
        ["driver.sh", DRIVER],
        ["server.sh", server ?? ""],
        ["client.sh", client ?? ""],
      ];
      for (const [name, text] of scripts) writeFileSync(join(work, name), text);
      const unshare = process.getuid?.() === 0 ? ["--net"] : ["--map-root-user", "--net"];
      const run = spawnSync(
        "unshare",
        [
          ...unshare,
          "sh",
          join(work, "driver.sh"),
          join(work, "server.sh"),
          join(work, "client.sh"),
          work,
        ],
        { cwd: dir, encoding: "utf8" },
      );
      expect(
        run.status,
        `a network namespace of its own (unshare ${unshare.join(" ")}), then the blocks:\n${run.stderr}`,
      ).to.equal(0);
      const stderr = readFileSync(join(work, "stderr"), "utf8");
      expect(readFileSync(join(work, "rc"), "utf8").trim(), stderr).to.equal("0");
      // The first curl's answer went through tee to answer.json and stdout; the second's follows it.
      const first = readFileSync(join(dir, "answer.json"), "utf8");
      const stdout = readFileSync(join(work, "stdout"), "utf8");
      expect(stdout.startsWith(first)).to.equal(true);
      // Only a 200 carries children: a refusal is {"error": …}.
      const answer = JSON.parse(first) as SyncResponse;
      const next = JSON.parse(stdout.slice(first.length)) as SyncResponse;
      expect(answer.children.map((c) => c.kind)).to.include.members([
        "ConfigMap",
        "Deployment",
        "Service",
      ]);
      expect(next.children).to.deep.equal(answer.children);
      expect(stderr).to.include("note: observed: 4 children of answer.json");
      // npm start built dist/ first (its prestart).
      expect(readFileSync(join(work, "server.log"), "utf8")).to.include("llsd-hook listening");
      expect(existsSync(join(dir, "dist", ".build-inputs"))).to.equal(true);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });

  it("on this machine's older Node.js, built: bin/llsd-hook --version and the server's entry print the one line, non-zero", () => {
    const version = onOlder("sh", ["bin/llsd-hook", "--version"]);
    expect([version.status, version.stdout, version.stderr]).to.deep.equal([2, "", line()]);
    for (const args of [["--version"], []]) {
      const entry = onOlder(olderOne().path, ["dist/server/start.js", ...args]);
      expect([entry.status, entry.stdout, entry.stderr], args.join(" ")).to.deep.equal([
        1,
        "",
        line(),
      ]);
    }
  });

  it("npm start again: nothing is rebuilt", async () => {
    const record = readFileSync(join(dir, "dist", ".build-inputs"), "utf8");
    const built = statSync(join(dir, "dist", "server", "main.js")).mtimeMs;
    const { proc, log, port } = await npmStart(dir);
    try {
      expect(log()).to.include("llsd-hook: dist/ is up to date with src/ and configs/");
      expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).to.equal(200);
      expect(readFileSync(join(dir, "dist", ".build-inputs"), "utf8")).to.equal(record);
      expect(statSync(join(dir, "dist", "server", "main.js")).mtimeMs).to.equal(built);
    } finally {
      await stop(proc);
    }
  });

  it("npm start after a source changed: rebuilt, the change running", async () => {
    const main = join(dir, "src", "server", "main.ts");
    const text = readFileSync(main, "utf8");
    const edited = text.replace('"llsd-hook listening"', '"llsd-hook listening, edited"');
    expect(edited, 'src/server/main.ts logs "llsd-hook listening"').to.not.equal(text);
    writeFileSync(main, edited);
    const { proc, log } = await npmStart(dir);
    try {
      expect(log()).to.not.include("is up to date");
      expect(log()).to.include("llsd-hook: building dist/ (npm run build): its sources changed");
      expect(log()).to.include("llsd-hook listening, edited");
    } finally {
      await stop(proc);
    }
  });
});
