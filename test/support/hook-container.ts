// The hook's container in its Deployment (manifests/hook/deployment.yaml, or the
// same object rendered by kustomize or the chart), typed for what its readers
// look at: the environment and the memory limit. The install tests and the
// benches (which run the server as the Deployment configures it) read it.

/** The fields of the hook's container the tests and benches read. */
export interface HookContainer {
  env: { name: string; value: string }[];
  resources: { limits: { memory: string } };
}

/** The first container of `deployment` (the hook's Deployment as parsed YAML); an error naming `source` when it has none. */
export function hookContainerOf(deployment: unknown, source: string): HookContainer {
  const container = (
    deployment as { spec?: { template?: { spec?: { containers?: HookContainer[] } } } } | undefined
  )?.spec?.template?.spec?.containers?.[0];
  if (container === undefined) throw new Error(`${source}: the hook's Deployment has no container`);
  return container;
}
