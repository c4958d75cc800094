// Every user-facing message, in one place so tests can assert exact text.
// A message says what is wrong and the fix; the field path goes in front of
// it (problems.ts formatProblem): `spec.x: what; fix`.

import { TRUST } from "./container.js";
import { formatPath } from "./lib/json.js";
import { releaseFacts } from "./release.js";
import { nearestName } from "./lib/nearest.js";
import { orDidYouMean } from "./shape-messages.js";

const list = (items: readonly string[]): string => items.join(", ");

/** The namespaces a NetworkPolicy's peers name: "namespaces a, b and namespaces with the label key c". */
function peerNamespaces(namespaces: readonly string[], labels: readonly string[]): string {
  const named = namespaces.length === 0 ? [] : [`namespaces ${list(namespaces)}`];
  const labelled =
    labels.length === 0 ? [] : [`namespaces with the label key ${labels.join(" or ")}`];
  return [...named, ...labelled].join(" and ");
}

/** `fix`, led by "did you mean X?" when X in `names` is clearly what `word` meant. */
function suggesting(word: string, names: readonly string[], fix: string): string {
  return orDidYouMean(nearestName(word, names), fix);
}

/** "; did you mean X?" when X in `names` is clearly what `word` meant, else nothing. */
function meant(word: string, names: readonly string[]): string {
  const name = nearestName(word, names);
  return name === undefined ? "" : `; did you mean ${name}?`;
}

/**
 * `fix`, led by "did you mean X?" when X is a release of the same line as
 * `release` (1.4.1 for 1.4.0): across lines, a near spelling is another
 * release, not a slip (0.5.0 is not 1.5.0).
 */
function suggestingRelease(release: string, releases: readonly string[], fix: string): string {
  const line = (r: string) => r.split(".").slice(0, 2).join(".");
  return suggesting(
    release,
    releases.filter((r) => line(r) === line(release)),
    fix,
  );
}

/** The short names (vllm for remote::vllm) a provider type written without :: is resolved from. */
function shortTypes(types: readonly string[]): string[] {
  return types.map((t) => t.slice(t.indexOf("::") + 2));
}

/** "OGX 1.5.0" from 0.8 on (the renamed project), "Llama Stack 0.7.3" before (release.ts). */
function product(release: string): string {
  return `${releaseFacts(release).product} ${release}`;
}

