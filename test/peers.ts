// Where the real peers prepared by test/prepare-peers.sh live.
import { readFileSync } from "node:fs";
import { join } from "node:path";

export interface Peers {
  k8sBinDir: string;
  /** The oldest Kubernetes release the suite keeps (test/k8s/oldest/build.sh): kube-apiserver, kube-controller-manager, kubectl. */
  k8sOldestBinDir?: string;
  /** helm 4, built by test/helm/build.sh. */
  helm?: string;
  llamaStackVenvs: Record<string, string>;
  /** The real node (test/node/build.sh, image.sh): binaries, the pause image, server images by release. */
  node?: { binDir: string; pauseImage: string; images: Record<string, string> };
  /** The hook's own image (scripts/build-image.sh) and the stand-in base it was built on, as OCI archives. */
  hookImage?: { archive: string; base: string };
  /** Prometheus's promtool and server, and promql-names (test/prometheus/build.sh). */
  prometheusDir?: string;
}

/** This checkout's own record (the builds it names are shared through ~/.cache/llsd-hook). */
const PEERS_FILE = join(import.meta.dirname, "..", ".cache", "peers.json");

export function loadPeers(): Peers {
  const file = PEERS_FILE;
  try {
    return JSON.parse(readFileSync(file, "utf8")) as Peers;
  } catch (cause) {
    throw new Error(`${file} is missing or unreadable: run "npm run peers" first`, { cause });
  }
}

export function venvFor(release: string): string {
  const venv = loadPeers().llamaStackVenvs[release];
  if (venv === undefined) throw new Error(`no Llama Stack venv for release ${release}`);
  return venv;
}
