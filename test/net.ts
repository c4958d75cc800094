// A free TCP port on loopback, for the servers the tests start (the hook,
// Llama Stack, etcd, kube-apiserver), and waiting until one listens. Nothing
// listens beyond 127.0.0.1.
// A port is handed out once per process: two servers started at the same time
// (the suite's two control planes) would otherwise be given the same port
// between its probe and their bind, and one would answer for the other.
import { connect, createServer } from "node:net";

const handedOut = new Set<number>();

function probe(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
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

export async function freePort(): Promise<number> {
  for (;;) {
    const port = await probe();
    if (!handedOut.has(port)) {
      handedOut.add(port);
      return port;
    }
  }
}
