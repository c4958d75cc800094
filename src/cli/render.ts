// `llsd-hook render <cr.yaml>`: what the hook would return for a
// LlamaStackDistribution, without a cluster. Pure: the caller reads the file
// and prints the result.
import { parseAllDocuments } from "yaml";
import { SyncRequest, type KubeObject } from "../api/hook.js";
import { LlamaStackDistributionSpec, API_VERSION, KIND } from "../api/schema.js";
import { YAML_OPTIONS } from "../config/canonical.js";
import { collectReferences, scanReferences, type Reference } from "../references.js";
import { sync, type SyncContext } from "../sync.js";
import { stringify } from "yaml";

export interface Rendered {
  /** Multi-document YAML of the children. */
  children: string;
  /** YAML of the status. */
  status: string;
  /** Notes for stderr. */
  notes: string[];
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

export function render(text: string, source: string, ctx: SyncContext, now: Date): Rendered {
  const docs = parseAllDocuments(text).map((d) => d.toJS() as unknown);
  const cr = docs.find((d) => (d as { kind?: string } | null)?.kind === KIND) as
    Record<string, unknown> | undefined;
  if (cr === undefined) throw new Error(`${source}: no ${KIND} (${API_VERSION}) document found`);
  const metadata = { namespace: "default", ...((cr["metadata"] ?? {}) as Record<string, unknown>) };
  const parsedSpec = LlamaStackDistributionSpec.safeParse(cr["spec"]);
  const refs = parsedSpec.success ? collectReferences(parsedSpec.data) : scanReferences(cr["spec"]);
  const namespace = String(metadata["namespace"]);
  const related: Record<string, Record<string, KubeObject>> = {
    "Secret.v1": {},
    "ConfigMap.v1": {},
  };
  for (const obj of assumedObjects(refs, namespace)) {
    (related[`${obj.kind}.v1`] as Record<string, KubeObject>)[`${namespace}/${obj.metadata.name}`] =
      obj;
  }
  const request = SyncRequest.parse({
    parent: { ...cr, metadata: { generation: 1, ...metadata } },
    children: {},
    related,
  });
  const outcome = sync(request, now.toISOString().replace(/\.\d{3}Z$/, "Z"), ctx);
  if (outcome.kind === "conflict") throw new Error(outcome.message);
  const notes =
    refs.length > 0
      ? [
          `note: assuming these exist in namespace ${namespace}: ${[...new Set(refs.map((r) => `${r.kind}/${r.name}`))].join(", ")}`,
        ]
      : [];
  const status = outcome.response.status as { phase?: string };
  return {
    children: outcome.response.children.map((c) => `---\n${stringify(c, YAML_OPTIONS)}`).join(""),
    status: stringify({ status: outcome.response.status }, YAML_OPTIONS),
    notes,
    failed: status.phase === "Failed",
  };
}
