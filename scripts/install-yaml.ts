// npm run install-yaml: writes manifests/install.yaml from manifests/ with the
// kubectl built beside the test control plane (test/k8s/build.sh: reused from
// the cache, or built when absent). test/install/install-yaml.test.ts fails
// when the committed file differs from what this writes.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { INSTALL_YAML, renderInstallYaml } from "../test/install/install-yaml.js";
import { built, root } from "../test/support/tools.js";

const kubectl = join(built("test/k8s/build.sh"), "kubectl");
writeFileSync(join(root, INSTALL_YAML), await renderInstallYaml(kubectl));
console.log(`wrote ${INSTALL_YAML}`);
