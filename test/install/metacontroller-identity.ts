// Metacontroller's namespace and ServiceAccount as the install takes them: the
// one place (manifests/components/metacontroller-identity/identity.yaml) and
// how a copy of the tree is given another identity there, as a user edits it.
// Used by the unit guard, the rendering test and the real-API-server install
// test; a test that runs the hook in a cluster under another identity can use
// setMetacontrollerIdentity on its copy of the tree the same way.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const IDENTITY_COMPONENT = "manifests/components/metacontroller-identity";
export const IDENTITY_FILE = `${IDENTITY_COMPONENT}/identity.yaml`;
export const IDENTITY_REPLACEMENTS = `${IDENTITY_COMPONENT}/replacements/replacements.yaml`;

export interface MetacontrollerIdentity {
  namespace: string;
  serviceAccount: string;
}

/** What the install assumes when identity.yaml is left as it is. */
export const DEFAULT_IDENTITY: MetacontrollerIdentity = {
  namespace: "metacontroller",
  serviceAccount: "metacontroller",
};

/** The user name the API server gives a ServiceAccount's token. */
export function serviceAccountUser(identity: MetacontrollerIdentity): string {
  return `system:serviceaccount:${identity.namespace}:${identity.serviceAccount}`;
}

/** Sets the two values in identity.yaml under `tree` (a copy of the repository's install files). */
export function setMetacontrollerIdentity(tree: string, identity: MetacontrollerIdentity): void {
  const file = join(tree, IDENTITY_FILE);
  let text = readFileSync(file, "utf8");
  for (const [key, value] of Object.entries(identity)) {
    const line = new RegExp(`^  ${key}: \\S+$`, "m");
    if (!line.test(text)) throw new Error(`${IDENTITY_FILE} has no "${key}:" value line`);
    text = text.replace(line, `  ${key}: ${value}`);
  }
  writeFileSync(file, text);
}
