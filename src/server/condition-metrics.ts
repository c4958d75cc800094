// Each parent's phase, and each of its conditions that holds, as series on
// /metrics (docs/operations/metrics.md, docs/adr/0023-condition-metrics.md).
// The hook sees every parent at each sync and resync; a replica exports what
// the last sync it answered for a parent returned, and the value of each series
// is the time of that sync, so that a query over several replicas keeps the
// newest view of each parent:
//   <series> == on (namespace, name) group_left ()
//     max by (namespace, name) (llsd_hook_parent_last_sync_timestamp_seconds)
// The hook is not told of deletes: a parent not synced for PARENT_EXPIRY_MS is
// dropped. At most `max` parents at once (METRICS_PARENTS_MAX; 0 turns the
// series off); a parent past that is counted, not exported.
//
// The core (parentLedger, viewOf) is pure: the caller passes the time. It runs
// in the main thread from the status summary each answer already carries, and
// a cached answer keeps its view, so a cache hit costs one map update.
import { Counter, Gauge, type Registry } from "prom-client";
import { CHECK_CONDITIONS, PHASES, type Phase } from "../api/status.js";
import { isWarningReason } from "../reasons.js";
import type { Parent, StatusSummary } from "./answer.js";
import { boundedReason, isNamespaceName, isObjectName } from "./labels.js";

/**
 * How long a parent's series outlive its last sync: longer than the alerts'
 * windows (15 minutes; twice Metacontroller's 300 s resync), so that a parent
 * synced by the other replica, or not at all, is still seen while they run.
 */
export const PARENT_EXPIRY_MS = 60 * 60 * 1000;

/** The most parents exported at once by default (METRICS_PARENTS_MAX). */
export const DEFAULT_PARENTS_MAX = 2000;

/** A condition whose status is True: its type, and its reason as a label value. */
interface HeldCondition {
  readonly condition: string;
  readonly reason: string;
}

/** What the series of one parent say: its phase and the conditions that hold. */
export interface ParentView {
  readonly phase: Phase;
  readonly held: readonly HeldCondition[];
}

/** One exported parent: whom, what its last sync returned, and when (ms since the epoch). */
export interface ParentEntry {
  readonly namespace: string;
  readonly name: string;
  readonly view: ParentView;
  readonly atMs: number;
}

const KNOWN_TYPES: ReadonlySet<string> = new Set(CHECK_CONDITIONS);
const KNOWN_PHASES: ReadonlySet<string> = new Set(PHASES);

/** The view of a sync answer's status: its phase and the conditions of ours that are True. */
export function viewOf(summary: StatusSummary): ParentView | undefined {
  if (summary.phase === undefined || !KNOWN_PHASES.has(summary.phase)) return undefined;
  const held = (summary.conditions ?? [])
    .filter((c) => c.status === "True" && (KNOWN_TYPES.has(c.type) || isWarningReason(c.type)))
    .map((c) => ({ condition: c.type, reason: boundedReason(c.reason) }));
  return { phase: summary.phase, held };
}

export interface ParentLedger {
  /**
   * `parent` was synced at `atMs` and its status is `view`: exported, or not
   * because its namespace or name is none Kubernetes accepts (`invalid`) or
   * `max` parents are exported already (`full`).
   */
  record(parent: Parent, view: ParentView, atMs: number): "exported" | "invalid" | "full";
  /** The parents synced in the PARENT_EXPIRY_MS before `nowMs`; older ones are dropped. */
  current(nowMs: number): ParentEntry[];
}

/** The parents one replica exports, at most `max` of them. */
export function parentLedger(max: number): ParentLedger {
  // In the order of their last sync: the oldest first, so expiry stops at the first fresh one.
  const entries = new Map<string, ParentEntry>();
  const expire = (nowMs: number) => {
    for (const [key, e] of entries) {
      if (nowMs - e.atMs < PARENT_EXPIRY_MS) return;
      entries.delete(key);
    }
  };
  return {
    record(parent, view, atMs) {
      const key = `${parent.namespace}/${parent.name}`;
      const known = entries.get(key);
      if (known !== undefined) {
        if (atMs < known.atMs) return "exported"; // an older answer never replaces a newer one
        entries.delete(key);
      } else {
        if (!isNamespaceName(parent.namespace) || !isObjectName(parent.name)) return "invalid";
        expire(atMs);
        if (entries.size >= max) return "full";
      }
      entries.set(key, { namespace: parent.namespace, name: parent.name, view, atMs });
      return "exported";
    },
    current(nowMs) {
      expire(nowMs);
      return [...entries.values()];
    },
  };
}

const PHASE_FAMILY = "llsd_hook_parent_last_sync_timestamp_seconds";
const CONDITION_FAMILY = "llsd_hook_parent_condition_last_sync_timestamp_seconds";

/**
 * The two per-parent families in Prometheus's text format, written here rather
 * than through prom-client, whose label hashing and escaping took ten times as
 * long at 1,000 parents (npm run bench -- 10): a scrape is rendered on the main
 * thread. Nothing needs escaping: names are ones Kubernetes accepts (the ledger
 * refuses others), phases, conditions and reasons come from the code's fixed sets.
 */
function renderParents(entries: readonly ParentEntry[]): string {
  const phases = [
    `# HELP ${PHASE_FAMILY} When this replica last answered a sync of the parent (Unix seconds), labelled with the phase it returned. Across replicas the newest is the parent's phase.`,
    `# TYPE ${PHASE_FAMILY} gauge`,
  ];
  const conditions = [
    `# HELP ${CONDITION_FAMILY} When this replica last answered a sync of the parent (Unix seconds), one series per condition that sync found True, with its reason.`,
    `# TYPE ${CONDITION_FAMILY} gauge`,
  ];
  for (const e of entries) {
    const who = `namespace="${e.namespace}",name="${e.name}"`;
    const at = String(e.atMs / 1000);
    phases.push(`${PHASE_FAMILY}{${who},phase="${e.view.phase}"} ${at}`);
    for (const h of e.view.held)
      conditions.push(
        `${CONDITION_FAMILY}{${who},condition="${h.condition}",reason="${h.reason}"} ${at}`,
      );
  }
  return `${phases.join("\n")}\n\n${conditions.join("\n")}\n`;
}

export interface ParentMetrics {
  /** A sync of `parent` answered at `at` returned a status that says `view`. */
  record(parent: Parent, view: ParentView, at: Date): void;
  /** The per-parent families at this moment (`now`), in Prometheus's text format; "" when off. */
  exposition(): string;
}

/**
 * The per-parent series of a ledger of `max` parents (`now` expires the old
 * ones at each scrape), with a gauge of how many and a counter of those past
 * the cap on `registers`. With `max` 0 there are none.
 */
export function parentMetrics(registers: Registry[], max: number, now: () => Date): ParentMetrics {
  if (max <= 0) return { record: () => {}, exposition: () => "" };
  const ledger = parentLedger(max);
  const current = () => ledger.current(now().getTime());
  new Gauge({
    name: "llsd_hook_parents",
    help: "Parents this replica exports series of now: synced in the last hour, METRICS_PARENTS_MAX at most.",
    registers,
    collect() {
      this.set(current().length);
    },
  });
  const refused = new Counter({
    name: "llsd_hook_parents_not_exported_total",
    help: "Syncs of a parent this replica exports no series of: METRICS_PARENTS_MAX parents were exported already.",
    registers,
  });
  return {
    record(parent, view, at) {
      if (ledger.record(parent, view, at.getTime()) === "full") refused.inc();
    },
    exposition: () => renderParents(current()),
  };
}