export const msg = {
  // distribution
  unknownDistribution: (name: string, known: readonly string[]) =>
    `distribution ${name} is not known to llsd-hook; ${suggesting(name, known, `use one of ${list(known)}`)}, or for an image of your own set distribution.image with distribution.baseConfig and distribution.release (the image's config.yaml as the base), or with spec.overrideConfig (the whole config)`,
  releaseWithoutDistribution: (name: string, release: string, releases: readonly string[]) =>
    `${product(release)} is not supported for ${name}; ${suggestingRelease(release, releases, `use one of ${list(releases)}`)}, or omit release for the newest`,
  retiredDistribution: (name: string, last: string, replacement: string) =>
    `distribution ${name} was retired upstream; the last release that shipped it was ${last}. ${replacement[0]?.toUpperCase()}${replacement.slice(1)}`,
  recordedReleaseUnsupported: (
    name: string,
    release: string,
    from: string,
    releases: readonly string[],
  ) =>
    `this resource runs ${product(release)} (${from}), which this llsd-hook no longer supports for ${name}; the running server is kept as it is. Set spec.distribution.release to one of ${list(releases)} to move it`,
  noPublishedImage: (name: string, release: string) =>
    `${product(release)} publishes no image for ${name}; build one and map it in the hook's IMAGE_OVERRIDES_FILE (${name}:${release}: <image>), or use distribution.image with spec.overrideConfig`,
  retiredImage: (image: string, why: string) => `the image ${image} is retired: ${why}`,
  newerReleaseAvailable: (release: string, from: string, newest: string) =>
    `runs ${product(release)} (from ${from}); ${product(newest)} is available: set spec.distribution.release to "${newest}" to move (docs/guide/distribution-and-releases.md says what changes)`,
  overrideNeedsTls: (configMap: string, release: string) =>
    `ConfigMap ${configMap}'s config.yaml sets neither server.tls_certfile and server.tls_keyfile nor server.insecure: true, and ${product(release)} refuses to start without TLS; add server.insecure: true (plain HTTP inside the cluster), or enable TLS`,
  removedApi: (api: string, release: string, removedIn: string) =>
    `${product(release)} has no ${api} API (OGX removed it in ${removedIn}); remove this, or pin spec.distribution.release to 0.7.3, the last Llama Stack release with it`,
  baseConfigRequired: (image: string) =>
    `llsd-hook has no base config for the custom image ${image}; set distribution.baseConfig (with distribution.release) to a ConfigMap holding the image's own config.yaml, or spec.overrideConfig.configMapName to one holding the whole config, or use distribution.name`,
  customImageRelease: (release: string, releases: readonly string[]) =>
    `${product(release)} is not supported; ${suggestingRelease(release, releases, `name the release the image runs, one of ${list(releases)}`)}`,
  // spec.distribution.baseConfig (src/config/base-config.ts)
  baseConfigNotText: (configMap: string, key: string) =>
    `ConfigMap ${configMap}'s ${key} is binary data, not text; put the image's config.yaml in the ConfigMap's data (kubectl create configmap ${configMap} --from-file=${key}=config.yaml)`,
  baseConfigNotYaml: (configMap: string, key: string, why: string) =>
    `ConfigMap ${configMap}'s ${key} is not YAML (${why}); put the image's own config.yaml there`,
  baseConfigNotMapping: (configMap: string, key: string) =>
    `ConfigMap ${configMap}'s ${key} is not a Llama Stack config (a YAML mapping with apis, providers, ...); put the image's own config.yaml there`,
  baseConfigShape: (configMap: string, key: string, why: string) =>
    `ConfigMap ${configMap}'s ${key} is not a Llama Stack config: ${why}; fix it, or put the image's own config.yaml there`,
  baseConfigSchema: (configMap: string, key: string, release: string, path: string, why: string) =>
    `ConfigMap ${configMap}'s ${key} does not fit ${product(release)}'s config: ${path} ${why}; fix the config, or set spec.distribution.release to the release the image runs`,
  baseConfigApi: (configMap: string, key: string, api: string, release: string) =>
    `ConfigMap ${configMap}'s ${key} has providers for ${api}, which is not an API of ${product(release)}; fix the config, or set spec.distribution.release to the release the image runs`,
  baseConfigProviderType: (
    configMap: string,
    key: string,
    at: string,
    type: string,
    release: string,
  ) =>
    `ConfigMap ${configMap}'s ${key}: ${at} is ${type}, which is not a provider type of ${product(release)}; fix the config, or set spec.distribution.release to the release the image runs`,

  // providers
  unknownApi: (specKey: string, release: string, valid: readonly string[], hint?: string) =>
    hint === undefined
      ? `${specKey} is not an API of ${product(release)}; ${suggesting(specKey, valid, `use one of ${list(valid)}`)}`
      : `${specKey} is not an API of ${product(release)} (${hint}); use one of ${list(valid)}`,
  unknownProviderType: (
    provider: string,
    specKey: string,
    release: string,
    valid: readonly string[],
  ) =>
    `${provider} is not a provider type of the ${specKey} API in ${product(release)}; ${suggesting(provider, provider.includes("::") ? valid : shortTypes(valid), `use one of ${list(valid)}`)}`,
  deprecatedProviderType: (type: string, release: string, note: string) =>
    `${type} is deprecated in ${product(release)}: ${note}`,
  noUrlField: (type: string) =>
    `${type} has no URL field to put endpoint in; remove endpoint and set the provider's fields under settings`,
  manyUrlFields: (type: string, fields: readonly string[]) =>
    `${type} has several URL fields (${list(fields)}); remove endpoint and set the one you mean under settings`,
  emptyEndpoint: (type: string, field: string, unset: readonly string[], viaEndpoint: boolean) =>
    `${type}'s ${field} would be empty (the config reads it from ${list(unset)}, which nothing sets), so the server would start without a URL and fail at its first request; ${viaEndpoint ? "set endpoint to the URL of the service" : `set ${field} under settings`}, or set ${list(unset)} in spec.workload.overrides.env`,
  externalField: (type: string, field: string) =>
    `${type} is an external provider, whose config class llsd-hook cannot see, so ${field} has no field to go to; set the field by name under settings (secretRefs for a secret)`,
  noCredentialField: (type: string) =>
    `${type} has no secret credential field to put apiKey in; remove apiKey and use secretRefs with the config field name`,
  manyCredentialFields: (type: string, fields: readonly string[]) =>
    `${type} has several credential fields (${list(fields)}); remove apiKey and use secretRefs with the field you mean`,
  unknownConfigField: (field: string, type: string, fields: readonly string[]) =>
    `${field} is not a config field of ${type}; ${suggesting(field.slice(field.lastIndexOf(".") + 1), fields, `use one of ${list(fields)}`)}`,
  secretInSettings: (field: string) =>
    `${field} is a secret field and cannot take a literal value in settings; move it to secretRefs with a secretKeyRef`,
  fieldSetTwice: (field: string, by: string) =>
    `config field ${field} is already set by ${by}; set it in one place only`,
  invalidProviderField: (field: string, type: string, problem: string) =>
    `config field ${field} of ${type} ${problem}`,
  missingProviderField: (field: string, type: string) =>
    `config field ${field} of ${type} is required; set it under settings (or secretRefs for a secret)`,
  providerDeclaredAndDisabled: (id: string) =>
    `provider ${id} is declared under spec.providers and listed in spec.disabledProviders; remove one of them`,

  // disabling
  notInBaseApi: (specKey: string, distribution: string, release: string) =>
    `${specKey} is not in ${distribution} ${release}'s config, so there is nothing to disable`,
  notInBaseProvider: (id: string, distribution: string, release: string, ids: readonly string[]) =>
    `${distribution} ${release}'s config has no provider ${id}, so there is nothing to disable${meant(id, ids)}`,
  disabledDependency: (removed: string, fix: string, dependentApi: string, providerId: string) =>
    `${removed} cannot be removed: ${dependentApi} (provider ${providerId}) needs it; ${fix}`,

  // resources
  modelNeedsProvider: () =>
    "is required because spec.providers.inference declares no provider; name an inference provider id of the generated config",
  modelProviderMissing: (id: string, enabled: readonly string[]) =>
    `${id} is not an enabled inference provider of the generated config; ${suggesting(id, enabled, `use one of ${list(enabled)}`)}`,
  modelProviderConditional: (id: string, envVar: string) =>
    `provider ${id} is enabled only when ${envVar} is set; set ${envVar} in spec.workload.overrides.env, or declare ${id} under spec.providers.inference`,
  embeddingNeedsDimension: () =>
    "an embedding model needs metadata.embedding_dimension (an integer); add it",
  shieldsNeedSafetyProvider: () =>
    "shields are registered with the first safety provider the spec declares, and spec.providers.safety declares none; add one (e.g. provider: llama-guard)",
  toolsNotRegistered: (release: string) =>
    `${product(release)} does not register tool groups; tools come from toolRuntime providers there, so declare them under spec.providers.toolRuntime and remove spec.resources.tools`,
  toolNeedsProvider: (toolgroup: string, distribution: string, release: string) =>
    `tool group ${toolgroup} is not in ${distribution} ${release}'s config; declare a toolRuntime provider under spec.providers.toolRuntime to register it with`,

  // storage
  unsupportedStorageField: (field: string, backendType: string, release: string) =>
    `${product(release)}'s ${backendType} backend has no ${field} field; remove it`,

  // workload
  reservedEnv: (name: string) =>
    `${name} is set by llsd-hook and cannot be overridden (only HOME, SQLITE_STORE_DIR, FILES_STORAGE_DIR and HF_HOME can); rename or remove it`,
  reservedVolume: (name: string) =>
    `volume name ${name} is used by llsd-hook (config, data, tls; ogx-tmp on OGX; trust with spec.trust; auth-ca with spec.auth); choose another name`,
  reservedMountPath: (path: string) =>
    `${path} is where llsd-hook mounts the config, TLS or data volume (or, on OGX, /tmp; with spec.trust, the CA bundle; with spec.auth, its CA); mount elsewhere`,
  reservedLabel: (key: string) =>
    `label ${key} is set by llsd-hook and selects the pods; remove it`,
  reservedAnnotation: (key: string) =>
    `annotation ${key} is set by llsd-hook (llamastack.io/*); remove it`,
  pvcImmutable: (field: string, current: string, pvc: string) =>
    `the existing PersistentVolumeClaim ${pvc} has ${field} ${current}, which cannot change; keep it, or delete the claim (and its data) to get a new one`,
  pvcKept: (pvc: string) =>
    `workload.storage was removed: ${pvc} is no longer mounted but is kept with its data until the LlamaStackDistribution is deleted`,
  // networking (src/children/plan.ts)
  ingressMayBeBlocked: (namespaces: readonly string[], labels: readonly string[]) =>
    `the NetworkPolicy lets only pods of ${peerNamespaces(namespaces, labels)} reach the server, and the ingress controller serving spec.networking.expose connects from its own pods: unless it runs in one of those namespaces (llsd-hook cannot see where it runs), the Ingress gets no answer; add its namespace to spec.networking.allowedFrom.namespaces (ingress-nginx's own manifests install it in namespace ingress-nginx)${labels.length === 0 ? "" : ", or give that namespace one of those label keys"}`,
  pdbSkipped: (replicas: number) =>
    `no PodDisruptionBudget is created: with ${replicas} replica(s) it would allow no disruption and block node drains; raise replicas or relax the budget`,

  // bounds (src/api/bounds.ts) and sizes (src/api/budget.ts)
  tooDeep: (max: number) =>
    `is nested more than ${max} levels deep; flatten it (llsd-hook refuses deeper values so that validation cannot overflow)`,
  tooWide: (count: number, max: number) =>
    `has ${count} entries, more than the ${max} llsd-hook accepts in one object or list; shorten it`,
  tooMany: (max: number) =>
    `holds more than ${max} values in all; shorten it (large model metadata or settings are the usual cause)`,
  forbiddenKey: (key: string) => `${key} cannot be used as a key; rename or remove it`,
  // YAML a user controls, read within bounds (src/config/bounded-yaml.ts)
  relatedYaml: (kind: string, name: string, key: string, detail: string) =>
    `${kind} ${name}'s ${key} ${detail}`,
  overrideNotChecked: (configMap: string, key: string, detail: string) =>
    `ConfigMap ${configMap}'s ${key} was not checked for the server's TLS settings: it ${detail}`,
  yamlTooLarge: (bytes: number, max: number) =>
    `is ${bytes} bytes, more than the ${max} llsd-hook reads; shorten it`,
  yamlTooManyNodes: (max: number) =>
    `holds more than ${max} YAML nodes (scalars, aliases and collections); shorten it`,
  yamlTooDeep: (max: number, line: number) =>
    `is nested more than ${max} levels deep (line ${line}); flatten it`,
  yamlTooWide: (count: number, max: number, line: number) =>
    `has a mapping or list of ${count} entries (line ${line}), more than the ${max} llsd-hook accepts in one; shorten it`,
  yamlDuplicateKey: (key: string, line: number) =>
    `repeats the key ${key.length > 64 ? `${key.slice(0, 64)}…` : key} in one mapping (line ${line}); keep one`,
  yamlTooManyAliases: (max: number) =>
    `expands its aliases more than ${max} times; write the values out, or use fewer aliases`,
  yamlNotJson: (type: string, path: readonly (string | number)[]) =>
    `holds a YAML ${type} at ${path.length === 0 ? "the top" : formatPath(path)}, which the server does not read as the text it looks like; quote it to make it a string`,
  childTooLarge: (child: string, kib: number, budget: number, parts: string) =>
    `${child} would take ${kib} KiB as JSON, and Metacontroller copies every child into an annotation that Kubernetes caps at 256 KiB per object (llsd-hook keeps each child under ${budget} KiB); largest parts: ${parts}; shrink them, or move a large config to spec.overrideConfig`,
  // pod-spec rules of the API server (src/children/pod-rules.ts)
  envNameWithEquals: () =>
    'contains "=", which the API server refuses in an environment variable name; rename it',
  existsTolerationWithValue: () =>
    "must be empty when operator is Exists (an Exists toleration matches every value of its key); remove value, or use operator Equal",
  maxSkewBelowOne: (value: number) =>
    `is ${value}; the API server requires at least 1 (the most the pod counts of two domains may differ)`,
  negativeQuantity: (value: string) =>
    `is ${value}; the API server refuses a negative resource quantity; make it positive`,
  requestAboveLimit: (resource: string, request: string, limit: string) =>
    `${resource} request ${request} is above its limit ${limit}, which the API server refuses; lower the request or raise the limit`,
  unknownResourceName: (name: string) =>
    `${name} is not a resource the API server knows: use cpu, memory, ephemeral-storage, hugepages-<size>, or a domain-qualified name such as nvidia.com/gpu`,
  notALabelValue: (key: string) =>
    `the value of ${key} is not a label value (at most 63 characters: letters, digits, -, _ and ., beginning and ending with a letter or digit), which the API server refuses; shorten or fix it`,
  noNodeSelectorTerms: () =>
    "needs at least one term, which the API server requires; add a term, or remove requiredDuringSchedulingIgnoredDuringExecution",
  operatorNeedsValues: (op: string) =>
    `must list at least one value with operator ${op}, which the API server requires; add values, or use Exists`,
  operatorTakesNoValues: (op: string) =>
    `must be empty with operator ${op}, which the API server requires; remove values, or use In`,
  operatorTakesOneInteger: (op: string) =>
    `must be one integer with operator ${op}, which the API server requires; give exactly one`,
  undeclaredVolume: (name: string, volumes: readonly string[]) =>
    `${name} is no volume of the pod (it has ${list(volumes)}); add it to spec.workload.overrides.volumes, or mount one of those`,
  duplicateVolume: (name: string) =>
    `volume name ${name} is used twice; give every volume its own name`,
  duplicateMountPath: (path: string) =>
    `mountPath ${path} is used twice; mount each volume at its own path`,
  duplicateEnv: (name: string) => `environment variable ${name} is set twice; set it once`,

  // keeping what runs (src/children/keep.ts); the whole text of a 409
  cannotKeep: (child: string, why: string, situation: string, fix: string) =>
    `${child} ${why}, so llsd-hook cannot return it as it was applied, and leaving it out would delete it. ${situation} Nothing was changed. ${fix}`,
  adoptedChild: () =>
    "Metacontroller counts it among this LlamaStackDistribution's children (it carries the resource's controller-uid label), so the resource is not updated until the label is removed.",
  keepBecauseInvalid: (firstProblem: string) =>
    `The spec cannot be used yet (${firstProblem}), so every running child must be kept as applied.`,
  keepBecauseRollout: () =>
    "A rollout is in progress and the running pods may still mount this ConfigMap.",
  keepBecauseStorageRemoved: () =>
    "spec.workload.storage was removed, and the claim is kept with its data until the LlamaStackDistribution is deleted.",
  fixForeignChild: () =>
    "If the object is not llsd-hook's, remove its controller-uid label (or delete it) so that Metacontroller stops treating it as a child.",
  fixUnrecordedChild: (manager: string) =>
    `If Metacontroller applies server-side with a field manager other than ${manager}, set the hook's SSA_FIELD_MANAGER to its --apply-strategy-ssa-field-manager; otherwise fix the spec so that nothing needs keeping, or delete that object so that llsd-hook creates it again.`,
  // why a child cannot be kept (src/children/keep.ts); the subject is the child
  notAChildType: (kind: string) =>
    `is not a child type llsd-hook manages (${kind} of another apiVersion, or another kind)`,
  notInParentNamespace: (namespace: string) =>
    `is not in the LlamaStackDistribution's namespace ${namespace}`,
  notNamedLikeChild: (llsd: string) =>
    `is not named like a child of LlamaStackDistribution ${llsd}`,
  annotationThat: (annotation: string, what: string) => `has a ${annotation} annotation ${what}`,
  notJson: () => "that is not JSON",
  withProtoKey: () => "with a __proto__ key, which llsd-hook never writes",
  nestedTooDeep: () => "nested deeper than anything llsd-hook writes",
  notAKubernetesObject: () => "that is not a Kubernetes object",
  noAnnotation: (annotation: string) => `has no ${annotation} annotation`,
  describingAnotherObject: () => "describing another object (not this kind, namespace and name)",
  unrecordedChild: (manager: string, managers: readonly string[], annotation: string) =>
    `has neither a managedFields Apply entry of field manager ${manager} (Apply entries found: ${managers.length === 0 ? "none" : list(managers)}) nor a ${annotation} annotation`,
  managedFieldsTooLarge: (manager: string, max: number) =>
    `has a managedFields Apply entry of field manager ${manager} with more than ${max} fields, or too many list items to match, more than anything llsd-hook applies`,
  fixUnreadableChild: () =>
    "Fix the spec so that nothing needs keeping, or delete that object so that llsd-hook creates it again.",

  // secrets and env
  envVarCollision: (name: string, other: string) =>
    `the environment variable ${name} is also generated for ${other}; choose different provider ids`,
  envVarUnset: (name: string, configPath: string) =>
    `the config refers to \${env.${name}} (at ${configPath}) without a default, so Llama Stack would stop at startup; set ${name} in spec.workload.overrides.env`,
  secretNotFound: (name: string, namespace: string) =>
    `Secret ${name} not found in namespace ${namespace}; create it or fix the name`,
  secretKeyNotFound: (name: string, key: string, namespace: string) =>
    `Secret ${name} in namespace ${namespace} has no key ${key}; add the key or fix the reference`,
  configMapNotFound: (name: string, namespace: string) =>
    `ConfigMap ${name} not found in namespace ${namespace}; create it or fix the name`,
  configMapKeyNotFound: (name: string, key: string, namespace: string) =>
    `ConfigMap ${name} in namespace ${namespace} has no key ${key}; add it`,
  // status conditions (src/compute-status.ts)
  specValid: () => "The spec is valid.",
  referencesFound: () => "Every referenced Secret and ConfigMap exists with the keys used.",
  referencesNotChecked: () => "Not checked: the spec is invalid.",
  configNotGenerated: () => "Not generated: the spec is invalid.",
  baseConfigNotRead: () =>
    "Not generated: the base config (spec.distribution.baseConfig) could not be read; SecretsResolved says what is missing.",
  usingOverride: () => "Using spec.overrideConfig as is.",
  generated: (configMap: string | undefined) => `Generated ${configMap ?? "the config"}.`,
  deploymentMatches: () => "The Deployment matches the spec.",
  nothingCreated: () => "Nothing is created until the problems above are fixed.",
  keptLastApplied: () =>
    "The running children are kept as last applied until the problems above are fixed.",
  noDeployment: () => "The Deployment does not exist yet.",
  replicasAvailable: (n: number) => `${n} replica(s) available.`,
  noReplicaAvailable: () => "No replica is available yet.",
  runningCurrentSpec: (warnings: readonly string[]) =>
    `The server is running the current spec.${warnings.length === 0 ? "" : ` Warning conditions: ${list(warnings)}.`}`,
  notReady: (type: string, status: string, message: string) => `${type} is ${status}: ${message}`,
  /** One line for Ready and Stalled: the condition that holds the detail, its first problem, how many more. */
  failedSummary: (type: string, reason: string, path: string, more: number) =>
    `${type} is False: ${reason} at ${path}${more === 0 ? "" : ` (and ${more} more)`}`,
  rollingOut: () => "The Deployment is rolling out.",
  creatingDeployment: () => "Creating the Deployment.",
  truncated: () => "\n… (truncated)",
  seeStatus: () => "see the status",
  recordedFromLabel: (label: string) => `the Deployment's ${label} label`,
  recordedFromImage: (image: string) => `the running image ${image}`,

  // conversion between llamastack.io/v1alpha1 and v1alpha2 (src/convert/)
  convertNotAnObject: () =>
    "must be a LlamaStackDistribution object (a JSON object with apiVersion, kind, metadata and spec)",
  convertWrongVersion: (found: string, expected: string) =>
    `is ${found}; this conversion takes ${expected} (llsd-hook converts between llamastack.io/v1alpha1 and llamastack.io/v1alpha2)`,
  v1alpha2SpecUnderV1alpha1: (fields: readonly string[]) =>
    `is llamastack.io/v1alpha1, but the spec is written for llamastack.io/v1alpha2: ${list(fields.map((f) => `spec.${f}`))} ${fields.length === 1 ? "is a field" : "are fields"} of v1alpha2, and a v1alpha1 spec has its distribution under spec.server; write apiVersion: llamastack.io/v1alpha2`,
  convertWrongKind: (found: string) =>
    `is ${found}; llsd-hook converts only LlamaStackDistribution objects`,
  convertWrongType: (expected: string, found: string, apiVersion: string) =>
    `must be ${expected}, not ${found}; correct it through ${apiVersion} (kubectl edit) so that the object converts`,
  convertBadAnnotation: (why: string) =>
    `is not a restore list written by llsd-hook (${why}); remove the annotation (the fields it kept are then lost) so that the object converts`,
  convertAnnotationsTooLarge: (
    sizes: { kib: number; otherKib: number },
    from: string,
    to: string,
    key: string,
    parts: string,
  ) =>
    `the fields ${to} has no place for take ${sizes.kib} KiB in the annotation ${key}, and with the object's other annotations (${sizes.otherKib} KiB) that passes the 256 KiB Kubernetes allows for all annotations of one object; largest: ${parts}. Read the object as ${from}, or shrink those fields`,
  convertStaleRestore: (count: number, key: string) =>
    `${count} field(s) kept in the annotation ${key} were not restored, because the object changed there since they were kept; the newer values are used`,
  convertTooManyObjects: (count: number, max: number) =>
    `the request has ${count} objects (request.objects), more than the ${max} llsd-hook converts in one review; the API server sends one object, or one page of a list: list llamastack.io/v1alpha1 in pages (kubectl's --chunk-size, 500 by default; limit in the API)`,
  convertReviewInvalid: (why: string) =>
    `the request ${why}; the API server sends apiextensions.k8s.io/v1 ConversionReview requests with request.uid, request.desiredAPIVersion and request.objects`,
  convertObjectFailed: (index: number, name: string, from: string, to: string, problems: string) =>
    `objects[${index}] (${name}) cannot be converted from ${from} to ${to}: ${problems}`,

  crossNamespaceConfigMap: (namespace: string, name: string, own: string) =>
    `the llamastack.io/v1alpha1 object ran the config of ConfigMap ${namespace}/${name} (spec.server.userConfig), and llsd-hook reads ConfigMaps only from the resource's own namespace${own === "" ? "" : ` (${own})`}; copy the ConfigMap there and set spec.overrideConfig.configMapName: ${name}`,
  caBundleNotConverted: (key: string) =>
    `the llamastack.io/v1alpha1 field spec.server.tlsConfig.caBundle is kept in the annotation ${key} but not applied: spec.trust.caBundle takes exactly one key of a ConfigMap in the resource's own namespace, and this bundle names several keys, or another namespace; put the certificates together in one key of a ConfigMap here and set spec.trust.caBundle, or remove the annotation to drop it`,
  plannedFieldNotApplied: (v1alpha1Field: string, planned: string, key: string) =>
    `the llamastack.io/v1alpha1 field ${v1alpha1Field} is kept in the annotation ${key} but not applied: llsd-hook has no field for it yet (${planned} is planned); meanwhile set the equivalent under spec.workload.overrides, or remove the annotation to drop it`,

  // monitoring (src/children/monitoring.ts)
  metricsEndpointUnavailable: (release: string) =>
    `${product(release)} serves no Prometheus metrics endpoint (OGX added one in 1.2.0; this release only pushes OpenTelemetry); remove metrics and push with spec.monitoring.otlp instead, or set spec.distribution.release to an OGX release`,
  serviceMonitorUnavailable: () =>
    "no ServiceMonitor is created: the CompositeController does not declare ServiceMonitor children; install the component manifests/components/servicemonitor (it needs the Prometheus Operator's CRDs), or remove serviceMonitor",
  monitoringEnv: (name: string) =>
    `${name} is set by llsd-hook for spec.monitoring and cannot be overridden; remove it`,
  reservedChildLabel: (key: string) => `label ${key} is set by llsd-hook on every child; remove it`,

  // trust (src/config/trust.ts)
  caBundleOwnTls: (id: string) =>
    `sets provider ${id}'s TLS itself, so spec.trust.caBundle is not applied to it; to trust the bundle there too, set verify: \${env.${TRUST.env}} together with min_version: TLSv1.2 (a verify path alone replaces the system trust store), or remove network.tls`,
  caBundleOverrideUnused: (configMap: string) =>
    `ConfigMap ${configMap}'s config.yaml (spec.overrideConfig) never refers to \${env.${TRUST.env}}, so no provider uses the bundle: the hook mounts it but cannot edit that config; in each provider that calls a service of your CA, set network.tls: { verify: \${env.${TRUST.env}}, min_version: TLSv1.2 }, or remove spec.trust`,
  caBundleUnreachable: (providers: readonly string[]) =>
    `${list(providers)} cannot take a CA bundle from their config (they have no network settings): they trust only the image's system store, which is enough for public services; a service of theirs behind your private CA needs plain HTTP inside the cluster, a certificate that store trusts, or an image whose system store has your CA`,
  // auth (src/config/auth.ts, src/children/overrides.ts)
  authProviderUnavailable: (type: string, release: string, types: readonly string[]) =>
    `${product(release)} has no ${type} authentication provider (it has ${types.length === 0 ? "none" : list(types)}); use the other kind of spec.auth, or another release`,
  kubeRootCaNotFound: (name: string, namespace: string) =>
    `ConfigMap ${name}, the API server's CA that kube-controller-manager publishes in every namespace, is not in namespace ${namespace}; create it with the CA under key ca.crt, or name another ConfigMap in spec.auth.kubernetes.caBundle`,

  // pod fields (issue 34): more pod-spec rules of the API server (src/children/pod-rules.ts)
  bidirectionalPropagation: () =>
    "is Bidirectional, which the API server allows only in a privileged container, and the server's container is not privileged; use HostToContainer or None",
  unknownPropagation: (value: string) =>
    `is ${value}, which the API server refuses; use None or HostToContainer`,
  volumeSources: (sources: readonly string[]) =>
    sources.length === 0
      ? "names no volume source (emptyDir, configMap, secret, persistentVolumeClaim, ...), which the API server requires; add one"
      : `has ${sources.length} volume sources (${list(sources)}), and the API server takes exactly one; keep one, and make the others volumes of their own`,
  envValueAndValueFrom: () =>
    "sets both value and valueFrom, which the API server refuses; keep one",
  envValueFromSources: (sources: readonly string[]) =>
    sources.length === 0
      ? "names no source (secretKeyRef, configMapKeyRef, fieldRef or resourceFieldRef), which the API server requires; add one, or set value instead"
      : `names ${sources.length} sources (${list(sources)}), and the API server takes exactly one; keep one`,
  tolerationEffect: (effect: string) =>
    `is ${effect}, which the API server refuses; use NoSchedule, PreferNoSchedule or NoExecute, or leave it empty to match every effect`,
  tolerationSecondsEffect: () =>
    "must be NoExecute when tolerationSeconds is set, which the API server requires; set effect: NoExecute, or remove tolerationSeconds",
  seccompAnnotation: (key: string, profile: string) =>
    `annotation ${key} names a seccomp profile the API server refuses for this pod, whose profile is ${profile} (set by llsd-hook in its securityContext); remove the annotation (seccomp annotations are deprecated: the securityContext sets the profile)`,
  appArmorAnnotationContainer: (key: string, container: string) =>
    `annotation ${key} names no container of the pod (its one container is ${container}), which the API server refuses; name ${container}, or remove the annotation`,
  appArmorAnnotationProfile: (key: string) =>
    `annotation ${key} is no AppArmor profile the API server reads (runtime/default, localhost/<profile> or empty); fix or remove it`,
  // the confused-deputy rule (src/children/pod-policy.ts, docs/adr/0019-confused-deputy-rule.md)
  podVolume: (name: string) => `volume ${name}`,
  podAnnotation: (key: string) => `annotation ${key}`,
  podContainerField: (container: string, field: string) => `container ${container}'s ${field}`,
  podField: (field: string) => `the pod's ${field}`,
  podVolumeType: (type: string) => `uses volume type ${type}`,
  podIsTrue: () => "is true",
  podIsValue: (value: string) => `is ${value}`,
  podNotTrue: () => "is not true",
  podNotFalse: () => "is not false",
  podAddsCapability: (capability: string) => `adds ${capability}`,
  podDropsNotAll: () => "does not drop ALL",
  podFixVolume: () =>
    "mount the storage through a PersistentVolumeClaim instead (bound to a PersistentVolume with this source)",
  podFixRemove: () => "remove it",
  podFieldRefused: (field: string, level: string, check: string, fix: string, name: string) =>
    `${field}, which PodSecurity's ${level} level forbids (${check}): llsd-hook writes pods with Metacontroller's rights, so it never gives one this (the confused-deputy rule); ${fix}, or have whoever runs the hook allow ${name} in ALLOWED_POD_FIELDS`,
  podFieldWarned: (field: string, check: string, fix: string, name: string) =>
    `${field}, which PodSecurity's restricted level forbids (${check}): a namespace that enforces it refuses the pods, and from the next release llsd-hook refuses it too (the confused-deputy rule); ${fix}, or have whoever runs the hook allow ${name} in ALLOWED_POD_FIELDS`,
  // a Deployment whose ReplicaSet cannot create pods (src/compute-status.ts)
  replicaFailurePodSecurity: (deployment: string, level: string) =>
    `Deployment ${deployment} cannot create its pods: the namespace enforces Pod Security "${level}", which refuses them. Remove the fields a RestrictedPodField condition names (kubectl get events shows the API server's refusal), or run the server in a namespace whose level admits them.`,
  replicaFailureQuota: (deployment: string, quota: string) =>
    `Deployment ${deployment} cannot create its pods: they exceed ResourceQuota ${quota}. Lower spec.workload.resources or spec.workload.replicas, or raise the quota (kubectl describe resourcequota ${quota}).`,
  replicaFailureServiceAccount: (deployment: string, account: string) =>
    `Deployment ${deployment} cannot create its pods: ServiceAccount ${account}, which spec.workload.overrides.serviceAccountName names, does not exist in this namespace. Create it, or remove the override so the pods run as the ServiceAccount the hook creates.`,
  replicaFailureOwnServiceAccount: (deployment: string, account: string) =>
    `Deployment ${deployment} cannot create its pods: its ServiceAccount ${account} does not exist yet. The hook returns it beside the Deployment; if it stays missing, Metacontroller's events on this LlamaStackDistribution say why (kubectl describe).`,
  replicaFailure: (deployment: string, reason: string) =>
    `Deployment ${deployment} cannot create its pods (ReplicaFailure, ${reason}); kubectl get events --field-selector involvedObject.kind=ReplicaSet says why.`,
  // YAML a user gives (src/config/bounded-yaml.ts, src/cli/render.ts): said without the text it holds,
  // which may be a Secret's value
  yamlUnresolvedAlias: (line: number) =>
    `has an alias at line ${line} whose anchor is not set before it (an anchor &name must come before its alias *name); set the anchor first, or quote the value if it is text that starts with *`,
  yamlUnknownTag: () =>
    "a tag (a word after !) that is none of YAML's own, so the value it marks would be lost; quote the value if it is text that starts with !",
  yamlCollectionTag: () => "a tag for another kind of collection than the one it marks; remove it",
  yamlBadEscape: () =>
    "an escape sequence YAML does not know, in a double-quoted string; write \\\\ for a backslash, or use single quotes",
  yamlDirective: () => "a % directive llsd-hook does not read; remove it",
  yamlScalarStart: () =>
    "a value that starts with a character YAML reserves (such as @ or `); quote it",
  yamlPropertyOrder: () => "an anchor or tag before the - or : it belongs after; move it after",
  yamlUnexpected: () =>
    "text YAML does not expect here; check the indentation, the quotes and the brackets",
  unknownAllowedPodFields: (unknown: readonly string[], known: readonly string[]) =>
    `ALLOWED_POD_FIELDS names ${list(unknown)}, which ${unknown.length === 1 ? "is" : "are"} neither a PodSecurity check nor a volume type; use ${list(known)}`,

  // the admission webhook (src/admit.ts, docs/operations/admission.md)
  admissionReviewInvalid: (why: string) =>
    `the request ${why}; the API server sends admission.k8s.io/v1 AdmissionReview requests with request.uid, request.resource, request.operation and request.object`,
  admissionNotOurs: (resource: string) =>
    `llsd-hook checks llamastackdistributions.llamastack.io only, and was sent ${resource}: admitted unchecked; narrow the rules of the ValidatingWebhookConfiguration that calls POST /validate (manifests/components/admission)`,
  admissionWrongVersion: (found: string) =>
    `is ${found}; llsd-hook checks llamastack.io/v1alpha2 LlamaStackDistributions (and llamastack.io/v1alpha1 ones, converted first)`,
} as const;
