// What the CLI's startup snapshot renders at build time (src/cli/snapshot.ts):
// resources of the usual shapes, written the way people write them (block
// style), so that the functions a render runs — the YAML reader and writer,
// the schemas, generation, every child builder, the status, the errors of an
// invalid spec — are compiled, and zod's fast paths built, before the heap is
// saved. Whatever the warm-up does not reach is compiled at each start.
const resource = (spec: string) => `apiVersion: llamastack.io/v1alpha2
kind: LlamaStackDistribution
metadata:
  name: warm-up
  namespace: default
spec:
${spec}`;

export const WARM_UPS: readonly string[] = [
  // Flow style, one provider, the default release.
  resource(`  distribution: { name: starter }
  providers:
    inference: [{ provider: vllm, endpoint: "http://vllm:8000/v1" }]
  resources:
    models: [{ name: meta-llama/Llama-3.2-3B-Instruct }]
`),
  // Two providers with a key, settings and models; postgres storage; a disabled API; TLS.
  resource(`  distribution:
    name: starter
  providers:
    inference:
      - id: vllm
        provider: vllm
        endpoint: http://vllm.models.svc:8000/v1
        apiKey:
          secretKeyRef:
            name: creds
            key: token
        settings:
          max_tokens: 4096
      - id: ollama
        provider: ollama
        endpoint: http://ollama.models.svc:11434
  resources:
    models:
      - name: meta-llama/Llama-3.2-3B-Instruct
        provider: vllm
      - name: "llama3.2:3b"
        provider: ollama
  storage:
    kv:
      type: postgres
      secretName: pg
    sql:
      type: postgres
      secretName: pg
  disabled:
    - batches
  networking:
    port: 8443
    tls:
      enabled: true
      secretName: llama-tls
  trust:
    caBundle:
      configMapName: corporate-ca
`),
  // An older release.
  resource(`  distribution:
    name: starter
    release: 0.7.3
  providers:
    inference:
      - provider: vllm
        endpoint: http://vllm:8000/v1
`),
  // A spec that fails: the status and error paths.
  resource(`  distribution:
    name: starter
    release: 0.7.3
  providers:
    inference:
      - provider: vllm
        endpoint: http://vllm:8000/v1
  disabled:
    - inference
`),
];
