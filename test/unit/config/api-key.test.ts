// For every supported release and every provider type with exactly one API-key
// field (by its YAML key, its pydantic field or an alias), apiKey lands in the
// key that release reads: a key of the provider's config schema (the schemas
// are exported by alias, so their keys are what the release parses), holding
// the env placeholder, and never anywhere else.
import { expect } from "chai";
import { parse } from "yaml";
import { specKeyOf } from "../../../src/api/llama-apis.js";
import { apiKeyTargets } from "../../../src/config/providers.js";
import { configOf, syncContext } from "../../support/harness.js";
import { request, syncOk } from "../../support/request.js";

const catalog = syncContext().catalog;

describe("apiKey goes to the key each release reads", function () {
  this.timeout(120_000);
  for (const release of catalog.releases) {
    it(`${release}: every provider type with one API-key field`, () => {
      const data = catalog.byRelease[release];
      if (data === undefined) throw new Error(`no catalog for ${release}`);
      let mapped = 0;
      const wrong: string[] = [];
      for (const [api, types] of Object.entries(data.providers)) {
        for (const [type, info] of Object.entries(types)) {
          const targets = apiKeyTargets(info);
          if (targets.length !== 1 || info.deprecationError !== null) continue;
          const key = targets[0] as string;
          const props = (info.configSchema["properties"] ?? {}) as Record<
            string,
            { format?: string }
          >;
          expect(Object.hasOwn(props, key), `${type}: ${key} is a key of its schema`).to.equal(
            true,
          );
          const specKey = specKeyOf(api);
          const spec = {
            distribution: { name: "starter", release },
            providers: {
              [specKey]: [
                {
                  id: "p",
                  provider: type,
                  apiKey: { secretKeyRef: { name: "creds-a", key: "token" } },
                },
              ],
            },
          };
          const res = syncOk(request(spec));
          const conditions = (res.status as { conditions: { type: string; message: string }[] })
            .conditions;
          const onApiKey = conditions.some((c) => c.message.includes(`[0].apiKey:`));
          if (onApiKey) wrong.push(`${release} ${type}: apiKey refused`);
          const text = configOf(res);
          if (text === undefined) continue; // refused for another reason (a required field)
          const config = parse(text, { version: "1.1" }) as {
            providers: Record<string, { provider_id: string; config?: Record<string, unknown> }[]>;
          };
          const entry = (config.providers[api] ?? []).find((p) => p.provider_id === "p");
          const placeholder = `\${env.LLSD_${api.toUpperCase()}_API_KEY}`;
          const keys = Object.entries(entry?.config ?? {})
            .filter(([, v]) => v === placeholder)
            .map(([k]) => k);
          if (JSON.stringify(keys) !== JSON.stringify([key]))
            wrong.push(`${release} ${type}: apiKey in ${JSON.stringify(keys)}, expected ${key}`);
          else mapped++;
        }
      }
      expect(wrong).to.deep.equal([]);
      // Most types map without any other setting; the check must not pass vacuously.
      expect(mapped).to.be.greaterThan(15);
    });
  }

  it("several secret fields: the one that is the API key by alias (OGX gemini, bedrock)", () => {
    const inference = catalog.byRelease["1.5.0"]?.providers["inference"] ?? {};
    expect(apiKeyTargets(inference["remote::gemini"] as never)).to.deep.equal(["api_key"]);
    expect(apiKeyTargets(inference["remote::bedrock"] as never)).to.deep.equal([
      "aws_bedrock_bearer_token",
    ]);
    expect(apiKeyTargets(inference["remote::vllm"] as never)).to.deep.equal(["api_token"]);
    const files = catalog.byRelease["1.5.0"]?.providers["files"] ?? {};
    expect(apiKeyTargets(files["remote::s3"] as never)).to.deep.equal([
      "aws_access_key_id",
      "aws_secret_access_key",
    ]);
  });
});
