// Conversion of one LlamaStackDistribution between llamastack.io/v1alpha1 (the
// retired Go operator's version) and v1alpha2, as pure functions: the object
// in, the converted object (or the problems) out. A conversion maps every
// field to its home in the other version (map.ts) and keeps what has none as
// a restore list in an annotation (restore.ts), computed against what the
// mapping back will make of the result — so converting back gives the original
// again, deep-equal. docs/conversion.md has the field table.
import { measure, SPEC_BOUNDS, type Bounds } from "../api/bounds.js";
import { KIND, LlamaStackDistributionSpec } from "../api/schema.js";
import { formatPath, isObject, orderKeys, own, type JsonObject } from "../lib/json.js";
import { largestParts } from "../api/budget.js";
import { msg } from "../messages.js";
import { problem, type Problem, type Result } from "../problems.js";
import { Reason } from "../reasons.js";
import {
  ANNOTATIONS_LIMIT,
  annotationBytes,
  annotationOf,
  V1ALPHA1_FIELDS_ANNOTATION,
  V1ALPHA2_FIELDS_ANNOTATION,
  withAnnotation,
  withoutAnnotation,
} from "./annotations.js";
import { describe } from "./reader.js";
import { mapDown, mapUp, V1ALPHA1_API_VERSION, V1ALPHA2_API_VERSION, type Mapped } from "./map.js";
import {
  applyRestore,
  decodeRestore,
  diffRestore,
  encodeRestore,
  treeOf,
  type RestoreEntry,
} from "./restore.js";

/**
 * Bounds on a whole object, checked before anything recursive sees it: the
 * spec's bounds (docs/guide/resource.md), with room for what surrounds the spec —
 * metadata.managedFields mirrors the spec a few levels deeper, and status.
 */
export const OBJECT_BOUNDS: Bounds = {
  maxDepth: SPEC_BOUNDS.maxDepth + 16,
  maxEntries: SPEC_BOUNDS.maxEntries * 4,
  maxNodes: (SPEC_BOUNDS.maxNodes ?? 50_000) * 4,
};

interface Direction {
  from: string;
  to: string;
  /** The annotation the source may carry from an earlier conversion: restored, then dropped. */
  incoming: string;
  /** The annotation the result carries, for what the target has no field for. */
  outgoing: string;
  map: (obj: JsonObject) => Mapped;
  back: (obj: JsonObject) => Mapped;
}

const UP: Direction = {
  from: V1ALPHA1_API_VERSION,
  to: V1ALPHA2_API_VERSION,
  incoming: V1ALPHA2_FIELDS_ANNOTATION,
  outgoing: V1ALPHA1_FIELDS_ANNOTATION,
  map: mapUp,
  back: mapDown,
};

const DOWN: Direction = {
  from: V1ALPHA2_API_VERSION,
  to: V1ALPHA1_API_VERSION,
  incoming: V1ALPHA1_FIELDS_ANNOTATION,
  outgoing: V1ALPHA2_FIELDS_ANNOTATION,
  map: mapDown,
  back: mapUp,
};

/** A llamastack.io/v1alpha1 LlamaStackDistribution as v1alpha2. */
export function toV1alpha2(obj: unknown): Result<JsonObject, Problem> {
  return convert(obj, UP);
}

/** A llamastack.io/v1alpha2 LlamaStackDistribution as v1alpha1. */
export function toV1alpha1(obj: unknown): Result<JsonObject, Problem> {
  return convert(obj, DOWN);
}

function failed<T = JsonObject>(problems: Problem[]): Result<T, Problem> {
  return { ok: false, problems, warnings: [] };
}

function invalid<T = JsonObject>(path: string, detail: string): Result<T, Problem> {
  return failed<T>([problem(Reason.InvalidSpec, path, detail)]);
}

function convert(input: unknown, dir: Direction): Result<JsonObject, Problem> {
  const checked = checkObject(input, dir.from);
  if (!checked.ok) return checked;
  if (dir === UP) {
    const written = v1alpha2Fields(checked.value);
    if (written.length > 0) return invalid("apiVersion", msg.v1alpha2SpecUnderV1alpha1(written));
  }
  const taken = takeRestore(checked.value, dir.incoming);
  if (!taken.ok) return taken;
  const core = taken.value.core;
  const mapped = dir.map(core);
  if (mapped.problems.length > 0) return failed(mapped.problems);
  const restored = applyRestore(mapped.value, taken.value.entries);
  // What converting back will start from: the result without the outgoing annotation.
  const reverse = withoutAnnotation(withAnnotation(restored.value, dir.outgoing, ""), dir.outgoing);
  const back = dir.back(reverse);
  if (back.problems.length > 0) return failed(back.problems);
  const residual = diffRestore(core, back.value);
  const out =
    residual.length === 0
      ? restored.value
      : withAnnotation(restored.value, dir.outgoing, encodeRestore(residual));
  const tooLarge = checkAnnotations(out, residual, dir);
  if (tooLarge !== undefined) return failed([tooLarge]);
  const warnings =
    restored.skipped === 0
      ? []
      : [
          problem(
            Reason.InvalidSpec,
            annotationPath(dir.incoming),
            msg.convertStaleRestore(restored.skipped, dir.incoming),
          ),
        ];
  const value = orderKeys(out, ["apiVersion", "kind", "metadata", "spec", "status"]) as JsonObject;
  return { ok: true, value, warnings };
}

