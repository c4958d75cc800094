// npm run bench -- 12: the bounds the tests check by outcome, not by time.
//   - the client timeouts as the hook starts (node dist/server/main.js,
//     defaults): seconds from connecting until the hook cuts a client stalled
//     in its headers (limit 10 s), one trickling its body to /convert above the
//     progress floor (the request, 30 s) and one whose body stalls (the floor:
//     16 KiB in 2 s), three of each at once. Node checks every
//     connectionsCheckingInterval (30 s by default, 1 s as the hook sets it),
//     so each should be cut within about a second of its limit, a stalled body
//     within two windows. test/install/timeouts.test.ts and
//     test/unit/server/body-budget.test.ts check what cuts them.
//   - the bounded YAML reader on the hostile rows of
//     test/unit/config/bounded-yaml-rows.ts (whole, they took seconds or the
//     heap): milliseconds per read.
import { spawn } from "node:child_process";
import { readYaml } from "../src/config/bounded-yaml.js";
import { BOUNDED_YAML_ROWS } from "../test/unit/config/bounded-yaml-rows.js";
import { freePort, waitForPort } from "../test/net.js";
import {
  STALLED_HEADERS,
  stalledBody,
  stallUntilCut,
  TRICKLE,
  trickledBody,
} from "../test/support/stall.js";

const STALLED = 3;
const READS = 5;

const range = (values: number[], digits: number) =>
  `${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)}`;

async function secondsToCut(port: number, text: string, trickle?: string): Promise<number> {
  const started = performance.now();
  const cut = await stallUntilCut(port, text, trickle);
  if (!cut.endedByServer) throw new Error(`not cut by the hook: ${JSON.stringify(cut)}`);
  return (performance.now() - started) / 1000;
}

async function benchClientTimeouts(): Promise<void> {
  const port = await freePort();
  const apiServerPort = await freePort();
  const hook = spawn(process.execPath, ["dist/server/main.js"], {
    env: {
      ...process.env,
      PORT: String(port),
      METRICS_PORT: String(await freePort()),
      API_SERVER_PORT: String(apiServerPort),
      LOG_LEVEL: "warn",
    },
    stdio: "ignore",
  });
  try {
    await waitForPort(port);
    await waitForPort(apiServerPort);
    const each = (to: number, text: string, trickle?: string) =>
      Promise.all(Array.from({ length: STALLED }, () => secondsToCut(to, text, trickle)));
    const [headers, body, stalled] = await Promise.all([
      each(port, STALLED_HEADERS),
      each(apiServerPort, trickledBody("/convert"), TRICKLE),
      each(port, stalledBody("/sync")),
    ]);
    console.log(
      `   client timeouts (defaults; ${STALLED} clients each, at once), seconds to the cut:`,
    );
    console.log(`     stalled in its headers (limit 10 s):  ${range(headers, 2)}`);
    console.log(`     trickling its body (limit 30 s):      ${range(body, 2)}`);
    console.log(`     its body stalled (floor, 2 s windows): ${range(stalled, 2)}`);
  } finally {
    hook.kill();
  }
}

function benchBoundedYaml(): void {
  console.log(`   the bounded YAML reader on hostile text, ms per read (${READS} reads each):`);
  for (const row of BOUNDED_YAML_ROWS) {
    const ms: number[] = [];
    for (let i = 0; i < READS; i++) {
      const started = performance.now();
      readYaml(row.text, { version: "1.1", json: true });
      ms.push(performance.now() - started);
    }
    console.log(
      `     ${row.name.padEnd(46)} ${range(ms, 1).padStart(13)}  (${row.answer.split(":")[0]})`,
    );
  }
}

export async function benchBounds(): Promise<void> {
  console.log("\n12. bounds the tests check by outcome: client timeouts, hostile YAML");
  await benchClientTimeouts();
  benchBoundedYaml();
}
