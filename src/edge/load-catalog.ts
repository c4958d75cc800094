// Loads the catalog from configs/ (and IMAGE_OVERRIDES_FILE): the only file
// reads of the config machinery; the core gets the result. Shared by the
// server and the CLI:
//   - the server reads everything at startup (`loadCatalog()`), so that a
//     broken configs/ stops it before it takes traffic;
//   - `llsd-hook render` reads one resource's release and distribution only
//     (`{ lazy: true }`): the index files now, a release's registry.json and a
//     distribution's config.yaml when the core first reads them. Parsing all
//     base configs took most of a render's 0.5–0.7 s.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import type { Catalog, ImagePin, ReleaseData } from "../config/catalog.js";
import { isObject, type JsonObject } from "../lib/json.js";

/** configs/ beside dist/ or src/. */
export const DEFAULT_CONFIGS_DIR = join(
  dirname(fileURLToPath(import.meta.url)),
  "..",
  "..",
  "configs",
);

export interface CatalogOptions {
  /** The catalog's directory (default: configs/ beside the code). */
  configsDir?: string;
  /** Distribution name (or name:release) → image, from IMAGE_OVERRIDES_FILE. */
  imageOverrides?: Record<string, string>;
  /** Read a release's registry and a distribution's config.yaml on first use (the CLI). */
  lazy?: boolean;
}

/** Where a configs/ file is, said the way the README names it. */
function shown(dir: string, ...parts: string[]): string {
  return join(dir === DEFAULT_CONFIGS_DIR ? "configs" : dir, ...parts);
}

const REMEDY = 'reinstall llsd-hook, or regenerate configs/ with "npm run configs:update"';

function readText(dir: string, ...parts: string[]): string {
  try {
    return readFileSync(join(dir, ...parts), "utf8");
  } catch (cause) {
    throw new Error(`${shown(dir, ...parts)} is missing or unreadable: ${REMEDY}`, { cause });
  }
}

function readJson<T>(dir: string, ...parts: string[]): T {
  const text = readText(dir, ...parts);
  try {
    return JSON.parse(text) as T;
  } catch (cause) {
    throw new Error(`${shown(dir, ...parts)} is not valid JSON: ${REMEDY}`, { cause });
  }
}

function readBaseConfig(dir: string, release: string, name: string): JsonObject {
  const parts = [release, "distributions", name, "config.yaml"];
  const doc: unknown = parse(readText(dir, ...parts), { version: "1.1" });
  if (!isObject(doc)) throw new Error(`${shown(dir, ...parts)} is not a mapping: ${REMEDY}`);
  return doc;
}

/**
 * Sets `obj[key]` to what `load` returns, now or (lazy) on the first read; a
 * loaded value then stays, as an ordinary property.
 */
function define<T>(obj: Record<string, T>, key: string, load: () => T, lazy: boolean): void {
  if (!lazy) {
    obj[key] = load();
    return;
  }
  Object.defineProperty(obj, key, {
    enumerable: true,
    configurable: true,
    get(): T {
      const value = load();
      Object.defineProperty(obj, key, {
        value,
        enumerable: true,
        configurable: true,
        writable: true,
      });
      return value;
    },
  });
}

function loadRelease(dir: string, release: string, names: string[], lazy: boolean): ReleaseData {
  const registry = readJson<Omit<ReleaseData, "baseConfigs">>(dir, release, "registry.json");
  const baseConfigs: Record<string, JsonObject> = {};
  for (const name of names)
    define(baseConfigs, name, () => readBaseConfig(dir, release, name), lazy);
  return {
    release,
    apis: registry.apis,
    providers: registry.providers,
    stackConfigSchema: registry.stackConfigSchema,
    serverConfigSchema: registry.serverConfigSchema,
    baseConfigs,
  };
}

function distributionNames(dir: string, release: string): string[] {
  try {
    return readdirSync(join(dir, release, "distributions")).sort();
  } catch (cause) {
    throw new Error(`${shown(dir, release, "distributions")} is missing: ${REMEDY}`, { cause });
  }
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

export function loadCatalog(options: CatalogOptions = {}): Catalog {
  const dir = options.configsDir ?? DEFAULT_CONFIGS_DIR;
  const lazy = options.lazy === true;
  const { releases } = readJson<{ releases: string[] }>(dir, "releases.json");
  const names: Record<string, string[]> = {};
  const byRelease: Record<string, ReleaseData> = {};
  for (const release of releases) {
    const shipped = distributionNames(dir, release);
    names[release] = shipped;
    define(byRelease, release, () => loadRelease(dir, release, shipped, lazy), lazy);
  }
  const { distributions } = readJson<{
    distributions: Record<string, Record<string, { image: string | null; retired?: string }>>;
  }>(dir, "distributions.json");
  const overrides = options.imageOverrides ?? {};
  const images: Record<string, Record<string, ImagePin>> = {};
  for (const [name, perRelease] of Object.entries(distributions)) {
    const pins: Record<string, ImagePin> = {};
    for (const [release, pin] of Object.entries(perRelease)) {
      // A release no longer supported keeps its entry for the record, but is not offered.
      if (!releases.includes(release)) continue;
      if (!(names[release] ?? []).includes(name)) {
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
