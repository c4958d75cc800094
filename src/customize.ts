// /customize: which related objects Metacontroller should send with each sync
// — the Secrets and ConfigMaps the spec names, by name, in the parent's
// namespace. Best effort on an invalid spec, so a later fix is seen at once.
import type { CustomizeRequest, CustomizeResponse, RelatedResourceRule } from "./api/hook.js";
import { measure, SPEC_BOUNDS } from "./api/bounds.js";
import { LlamaStackDistributionSpec } from "./api/schema.js";
import { specBindings } from "./config/bindings.js";
import { collectReferences, namesOf, scanReferences } from "./references.js";

export function customize(request: CustomizeRequest): CustomizeResponse {
  const namespace = request.parent.metadata.namespace;
  const spec = request.parent.spec;
  const parsed =
    measure(spec, SPEC_BOUNDS).problem === undefined
      ? LlamaStackDistributionSpec.safeParse(spec)
      : undefined;
  const refs =
    parsed?.success === true
      ? collectReferences(parsed.data, specBindings(parsed.data))
      : scanReferences(spec);
  const rules: RelatedResourceRule[] = [];
  const secrets = namesOf(refs, "Secret");
  const configMaps = namesOf(refs, "ConfigMap");
  // An empty names list would select every object, so a kind with no names gets no rule.
  if (secrets.length > 0)
    rules.push({ apiVersion: "v1", resource: "secrets", namespace, names: secrets });
  if (configMaps.length > 0)
    rules.push({ apiVersion: "v1", resource: "configmaps", namespace, names: configMaps });
  return { relatedResources: rules };
}
