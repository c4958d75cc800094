// spec.workload shapes the CRD's schema admits: each row one the API server
// refuses in a Deployment, with the hook's problem for it, and one workload
// using the same fields as the API server accepts them. Read by
// test/unit/children/pod-rules.test.ts (the hook) and
// test/k8s/pod-rules.test.ts (a real kube-apiserver's dry run).
export const POD_RULE_ROWS: { name: string; workload: Record<string, unknown>; problem: string }[] =
  [
    {
      name: "an env name with =",
      workload: { overrides: { env: [{ name: "A=B", value: "x" }] } },
      problem:
        'spec.workload.overrides.env[0].name: contains "=", which the API server refuses in an environment variable name; rename it',
    },
    {
      name: "a mount of a volume the pod does not declare",
      workload: { overrides: { volumeMounts: [{ name: "cache", mountPath: "/cache" }] } },
      problem:
        "spec.workload.overrides.volumeMounts[0].name: cache is no volume of the pod (it has config, data, ogx-tmp); add it to spec.workload.overrides.volumes, or mount one of those",
    },
    {
      name: "an Exists toleration with a value",
      workload: {
        overrides: { tolerations: [{ key: "gpu", operator: "Exists", value: "true" }] },
      },
      problem:
        "spec.workload.overrides.tolerations[0].value: must be empty when operator is Exists (an Exists toleration matches every value of its key); remove value, or use operator Equal",
    },
    {
      name: "a negative memory quantity",
      workload: { resources: { limits: { memory: "-1Gi" } } },
      problem:
        "spec.workload.resources.limits.memory: is -1Gi; the API server refuses a negative resource quantity; make it positive",
    },
    {
      name: "a CPU request above its limit",
      workload: { resources: { requests: { cpu: "2" }, limits: { cpu: "1500m" } } },
      problem:
        "spec.workload.resources.requests.cpu: cpu request 2 is above its limit 1500m, which the API server refuses; lower the request or raise the limit",
    },
    {
      name: "a resource name that is neither standard nor qualified",
      workload: { resources: { limits: { gpu: "1" } } },
      problem:
        "spec.workload.resources.limits.gpu: gpu is not a resource the API server knows: use cpu, memory, ephemeral-storage, hugepages-<size>, or a domain-qualified name such as nvidia.com/gpu",
    },
    {
      name: "a node selector value over 63 characters",
      workload: { overrides: { nodeSelector: { pool: "a".repeat(64) } } },
      problem:
        "spec.workload.overrides.nodeSelector: the value of pool is not a label value (at most 63 characters: letters, digits, -, _ and ., beginning and ending with a letter or digit), which the API server refuses; shorten or fix it",
    },
    {
      name: "a pod label value that is no label value",
      workload: { overrides: { podLabels: { team: "a b" } } },
      problem:
        "spec.workload.overrides.podLabels: the value of team is not a label value (at most 63 characters: letters, digits, -, _ and ., beginning and ending with a letter or digit), which the API server refuses; shorten or fix it",
    },
    {
      name: "required node affinity without terms",
      workload: {
        overrides: {
          affinity: {
            nodeAffinity: {
              requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [] },
            },
          },
        },
      },
      problem:
        "spec.workload.overrides.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms: needs at least one term, which the API server requires; add a term, or remove requiredDuringSchedulingIgnoredDuringExecution",
    },
    {
      name: "a node match expression In without values",
      workload: {
        overrides: {
          affinity: {
            nodeAffinity: {
              requiredDuringSchedulingIgnoredDuringExecution: {
                nodeSelectorTerms: [{ matchExpressions: [{ key: "zone", operator: "In" }] }],
              },
            },
          },
        },
      },
      problem:
        "spec.workload.overrides.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].values: must list at least one value with operator In, which the API server requires; add values, or use Exists",
    },
    {
      name: "a pod anti-affinity expression Exists with values",
      workload: {
        overrides: {
          affinity: {
            podAntiAffinity: {
              preferredDuringSchedulingIgnoredDuringExecution: [
                {
                  weight: 1,
                  podAffinityTerm: {
                    topologyKey: "zone",
                    labelSelector: {
                      matchExpressions: [{ key: "app", operator: "Exists", values: ["x"] }],
                    },
                  },
                },
              ],
            },
          },
        },
      },
      problem:
        "spec.workload.overrides.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm.labelSelector.matchExpressions[0].values: must be empty with operator Exists, which the API server requires; remove values, or use In",
    },
    {
      name: "maxSkew 0",
      workload: {
        topologySpreadConstraints: [
          { maxSkew: 0, topologyKey: "zone", whenUnsatisfiable: "DoNotSchedule" },
        ],
      },
      problem:
        "spec.workload.topologySpreadConstraints[0].maxSkew: is 0; the API server requires at least 1 (the most the pod counts of two domains may differ)",
    },
    // Issue 34: five more shapes that reported DeploymentUpdated=True, and the AppArmor annotation's.
    {
      name: "a Bidirectional mount propagation in the unprivileged container",
      workload: {
        overrides: {
          volumes: [{ name: "cache", emptyDir: {} }],
          volumeMounts: [{ name: "cache", mountPath: "/cache", mountPropagation: "Bidirectional" }],
        },
      },
      problem:
        "spec.workload.overrides.volumeMounts[0].mountPropagation: is Bidirectional, which the API server allows only in a privileged container, and the server's container is not privileged; use HostToContainer or None",
    },
    {
      name: "a seccomp profile annotation other than the pod's",
      workload: {
        overrides: {
          podAnnotations: { "seccomp.security.alpha.kubernetes.io/pod": "localhost/profile.json" },
        },
      },
      problem:
        "spec.workload.overrides.podAnnotations: annotation seccomp.security.alpha.kubernetes.io/pod names a seccomp profile the API server refuses for this pod, whose profile is RuntimeDefault (set by llsd-hook in its securityContext); remove the annotation (seccomp annotations are deprecated: the securityContext sets the profile)",
    },
    {
      name: "a container seccomp annotation that names no profile",
      workload: {
        overrides: {
          podAnnotations: {
            "container.seccomp.security.alpha.kubernetes.io/llama-stack": "strict",
          },
        },
      },
      problem:
        "spec.workload.overrides.podAnnotations: annotation container.seccomp.security.alpha.kubernetes.io/llama-stack names a seccomp profile the API server refuses for this pod, whose profile is RuntimeDefault (set by llsd-hook in its securityContext); remove the annotation (seccomp annotations are deprecated: the securityContext sets the profile)",
    },
    {
      name: "a volume with two sources",
      workload: {
        overrides: { volumes: [{ name: "cache", emptyDir: {}, configMap: { name: "c" } }] },
      },
      problem:
        "spec.workload.overrides.volumes[0]: has 2 volume sources (configMap, emptyDir), and the API server takes exactly one; keep one, and make the others volumes of their own",
    },
    {
      name: "an env var with value and valueFrom",
      workload: {
        overrides: {
          env: [
            { name: "POD", value: "x", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } },
          ],
        },
      },
      problem:
        "spec.workload.overrides.env[0].valueFrom: sets both value and valueFrom, which the API server refuses; keep one",
    },
    {
      name: "an env var whose valueFrom has two sources",
      workload: {
        overrides: {
          env: [
            {
              name: "POD",
              valueFrom: {
                fieldRef: { fieldPath: "metadata.name" },
                resourceFieldRef: { resource: "limits.cpu" },
              },
            },
          ],
        },
      },
      problem:
        "spec.workload.overrides.env[0].valueFrom: names 2 sources (fieldRef, resourceFieldRef), and the API server takes exactly one; keep one",
    },
    {
      name: "a toleration effect the API server does not know",
      workload: {
        overrides: { tolerations: [{ key: "gpu", operator: "Exists", effect: "NoRun" }] },
      },
      problem:
        "spec.workload.overrides.tolerations[0].effect: is NoRun, which the API server refuses; use NoSchedule, PreferNoSchedule or NoExecute, or leave it empty to match every effect",
    },
    {
      name: "tolerationSeconds with an effect other than NoExecute",
      workload: {
        overrides: {
          tolerations: [
            { key: "gpu", operator: "Exists", effect: "NoSchedule", tolerationSeconds: 60 },
          ],
        },
      },
      problem:
        "spec.workload.overrides.tolerations[0].effect: must be NoExecute when tolerationSeconds is set, which the API server requires; set effect: NoExecute, or remove tolerationSeconds",
    },
    {
      name: "an AppArmor annotation naming no container of the pod",
      workload: {
        overrides: {
          podAnnotations: {
            "container.apparmor.security.beta.kubernetes.io/sidecar": "runtime/default",
          },
        },
      },
      problem:
        "spec.workload.overrides.podAnnotations: annotation container.apparmor.security.beta.kubernetes.io/sidecar names no container of the pod (its one container is llama-stack), which the API server refuses; name llama-stack, or remove the annotation",
    },
  ];