const annotationPath = (key: string) => formatPath(["metadata", "annotations", key]);

/** An object of the expected version and kind, within bounds. */
function checkObject(input: unknown, apiVersion: string): Result<JsonObject, Problem> {
  if (!isObject(input)) return invalid("object", msg.convertNotAnObject());
  const shape = measure(input, OBJECT_BOUNDS);
  if (shape.problem !== undefined)
    return invalid(formatPath(shape.problem.path) || "object", shape.problem.detail);
  const version = own(input, "apiVersion");
  if (version !== apiVersion)
    return invalid("apiVersion", msg.convertWrongVersion(describeText(version), apiVersion));
  const kind = own(input, "kind");
  if (kind !== KIND) return invalid("kind", msg.convertWrongKind(describeText(kind)));
  const metadata = own(input, "metadata");
  if (metadata !== undefined && !isObject(metadata))
    return invalid("metadata", msg.convertWrongType("an object", describe(metadata), apiVersion));
  const annotations = isObject(metadata) ? own(metadata, "annotations") : undefined;
  if (annotations !== undefined && !isObject(annotations))
    return invalid(
      "metadata.annotations",
      msg.convertWrongType("an object", describe(annotations), apiVersion),
    );
  return { ok: true, value: input, warnings: [] };
}

/**
 * The v1alpha2 spec fields of a v1alpha1 object that has no spec.server: a
 * v1alpha2 spec under the wrong apiVersion, which v1alpha1 can only keep aside.
 */
function v1alpha2Fields(obj: JsonObject): string[] {
  const spec = own(obj, "spec");
  if (!isObject(spec) || own(spec, "server") !== undefined) return [];
  const fields = Object.keys(LlamaStackDistributionSpec.shape);
  return Object.keys(spec).filter((k) => fields.includes(k));
}

/** A short, safe rendering of an apiVersion or kind that is not the expected one. */
function describeText(value: unknown): string {
  if (typeof value !== "string") return value === undefined ? "missing" : "not a string";
  return value.length > 80 ? `${JSON.stringify(value.slice(0, 80))}…` : JSON.stringify(value);
}

type Taken = { core: JsonObject; entries: RestoreEntry[] };

/** The restore list an earlier conversion left, and the object without it. */
function takeRestore(obj: JsonObject, key: string): Result<Taken, Problem> {
  const text = annotationOf(obj, key);
  const core = withoutAnnotation(obj, key);
  if (text === undefined) return { ok: true, value: { core, entries: [] }, warnings: [] };
  if (typeof text !== "string")
    return invalid<Taken>(annotationPath(key), msg.convertBadAnnotation("not a string"));
  if (Buffer.byteLength(text, "utf8") > ANNOTATIONS_LIMIT)
    return invalid<Taken>(annotationPath(key), msg.convertBadAnnotation("longer than 256 KiB"));
  const decoded = decodeRestore(text, OBJECT_BOUNDS);
  if ("error" in decoded)
    return invalid<Taken>(annotationPath(key), msg.convertBadAnnotation(decoded.error));
  return { ok: true, value: { core, entries: decoded.entries }, warnings: [] };
}

const kib = (bytes: number) => Math.ceil(bytes / 1024);

/** The result's annotations must fit the 256 KiB Kubernetes allows: else the largest kept fields. */
function checkAnnotations(
  out: JsonObject,
  residual: readonly RestoreEntry[],
  dir: Direction,
): Problem | undefined {
  const total = annotationBytes(out);
  if (total <= ANNOTATIONS_LIMIT) return undefined;
  const kept = annotationOf(out, dir.outgoing);
  const ours =
    typeof kept === "string"
      ? Buffer.byteLength(dir.outgoing, "utf8") + Buffer.byteLength(kept, "utf8")
      : 0;
  return problem(
    Reason.InvalidSpec,
    annotationPath(dir.outgoing),
    msg.convertAnnotationsTooLarge(
      { kib: kib(ours), otherKib: kib(total - ours) },
      dir.from,
      dir.to,
      dir.outgoing,
      largestParts(treeOf(residual)),
    ),
  );
}
