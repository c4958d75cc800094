// The ServiceAccount `<name>-sa`, unless workload.overrides.serviceAccountName
// names one (docs/operations/children.md).
import type { ServiceAccount } from "kubernetes-types/core/v1.js";
import { childMetadata, type Child, type Owner } from "./child.js";
import { childNames } from "./labels.js";

/** The pods need no API token, so none is mounted. */
export function buildServiceAccount(owner: Owner): Child<ServiceAccount> {
  return {
    apiVersion: "v1",
    kind: "ServiceAccount",
    metadata: childMetadata(owner, childNames.serviceAccount(owner.llsd)),
    automountServiceAccountToken: false,
  };
}
