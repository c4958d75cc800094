// A free TCP port on loopback, for the servers the tests start (the hook,
// Llama Stack, etcd, kube-apiserver). Nothing listens beyond 127.0.0.1.
// A port is handed out once per process: two servers started at the same time
// (the suite's two control planes) would otherwise be given the same port
// between its probe and their bind, and one would answer for the other.
import { createServer } from "node:net";

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

export async function freePort(): Promise<number> {
  for (;;) {
    const port = await probe();
    if (!handedOut.has(port)) {
      handedOut.add(port);
      return port;
    }
  }
}
