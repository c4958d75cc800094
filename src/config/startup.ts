// Startup safety (docs/guide/how-the-config-is-generated.md, step 4): a bare
// `${env.X}` (no `:=` default) left in the final config aborts Llama Stack at
// startup unless X is set, so every such X must be in the container's env —
// ours or spec.workload.overrides.env.
import { msg } from "../messages.js";
import { problem, type Problem } from "../problems.js";
import { Reason } from "../reasons.js";
import { barePlaceholders } from "./envsubst.js";
import { formatPath, type JsonObject } from "../lib/json.js";

export function checkStartupEnv(
  config: JsonObject,
  containerEnv: ReadonlySet<string>,
  specPathFor: (configPath: string) => string,
): Problem[] {
  const seen = new Set<string>();
  const problems: Problem[] = [];
  for (const { name, path } of barePlaceholders(config)) {
    if (containerEnv.has(name) || seen.has(name)) continue;
    seen.add(name);
    const configPath = formatPath(path);
    problems.push(
      problem(Reason.EnvVarUnset, specPathFor(configPath), msg.envVarUnset(name, configPath)),
    );
  }
  return problems;
}