export const ACCEPTED_WORKLOAD: Record<string, unknown> = {
  overrides: {
    env: [
      { name: "A_B", value: "x" },
      { name: "POD", value: "", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } },
    ],
    volumes: [{ name: "cache", emptyDir: {} }],
    volumeMounts: [
      { name: "cache", mountPath: "/cache", mountPropagation: "HostToContainer" },
      { name: "config", mountPath: "/more-config", readOnly: true },
    ],
    tolerations: [
      { key: "gpu", operator: "Exists" },
      {
        key: "node.kubernetes.io/unreachable",
        operator: "Exists",
        effect: "NoExecute",
        tolerationSeconds: 30,
      },
    ],
    podAnnotations: {
      "seccomp.security.alpha.kubernetes.io/pod": "runtime/default",
      "container.seccomp.security.alpha.kubernetes.io/llama-stack": "runtime/default",
      "container.apparmor.security.beta.kubernetes.io/llama-stack": "runtime/default",
    },
    nodeSelector: { pool: "a".repeat(63), empty: "" },
    podLabels: { team: "ml_infra.v2" },
    affinity: {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [
            {
              matchExpressions: [
                { key: "zone", operator: "In", values: ["a"] },
                { key: "cores", operator: "Gt", values: ["8"] },
                { key: "spot", operator: "DoesNotExist" },
              ],
            },
          ],
        },
      },
    },
  },
  resources: {
    requests: { cpu: "1500m", memory: "1Gi" },
    limits: { cpu: "1.5", memory: "1Gi", "nvidia.com/gpu": "1" },
  },
  topologySpreadConstraints: [
    { maxSkew: 1, topologyKey: "zone", whenUnsatisfiable: "DoNotSchedule" },
  ],
};
