// `llsd-hook render <cr.yaml>`: what the hook would return for a
// LlamaStackDistribution, without a cluster. Pure: the caller reads the file
// and prints the result.
import { parseAllDocuments, type ErrorCode } from "yaml";
import { SyncRequest, type KubeObject } from "../api/hook.js";
import { LlamaStackDistributionSpec, API_VERSION, KIND } from "../api/schema.js";
import { YAML_OPTIONS } from "../config/canonical.js";
import { isoSeconds } from "../edge/clock.js";
import { specBindings } from "../config/bindings.js";
import { collectReferences, scanReferences, type Reference } from "../references.js";
import { sync, type SyncContext } from "../sync.js";
import { PROBLEM_CONDITIONS } from "../compute-status.js";
import { isWarningReason } from "../reasons.js";
import { formatProblem, problemsFromZod } from "../problems.js";
import { stringify } from "yaml";
import { scanYaml, unresolvedAlias, YAML_BOUNDS } from "../config/bounded-yaml.js";
import { msg } from "../messages.js";
import { toV1alpha2 } from "../convert/convert.js";
import { V1ALPHA1_API_VERSION } from "../api/v1alpha1.js";

export interface Rendered {
  /** Multi-document YAML of the children. */
  children: string;
  /** YAML of the status. */
  status: string;
  /** Notes for stderr. */
  notes: string[];
  /** What stops the resource, one `field: what; fix` line each, as in the status. */
  problems: string[];
  /** What holds but blocks nothing, one `Reason: field: what; fix` line each, as in the status. */
  warnings: string[];
  failed: boolean;
}

function assumedObjects(refs: readonly Reference[], namespace: string): KubeObject[] {
  const byName = new Map<
    string,
    { kind: "Secret" | "ConfigMap"; name: string; keys: Set<string> }
  >();
  for (const ref of refs) {
    const id = `${ref.kind}/${ref.name}`;
    const entry = byName.get(id) ?? { kind: ref.kind, name: ref.name, keys: new Set<string>() };
    for (const k of ref.keys) entry.keys.add(k);
    byName.set(id, entry);
  }
  return [...byName.values()].map((o) => ({
    apiVersion: "v1",
    kind: o.kind,
    metadata: { name: o.name, namespace, resourceVersion: "1" },
    data: Object.fromEntries([...o.keys].sort().map((k) => [k, ""])),
  }));
}

/**
 * The Secrets and ConfigMaps of the file (apiVersion v1) in `namespace`, as
 * the API server would hold them: a Secret's stringData joins its data. Only
 * their keys and a ConfigMap's text are read; nothing of them is printed.
 */
function objectsInFile(docs: readonly unknown[], namespace: string): KubeObject[] {
  return docs.flatMap((d) => {
    const o = d as Record<string, unknown> | null;
    const meta = (o?.["metadata"] ?? {}) as { name?: unknown; namespace?: unknown };
    if (o?.["apiVersion"] !== "v1" || (o["kind"] !== "Secret" && o["kind"] !== "ConfigMap"))
      return [];
    if (typeof meta.name !== "string" || (meta.namespace ?? namespace) !== namespace) return [];
    const strings = (o["stringData"] ?? {}) as Record<string, unknown>;
    const data = {
      ...((o["data"] ?? {}) as Record<string, unknown>),
      ...Object.fromEntries(
        Object.entries(strings).map(([k, v]) => [k, Buffer.from(String(v)).toString("base64")]),
      ),
    };
    const object: KubeObject = {
      ...Object.fromEntries(Object.entries(o).filter(([k]) => k !== "stringData")),
      apiVersion: "v1",
      kind: o["kind"],
      metadata: {
        resourceVersion: "1",
        ...(o["metadata"] as Record<string, unknown>),
        name: meta.name,
        namespace,
      },
      data,
    };
    return [object];
  });
}

/** A file the CLI (render, request) cannot use; the message is one `where: what` line per problem. */
export class RenderError extends Error {}

/**
 * What render says for each of yaml's error codes: yaml's own first line
 * ("yaml"), or ours where yaml's may quote the file's text (a tag's name, an
 * escape, a token), which may be a Secret's value. Typed on every code, so a
 * code a new yaml adds needs a row.
 */
