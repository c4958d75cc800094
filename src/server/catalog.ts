// Loads the catalog from configs/ (and IMAGE_OVERRIDES_FILE) once at startup.
// The only file reads of the config machinery; the core gets the result.
import { readFileSync, readdirSync, existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import type { Catalog, ImagePin, ReleaseData } from "../config/catalog.js";
import { isObject, type JsonObject } from "../config/json.js";

/** configs/ beside dist/ or src/. */
export const DEFAULT_CONFIGS_DIR = join(
  dirname(fileURLToPath(import.meta.url)),
  "..",
  "..",
  "configs",
);

function readJson<T>(path: string): T {
  return JSON.parse(readFileSync(path, "utf8")) as T;
}

function loadRelease(dir: string, release: string): ReleaseData {
  const registry = readJson<Omit<ReleaseData, "baseConfigs"> & { distributions: string[] }>(
    join(dir, release, "registry.json"),
  );
  const baseConfigs: Record<string, JsonObject> = {};
  const distDir = join(dir, release, "distributions");
  for (const name of readdirSync(distDir).sort()) {
    const doc: unknown = parse(readFileSync(join(distDir, name, "config.yaml"), "utf8"), {
      version: "1.1",
    });
    if (!isObject(doc))
      throw new Error(`configs/${release}/distributions/${name}/config.yaml is not a mapping`);
    baseConfigs[name] = doc;
  }
  return {
    release,
    apis: registry.apis,
    providers: registry.providers,
    stackConfigSchema: registry.stackConfigSchema,
    serverConfigSchema: registry.serverConfigSchema,
    baseConfigs,
  };
}

/**
 * Image overrides: a YAML mapping whose keys are a distribution name (every
 * release) or `name:release` (that release only), and whose values are images.
 */
export function parseImageOverrides(text: string, source: string): Record<string, string> {
  const doc: unknown = parse(text);
  if (doc === null || doc === undefined) return {};
  if (!isObject(doc))
    throw new Error(
      `${source}: must be a YAML mapping of distribution name (or name:release) to image`,
    );
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(doc)) {
    if (typeof value !== "string" || value === "")
      throw new Error(`${source}: ${key} must map to an image reference`);
    out[key] = value;
  }
  return out;
}

export function loadCatalog(
  options: { configsDir?: string; imageOverrides?: Record<string, string> } = {},
): Catalog {
  const dir = options.configsDir ?? DEFAULT_CONFIGS_DIR;
  const { releases } = readJson<{ releases: string[] }>(join(dir, "releases.json"));
  const byRelease: Record<string, ReleaseData> = {};
  for (const release of releases) byRelease[release] = loadRelease(dir, release);
  const { distributions } = readJson<{
    distributions: Record<string, Record<string, { image: string | null; retired?: string }>>;
  }>(join(dir, "distributions.json"));
  const overrides = options.imageOverrides ?? {};
  const images: Record<string, Record<string, ImagePin>> = {};
  for (const [name, perRelease] of Object.entries(distributions)) {
    const pins: Record<string, ImagePin> = {};
    for (const [release, pin] of Object.entries(perRelease)) {
      // A release no longer supported keeps its entry for the record, but is not offered.
      if (!releases.includes(release)) continue;
      if (byRelease[release]?.baseConfigs[name] === undefined) {
        throw new Error(
          `configs/distributions.json: ${name} ${release} has no configs/${release}/distributions/${name}/config.yaml`,
        );
      }
      const override = overrides[`${name}:${release}`] ?? overrides[name];
      pins[release] =
        override !== undefined
          ? { image: override }
          : { image: pin.image ?? undefined, retired: pin.retired };
    }
    if (Object.keys(pins).length > 0) images[name] = pins;
  }
  return { releases, byRelease, images };
}

/** Reads IMAGE_OVERRIDES_FILE, if the variable is set. */
export function imageOverridesFromEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const file = env["IMAGE_OVERRIDES_FILE"];
  if (file === undefined || file === "") return {};
  if (!existsSync(file)) throw new Error(`IMAGE_OVERRIDES_FILE=${file}: file not found`);
  return parseImageOverrides(readFileSync(file, "utf8"), file);
}
