// npm run install-yaml: writes manifests/install.yaml from manifests/ with the
// kubectl built beside the test control plane (test/k8s/build.sh: reused from
// the cache, or built when absent). test/install/install-yaml.test.ts fails
// when the committed file differs from what this writes.
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { INSTALL_YAML, renderInstallYaml } from "../test/install/install-yaml.js";
import { root } from "../test/support/tools.js";

const binDir = execFileSync(join(root, "test", "k8s", "build.sh"), {
  encoding: "utf8",
  stdio: ["ignore", "pipe", "inherit"],
})
  .trim()
  .split("\n")
  .pop();
if (binDir === undefined || binDir === "")
  throw new Error("test/k8s/build.sh printed no directory");
writeFileSync(join(root, INSTALL_YAML), await renderInstallYaml(join(binDir, "kubectl")));
console.log(`wrote ${INSTALL_YAML}`);