const YAML_ERRORS: Record<ErrorCode, "yaml" | (() => string)> = {
  ALIAS_PROPS: "yaml",
  BAD_ALIAS: "yaml",
  BAD_COLLECTION_TYPE: msg.yamlCollectionTag,
  BAD_DIRECTIVE: msg.yamlDirective,
  BAD_DQ_ESCAPE: msg.yamlBadEscape,
  BAD_INDENT: "yaml",
  BAD_PROP_ORDER: msg.yamlPropertyOrder,
  BAD_SCALAR_START: msg.yamlScalarStart,
  BLOCK_AS_IMPLICIT_KEY: "yaml",
  BLOCK_IN_FLOW: "yaml",
  DUPLICATE_KEY: "yaml",
  IMPOSSIBLE: "yaml",
  KEY_OVER_1024_CHARS: "yaml",
  MISSING_CHAR: "yaml",
  MULTILINE_IMPLICIT_KEY: "yaml",
  MULTIPLE_ANCHORS: "yaml",
  MULTIPLE_DOCS: "yaml",
  MULTIPLE_TAGS: "yaml",
  NON_STRING_KEY: "yaml",
  RESOURCE_EXHAUSTION: () => msg.yamlTooManyAliases(YAML_BOUNDS.maxAliasCount),
  TAB_AS_INDENT: "yaml",
  TAG_RESOLVE_FAILED: msg.yamlUnknownTag,
  UNEXPECTED_TOKEN: msg.yamlUnexpected,
};

/** Every document, strictly: duplicate keys, tabs and syntax errors stop with line and column. */
export function parseStrictly(text: string, source: string): unknown[] {
  // Within the bounds every user's YAML gets, before yaml builds a tree.
  const scanned = scanYaml(text);
  if (scanned !== undefined) throw new RenderError(`${source}: the file ${scanned.detail}`);
  const docs = parseAllDocuments(text, { uniqueKeys: true, prettyErrors: true });
  const problems = docs.flatMap((d) => [...d.errors, ...d.warnings]);
  if (problems.length > 0) {
    throw new RenderError(
      problems
        .map((e) => {
          const at = e.linePos?.[0];
          const ours = YAML_ERRORS[e.code];
          const what =
            ours === "yaml"
              ? (e.message.split("\n")[0] ?? "").replace(/ at line \d+, column \d+:?$/, "")
              : ours();
          return `${source}:${at === undefined ? "" : `${at.line}:${at.col}: `}${what}`;
        })
        .join("\n"),
    );
  }
  for (const d of docs) {
    const alias = unresolvedAlias(text, d);
    if (alias !== undefined) throw new RenderError(`${source}: the file ${alias.detail}`);
  }
  try {
    return docs.map((d) => d.toJS({ maxAliasCount: YAML_BOUNDS.maxAliasCount }) as unknown);
  } catch {
    throw new RenderError(
      `${source}: the file ${msg.yamlTooManyAliases(YAML_BOUNDS.maxAliasCount)}`,
    );
  }
}

/** The sync request a file stands for, and the objects it assumes exist. */
export interface RenderRequest {
  request: SyncRequest;
  refs: Reference[];
  namespace: string;
  /** The file held a llamastack.io/v1alpha1 object, converted as the conversion webhook does. */
  converted: boolean;
  /** `Kind/name` of the Secrets and ConfigMaps the file holds, used as they are. */
  fromFile: string[];
}

/** How a file is read as a resource: in which namespace, and for which command (named in errors). */
export interface RequestOptions {
  /** kubectl's --namespace: the namespace of a resource whose metadata names none (else "default"). */
  namespace?: string | undefined;
  command?: "render" | "request";
}

