// helm as the tests run it: the binary test/helm/build.sh makes, with its
// cache, configuration and data under a directory of the test's own (never the
// user's ~/.config/helm), and the objects a `helm template` prints.
import { spawnSync } from "node:child_process";
import { mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";
import type { KubeObject } from "../../src/api/hook.js";
import { kubectlEnv } from "../k8s/install-run.js";
import { expect } from "chai";
import { commandLines, docSection, helm } from "../support/tools.js";

export interface HelmRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** helm's environment: its homes under `work`, and `kubeconfig` when it talks to a cluster. */
export function helmEnv(work: string, kubeconfig?: string): Record<string, string> {
  const home = join(work, "helm-home");
  mkdirSync(home, { recursive: true });
  return {
    PATH: "/usr/bin:/bin",
    HOME: home,
    HELM_CACHE_HOME: join(home, "cache"),
    HELM_CONFIG_HOME: join(home, "config"),
    HELM_DATA_HOME: join(home, "data"),
    ...(kubeconfig === undefined ? {} : { KUBECONFIG: kubeconfig }),
  };
}

/** For command lines run by bash: kubectlEnv's PATH with helm beside kubectl, and helm's homes, under `work`. */
export function helmCommandEnv(work: string, kubeconfig: string): Record<string, string> {
  const env = { ...kubectlEnv(work, kubeconfig), ...helmEnv(work, kubeconfig) };
  symlinkSync(helm(), join(work, "bin", "helm"));
  return { ...env, PATH: `${join(work, "bin")}:/usr/bin:/bin` };
}

export function runHelm(args: string[], env: Record<string, string>, cwd?: string): HelmRun {
  const r = spawnSync(helm(), args, {
    env,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
    timeout: 300_000,
    ...(cwd === undefined ? {} : { cwd }),
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

export function describeHelm(run: HelmRun): string {
  return `exit ${run.status}\nstdout:\n${run.stdout.slice(0, 4000)}\nstderr:\n${run.stderr}`;
}

/** The objects of a multi-document YAML text (helm template, kubectl kustomize). */
export function yamlObjects(text: string): KubeObject[] {
  return parseAllDocuments(text)
    .map((d) => d.toJS() as KubeObject | null)
    .filter((o): o is KubeObject => o !== null);
}

/** "Kind namespace/name" of an object. */
export const objectId = (o: KubeObject) =>
  `${o.kind} ${o.metadata.namespace ?? ""}/${o.metadata.name}`;

/** The first `helm <verb>` line of a section of docs/operations/helm.md, before its subsections. */
export function helmDocCommand(heading: string, verb: string): string {
  const doc = "docs/operations/helm.md";
  const lines = commandLines(docSection(doc, heading).split("\n### ")[0] ?? "", `helm ${verb} `);
  expect(lines, `${doc} "${heading}": a helm ${verb} line`).to.have.length.greaterThan(0);
  return lines[0] ?? "";
}
