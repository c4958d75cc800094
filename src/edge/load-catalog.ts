// Loads the catalog from configs/ (and IMAGE_OVERRIDES_FILE): the only file
// reads of the config machinery; the core gets the result. Shared by the
// server and the CLI:
//   - the server reads everything at startup (`loadCatalog()`), so that a
//     broken configs/ stops it before it takes traffic;
//   - `llsd-hook render` reads one resource's release and distribution only
//     (`{ lazy: true }`): the index files now, a release's registry.json and a
//     distribution's config.yaml when the core first reads them. Parsing all
//     base configs took most of a render's 0.5–0.7 s;
//   - the CLI's startup snapshot reads the same way from the JSON catalog the
//     build derives from configs/ (`writeJsonCatalog`, then `{ json: true }`):
//     base configs as config.json, since a YAML parse in a process that just
//     started costs several times the native JSON.parse.
import { isImageReference } from "../api/image-reference.js";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { isDeepStrictEqual } from "node:util";
import { parse } from "yaml";
import type { Catalog, ImagePin, ReleaseData } from "../config/catalog.js";
import { isObject, type JsonObject } from "../lib/json.js";
import { readYaml, YAML_BOUNDS } from "../config/bounded-yaml.js";
import { readBounded } from "./read-bounded.js";

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
  /**
   * Base configs are `config.json`, not `config.yaml`: the JSON catalog that
   * scripts/render-snapshot.ts derives for the CLI's snapshot (JSON.parse is
   * native; a YAML parse runs in the interpreter).
   */
  json?: boolean;
}

/** Where a configs/ file is, said the way the docs name it. */
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

function readBaseConfig(dir: string, release: string, name: string, json: boolean): JsonObject {
  const parts = [release, "distributions", name, json ? "config.json" : "config.yaml"];
  const doc: unknown = json
    ? readJson<unknown>(dir, ...parts)
    : parse(readText(dir, ...parts), { version: "1.1" });
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

type Reading = Required<Pick<CatalogOptions, "lazy" | "json">>;

function loadRelease(dir: string, release: string, names: string[], how: Reading): ReleaseData {
  const registry = readJson<Omit<ReleaseData, "baseConfigs">>(dir, release, "registry.json");
  const baseConfigs: Record<string, JsonObject> = {};
  for (const name of names)
    define(baseConfigs, name, () => readBaseConfig(dir, release, name, how.json), how.lazy);
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
  // Within the bounds of every YAML file a user gives (nodes, depth, aliases), like the size.
  const read = readYaml(text, { version: "1.2", json: true });
  if (!read.ok) throw new Error(`${source}: ${read.detail}`);
  const doc = read.value;
  if (doc === null || doc === undefined) return {};
  if (!isObject(doc))
    throw new Error(
      `${source}: must be a YAML mapping of distribution name (or name:release) to image`,
    );
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(doc)) {
    if (typeof value !== "string" || value === "")
      throw new Error(`${source}: ${key} must map to an image reference`);
    if (!isImageReference(value))
      throw new Error(
        `${source}: ${key} maps to ${JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value)}, which is not an image reference ([registry/]path[:tag][@sha256:…], the path lower-case); fix it`,
      );
    out[key] = value;
  }
  return out;
}

export function loadCatalog(options: CatalogOptions = {}): Catalog {
  const dir = options.configsDir ?? DEFAULT_CONFIGS_DIR;
  const how: Reading = { lazy: options.lazy === true, json: options.json === true };
  const { releases } = readJson<{ releases: string[] }>(dir, "releases.json");
  const names: Record<string, string[]> = {};
  const byRelease: Record<string, ReleaseData> = {};
  for (const release of releases) {
    const shipped = distributionNames(dir, release);
    names[release] = shipped;
    define(byRelease, release, () => loadRelease(dir, release, shipped, how), how.lazy);
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

/** Writes `value` as compact JSON, which must read back as the same value. */
function writeJson(file: string, value: unknown, source: string): void {
  const json = JSON.stringify(value);
  // JSON holds what a YAML mapping of plain scalars does; a config.yaml holding more stops here.
  if (!isDeepStrictEqual(JSON.parse(json), value))
    throw new Error(`${source}: holds a value JSON cannot carry`);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, json);
}

/**
 * Writes the catalog in `configsDir` to `to` as the CLI's snapshot reads it
 * (`json: true`): the same index files, the registries without their
 * indentation, each base config as config.json. The catalog is read whole
 * first, so a broken configs/ stops here.
 */
export function writeJsonCatalog(configsDir: string, to: string): void {
  const catalog = loadCatalog({ configsDir });
  for (const file of ["releases.json", "distributions.json"]) {
    mkdirSync(to, { recursive: true });
    copyFileSync(join(configsDir, file), join(to, file));
  }
  for (const release of catalog.releases) {
    const registry = join(release, "registry.json");
    writeJson(join(to, registry), readJson(configsDir, registry), shown(configsDir, registry));
    for (const [name, doc] of Object.entries(catalog.byRelease[release]?.baseConfigs ?? {})) {
      const base = join(release, "distributions", name);
      writeJson(join(to, base, "config.json"), doc, shown(configsDir, base, "config.yaml"));
    }
  }
}

/**
 * Reads IMAGE_OVERRIDES_FILE, if the variable is set: a regular file (a
 * ConfigMap's mounted key is one, through its symlink) of at most the bytes
 * any YAML file a user gives is read to (src/config/bounded-yaml.ts).
 */
export function imageOverridesFromEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const file = env["IMAGE_OVERRIDES_FILE"];
  if (file === undefined || file === "") return {};
  if (!existsSync(file)) throw new Error(`IMAGE_OVERRIDES_FILE=${file}: file not found`);
  const max = YAML_BOUNDS.maxBytes;
  const read = readBounded(file, max);
  if (!read.ok)
    throw new Error(
      read.why === "too large"
        ? `IMAGE_OVERRIDES_FILE=${file}: the file is more than the ${max} bytes llsd-hook reads; an overrides file maps a few distribution names to images: shorten it`
        : `IMAGE_OVERRIDES_FILE=${file}: not a regular file; point it at a YAML file (a ConfigMap key)`,
    );
  return parseImageOverrides(read.text, file);
}