/** The file's LlamaStackDistribution as Metacontroller would send it, its references assumed to exist. */
export function requestOf(
  text: string,
  source: string,
  options: RequestOptions = {},
): RenderRequest {
  const docs = parseStrictly(text, source);
  const crs = docs.filter((d) => (d as { kind?: string } | null)?.kind === KIND) as Record<
    string,
    unknown
  >[];
  if (crs.length > 1) {
    const names = crs.map((c) => String((c["metadata"] as { name?: unknown } | undefined)?.name));
    throw new RenderError(
      `${source}: ${crs.length} documents of kind ${KIND} (${names.join(", ")}); ${options.command ?? "render"} takes one: put each in a file of its own`,
    );
  }
  const found = crs[0];
  if (found === undefined)
    throw new RenderError(
      `${source}: no document of kind ${KIND} (apiVersion ${API_VERSION}); the file has ${docs.length} document(s)`,
    );
  const converted = found["apiVersion"] === V1ALPHA1_API_VERSION;
  const cr = converted ? fromV1alpha1(found, source) : found;
  const metadata = metadataOf(cr, source, options.namespace);
  const parsedSpec = LlamaStackDistributionSpec.safeParse(cr["spec"]);
  const refs = parsedSpec.success
    ? collectReferences(parsedSpec.data, specBindings(parsedSpec.data))
    : scanReferences(cr["spec"]);
  const namespace = String(metadata["namespace"]);
  const related: Record<string, Record<string, KubeObject>> = {
    "Secret.v1": {},
    "ConfigMap.v1": {},
  };
  const inFile = objectsInFile(docs, namespace);
  const given = new Set(inFile.map((o) => `${o.kind}/${o.metadata.name}`));
  const assumed = refs.filter((r) => !given.has(`${r.kind}/${r.name}`));
  const base = parsedSpec.success ? parsedSpec.data.distribution.baseConfig : undefined;
  if (base !== undefined && !given.has(`ConfigMap/${base.configMapName}`))
    throw new RenderError(
      `${source}: spec.distribution.baseConfig: the config is generated on the ${base.key} of ConfigMap ${base.configMapName}, which is not in the file; add that ConfigMap to the file (a document of kind ConfigMap in namespace ${namespace})`,
    );
  for (const obj of [...assumedObjects(assumed, namespace), ...inFile]) {
    (related[`${obj.kind}.v1`] as Record<string, KubeObject>)[`${namespace}/${obj.metadata.name}`] =
      obj;
  }
  const input = {
    parent: { ...cr, metadata: { generation: 1, ...metadata } },
    children: {},
    related,
  };
  const parsed = SyncRequest.safeParse(input);
  if (!parsed.success)
    throw new RenderError(
      problemsFromZod(parsed.error, input, SyncRequest)
        .map((p) => `${source}: ${formatProblem({ ...p, path: p.path.replace(/^parent\./, "") })}`)
        .join("\n"),
    );
  return { request: parsed.data, refs: assumed, namespace, converted, fromFile: [...given] };
}

/** The resource's metadata, its namespace defaulted as kubectl does: `namespace` (--namespace), else "default". */
function metadataOf(
  cr: Record<string, unknown>,
  source: string,
  namespace: string | undefined,
): Record<string, unknown> {
  const metadata = {
    namespace: namespace ?? "default",
    ...((cr["metadata"] ?? {}) as Record<string, unknown>),
  };
  if (namespace !== undefined && metadata.namespace !== namespace)
    throw new RenderError(
      `${source}: metadata.namespace: ${String(metadata.namespace)} differs from --namespace ${namespace}; give one of them, or the same in both (as kubectl requires)`,
    );
  return metadata;
}

/** A v1alpha1 object as the conversion webhook turns it into v1alpha2, or why it cannot be. */
function fromV1alpha1(cr: Record<string, unknown>, source: string): Record<string, unknown> {
  const result = toV1alpha2(cr);
  if (!result.ok)
    throw new RenderError(result.problems.map((p) => `${source}: ${formatProblem(p)}`).join("\n"));
  return result.value;
}

export function render(text: string, source: string, ctx: SyncContext, now: Date): Rendered {
  const { request, refs, namespace, converted, fromFile } = requestOf(text, source);
  const outcome = sync(request, isoSeconds(now), ctx);
  if (outcome.kind === "conflict") throw new RenderError(outcome.message);
  const notes = [
    ...(converted
      ? [
          `note: converted from ${V1ALPHA1_API_VERSION} to ${API_VERSION} as the conversion webhook does (docs/conversion.md)`,
        ]
      : []),
    ...(fromFile.length > 0 ? [`note: using from the file: ${fromFile.join(", ")}`] : []),
    ...(refs.length > 0
      ? [
          `note: assuming these exist in namespace ${namespace}: ${[...new Set(refs.map((r) => `${r.kind}/${r.name}`))].join(", ")}`,
        ]
      : []),
  ];
  const status = outcome.response.status;
  const conditions = status.conditions ?? [];
  const failed = new Set<string>(PROBLEM_CONDITIONS);
  return {
    problems: conditions
      .filter((c) => c.status === "False" && failed.has(c.type))
      .flatMap((c) => c.message.split("\n")),
    warnings: conditions
      .filter((c) => c.status === "True" && isWarningReason(c.type))
      .flatMap((c) => c.message.split("\n").map((line) => `${c.type}: ${line}`)),
    children: outcome.response.children.map((c) => `---\n${stringify(c, YAML_OPTIONS)}`).join(""),
    status: stringify({ status: outcome.response.status }, YAML_OPTIONS),
    notes,
    failed: status.phase === "Failed",
  };
}
