// A remote provider the spec declares needs somewhere to call. A URL field
// that would be empty at startup — the base config's `${env.VLLM_URL:=}` kept
// under a declared vllm while nothing sets VLLM_URL — lets the server start
// and fail at its first request, so it is a problem naming endpoint (or the
// settings field, for a provider with several URL fields). Base providers the
// spec does not declare are left as the distribution ships them: their URLs
// are the distribution's business, and most are enabled only when set.
import { msg } from "../messages.js";
import { problem, type Problem } from "../problems.js";
import { Reason } from "../reasons.js";
import { own } from "../lib/json.js";
import { substitute } from "./envsubst.js";
import type { StackConfig } from "./model.js";
import { finalConfigOf, type DeclaredProvider } from "./providers.js";

/**
 * The variables whose absence leaves `text` empty when the server starts with
 * only `env` set; undefined when it is not empty then, when a variable that is
 * set decides it, or when it holds no placeholder (the schema checks literals).
 */
export function emptyWithout(text: string, env: ReadonlySet<string>): string[] | undefined {
  const unset = new Set<string>();
  let decidedAtStartup = false;
  const resolved = substitute(text, ({ name, operator, argument }) => {
    const set = env.has(name);
    // A bare ${env.X} that nothing sets is the startup check's (EnvVarUnset).
    if ((set && operator !== "+") || (!set && operator === "")) decidedAtStartup = true;
    if (!set) unset.add(name);
    if (operator === "+") return set ? argument : "";
    return set ? "" : argument;
  });
  if (decidedAtStartup || unset.size === 0 || resolved.trim() !== "") return undefined;
  return [...unset];
}

/** Each URL field of a declared remote provider that would be empty at startup, as a problem. */
export function checkEndpoints(
  declared: readonly DeclaredProvider[],
  config: StackConfig,
  containerEnv: ReadonlySet<string>,
): Problem[] {
  const problems: Problem[] = [];
  for (const d of declared) {
    if (d.module !== undefined || !d.type.startsWith("remote::")) continue;
    const final = finalConfigOf(config, d);
    for (const field of d.info.urlFields) {
      const value = own(final, field);
      const unset = typeof value === "string" ? emptyWithout(value, containerEnv) : undefined;
      if (unset === undefined) continue;
      const origin = own(d.origins, field);
      const viaEndpoint = d.info.urlFields.length === 1 && !origin?.endsWith(".settings");
      const path = viaEndpoint
        ? `${d.specPath}.endpoint`
        : `${origin ?? `${d.specPath}.settings`}.${field}`;
      problems.push(
        problem(
          Reason.EndpointRequired,
          path,
          msg.emptyEndpoint(d.type, field, unset, viaEndpoint),
        ),
      );
    }
  }
  return problems;
}
