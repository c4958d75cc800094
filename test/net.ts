// A free TCP port on loopback, for the servers the tests start (the hook,
// Llama Stack, etcd, kube-apiserver), and waiting until one listens. Nothing
// listens beyond 127.0.0.1.
// A port is handed out once per process: two servers started at the same time
// (the suite's two control planes) would otherwise be given the same port
// between its probe and their bind, and one would answer for the other.
// Ports come from below the kernel's ephemeral range: a port the kernel chose
// (listen on 0) is one it may give the next outgoing connection of any process
// between our probe and the server's bind, which is how a Llama Stack server
// once failed with "Address already in use" while the node tier ran beside it.
import { connect, createServer } from "node:net";
import { readFileSync } from "node:fs";

const handedOut = new Set<number>();

/** The lowest port the kernel hands to outgoing connections (32768 on Linux by default). */
export function ephemeralLow(rangeFile = "/proc/sys/net/ipv4/ip_local_port_range"): number {
  try {
    const low = Number(readFileSync(rangeFile, "utf8").trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > 0 ? low : 32768;
  } catch {
    return 32768;
  }
}

/** Binds `port` (0: the kernel chooses) on loopback and closes it; the port, or undefined if taken. */
function probe(port: number): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", (e: NodeJS.ErrnoException) =>
      e.code === "EADDRINUSE" || e.code === "EACCES" ? resolve(undefined) : reject(e),
    );
    server.listen(port, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address !== null
          ? resolve(address.port)
          : reject(new Error("no free port on 127.0.0.1")),
      );
    });
  });
}

/** Waits until something accepts connections on 127.0.0.1:`port` (a server just spawned), up to 20 s. */
export async function waitForPort(port: number): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const socket = connect(port, "127.0.0.1");
    const ok = await new Promise<boolean>((resolve) => {
      socket.on("connect", () => resolve(true));
      socket.on("error", () => resolve(false));
    });
    socket.destroy();
    if (ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`nothing listened on 127.0.0.1:${port} within 20 s`);
}

/** A port free on 127.0.0.1 now, below the ephemeral range when there is room (10000 up). */
export async function freePort(): Promise<number> {
  const high = ephemeralLow() - 1;
  const low = 10_000;
  for (let attempt = 0; attempt < 200; attempt++) {
    const candidate = high > low ? low + Math.floor(Math.random() * (high - low + 1)) : 0;
    if (handedOut.has(candidate)) continue;
    const port = await probe(candidate);
    if (port !== undefined && !handedOut.has(port)) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error(`no free port on 127.0.0.1 between ${low} and ${high} after 200 tries`);
}
