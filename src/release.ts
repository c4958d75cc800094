// What a release means for the hook, in one table: a row per release where
// something the hook depends on changed, oldest first. A release has what the
// rows up to it say (configs/releases.json lists the supported ones; a new
// release that changes none of this is data there alone). The dialect
// (config/dialect.ts) carries a release's facts with what its schema says;
// resolve() carries them in Desired, so no stage parses a version string. A
// custom image (distribution.image) runs an unknown release: no facts, and
// each reader says what an unknown release gets.
import { deepFreeze, own } from "./lib/json.js";

/** How the server reads its config path and port from the environment. */
interface ServerEnvNames {
  /** Each is set to the config's path. */
  readonly config: readonly string[];
  readonly port: string;
}

/**
 * A change OGX's parse step makes to a config before it validates it
 * (config/base-config.ts applies each to a custom base before checking it).
 */
export type ParseMigration = "prompts-kv-to-sql" | "connectors-kv-to-sql";

/** What changes from a release on; a row leaves unsaid what stays as before. */
interface ReleaseRow {
  /** The first release with the change, X.Y.Z. */
  readonly from: string;
  /** The project's name: Llama Stack, then OGX (the renamed project). */
  readonly product?: "Llama Stack" | "OGX";
  /** Where the server finds its config and port. */
  readonly env?: ServerEnvNames;
  /** How the images configs/distributions.json pins start the server, the config path after it; undefined: their entrypoint. */
  readonly command?: readonly string[] | undefined;
  /** The server serves Prometheus metrics itself. */
  readonly metricsEndpoint?: boolean;
  /** Parse migrations from this release on, besides the earlier ones. */
  readonly parses?: readonly ParseMigration[];
  /** Provider APIs (registry names) the release added, removed or renamed (old → new). */
  readonly added?: readonly string[];
  readonly removed?: readonly string[];
  readonly renamed?: Readonly<Record<string, string>>;
}

/** The oldest row says every fact. */
type FirstRow = Required<Omit<ReleaseRow, "added" | "removed" | "renamed" | "parses">> & ReleaseRow;

export const RELEASE_TABLE: readonly [FirstRow, ...ReleaseRow[]] = deepFreeze([
  {
    from: "0.0.0",
    product: "Llama Stack",
    // The images' entrypoint runs `llama stack run "$RUN_CONFIG_PATH"`.
    env: { config: ["RUN_CONFIG_PATH", "LLAMA_STACK_CONFIG"], port: "LLAMA_STACK_PORT" },
    command: undefined,
    metricsEndpoint: false,
  },
  { from: "0.7.0", renamed: { agents: "responses" }, removed: ["post_training"] },
  {
    from: "0.8.0",
    product: "OGX",
    // OGX reads no LLAMA_STACK_* variable; its entrypoint runs `ogx stack run "$RUN_CONFIG_PATH"`.
    env: { config: ["RUN_CONFIG_PATH"], port: "OGX_PORT" },
    command: ["ogx", "run"],
    added: ["interactions", "messages"],
    removed: ["eval", "scoring", "datasetio"],
  },
  // configure.py _migrate_prompts_kv_to_sql
  { from: "1.0.0", removed: ["safety"], parses: ["prompts-kv-to-sql"] },
  { from: "1.1.0", added: ["skills"] },
  // ogx/telemetry's scrape server (1.1.3 has none)
  { from: "1.2.0", metricsEndpoint: true, added: ["container_runtime"] },
  // ServerStoresConfig's before-validator (ogx/core/storage/datatypes.py)
  { from: "1.4.1", parses: ["connectors-kv-to-sql"] },
]);

/**
 * The release a converted v1alpha1 object names when nothing says what runs
 * (convert/distribution.ts): the last Llama Stack release, never the newest line.
 */
export const FALLBACK_RELEASE = "0.7.3";

export interface ReleaseFacts {
  /** The release, X.Y.Z. */
  readonly release: string;
  /** "Llama Stack" up to 0.7, "OGX" (the renamed project) from 0.8 on: how messages name it. */
  readonly product: "Llama Stack" | "OGX";
  /** OGX: its own env names and start command, and /tmp as an in-memory volume. */
  readonly ogx: boolean;
  readonly env: ServerEnvNames;
  /** The pinned images' start command (container.ts serverCommand); undefined: their entrypoint. */
  readonly command: readonly string[] | undefined;
  readonly metricsEndpoint: boolean;
  readonly parseMigrations: readonly ParseMigration[];
}

/** X.Y.Z as numbers; a part that is not a number counts as 0. */
function parts(release: string): number[] {
  return release.split(".").map((p) => Number(p) || 0);
}

/** Whether `release` is `from` or later. */
function isFrom(release: string, from: string): boolean {
  const [a, b] = [parts(release), parts(from)];
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const diff = (a[i] ?? 0) - (b[i] ?? 0);
    if (diff !== 0) return diff > 0;
  }
  return true;
}

/** What the table says of `release`; undefined for an unknown one (a custom image). */
export function releaseFacts(release: string): ReleaseFacts;
export function releaseFacts(release: string | undefined): ReleaseFacts | undefined;
export function releaseFacts(release: string | undefined): ReleaseFacts | undefined {
  if (release === undefined) return undefined;
  const [first] = RELEASE_TABLE;
  let { product, env, command, metricsEndpoint } = first;
  const parseMigrations: ParseMigration[] = [];
  for (const row of RELEASE_TABLE) {
    if (!isFrom(release, row.from)) continue;
    product = row.product ?? product;
    env = row.env ?? env;
    if ("command" in row) command = row.command;
    metricsEndpoint = row.metricsEndpoint ?? metricsEndpoint;
    parseMigrations.push(...(row.parses ?? []));
  }
  return Object.freeze({
    release,
    product,
    ogx: product === "OGX",
    env,
    command,
    metricsEndpoint,
    parseMigrations: Object.freeze(parseMigrations),
  });
}

/** What last happened to a provider API (a registry name), from which release, in which product. */
export interface ApiChange {
  change: "added" | "removed" | "renamed";
  /** The new name, when renamed. */
  to?: string | undefined;
  from: string;
  product: ReleaseFacts["product"];
}

/** The last change the table records for `api`; undefined when none does. */
export function apiChange(api: string): ApiChange | undefined {
  let found: ApiChange | undefined;
  for (const row of RELEASE_TABLE) {
    const { from } = row;
    const { product } = releaseFacts(from);
    const to = own(row.renamed, api);
    if (row.added?.includes(api) === true) found = { change: "added", from, product };
    if (row.removed?.includes(api) === true) found = { change: "removed", from, product };
    if (to !== undefined) found = { change: "renamed", to, from, product };
  }
  return found;
}

/** The OGX release that removed `api` (FALLBACK_RELEASE, the last Llama Stack release, has it); undefined if none did. */
export function removedByOgx(api: string): string | undefined {
  const change = apiChange(api);
  return change?.change === "removed" && change.product === "OGX" ? change.from : undefined;
}
