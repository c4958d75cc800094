// A free TCP port on loopback, for the servers the tests start (the hook,
// Llama Stack, etcd, kube-apiserver). Nothing listens beyond 127.0.0.1.
import { createServer } from "node:net";

export function freePort(): Promise<number> {
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
