// Secret-backed config fields become `${env.NAME}` in the config and an env
// var with valueFrom.secretKeyRef on the container (docs/guide/secrets.md). Names are
// deterministic: LLSD_<API>_<FIELD> when the spec declares one provider for the
// API, LLSD_<API>_<ID>_<FIELD> when it declares several,
// LLSD_STORAGE_<KV|SQL>_<FIELD> for storage.
import { msg } from "../messages.js";
import { problem, type Problem } from "../problems.js";
import { Reason } from "../reasons.js";
import { compareStrings } from "../lib/json.js";

export interface SecretBinding {
  /** Env var name. */
  name: string;
  secretName: string;
  key: string;
  /** Where the reference is in the spec, e.g. spec.providers.inference[0].apiKey. */
  specPath: string;
}

function upper(part: string): string {
  return part.toUpperCase().replace(/[^A-Z0-9]+/g, "_");
}

export function providerEnvName(
  api: string,
  providerId: string | undefined,
  field: string,
): string {
  const parts = [
    "LLSD",
    upper(api),
    ...(providerId === undefined ? [] : [upper(providerId)]),
    upper(field),
  ];
  return parts.join("_");
}

export function storageEnvName(kind: "kv" | "sql", field: string): string {
  return `LLSD_STORAGE_${upper(kind)}_${upper(field)}`;
}

/** Two references that would share one env var name are an error (never a silent overwrite). */
export function findCollisions(bindings: readonly SecretBinding[]): Problem[] {
  const seen = new Map<string, SecretBinding>();
  const problems: Problem[] = [];
  for (const b of bindings) {
    const prior = seen.get(b.name);
    if (prior === undefined) seen.set(b.name, b);
    else if (
      prior.secretName !== b.secretName ||
      prior.key !== b.key ||
      prior.specPath !== b.specPath
    ) {
      problems.push(
        problem(Reason.EnvVarCollision, b.specPath, msg.envVarCollision(b.name, prior.specPath)),
      );
    }
  }
  return problems;
}

/** The env vars to set, one per name (the last binding of a name wins), sorted by name. */
export function secretEnvOf(bindings: readonly SecretBinding[]): SecretBinding[] {
  const unique = new Map(bindings.map((b) => [b.name, b]));
  return [...unique.values()].sort((a, b) => compareStrings(a.name, b.name));
}
