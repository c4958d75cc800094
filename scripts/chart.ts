// npm run chart: writes the Helm chart charts/llsd-hook/ (and the values table
// of docs/operations/helm.md) from manifests/ with the kubectl built beside the
// test control plane (test/k8s/build.sh: reused from the cache, or built when
// absent); templates no longer generated are removed. test/install/chart.test.ts
// fails when a committed file differs from what this writes.
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { built, root } from "../test/support/tools.js";
import { CHART_DIR, generateChart } from "./chart/generate.js";

const kubectl = join(built("test/k8s/build.sh"), "kubectl");
const files = generateChart(root, kubectl);
const templates = join(root, CHART_DIR, "templates");
mkdirSync(templates, { recursive: true });
for (const name of readdirSync(templates))
  if (!files.some((f) => f.path === `${CHART_DIR}/templates/${name}`)) {
    rmSync(join(templates, name));
    console.log(`removed ${CHART_DIR}/templates/${name}`);
  }
for (const f of files) {
  mkdirSync(dirname(join(root, f.path)), { recursive: true });
  writeFileSync(join(root, f.path), f.content);
  console.log(`wrote ${f.path}`);
}
