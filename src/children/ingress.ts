// The Ingress `<name>-ingress` of networking.expose (docs/guide/networking.md).
import type { Ingress, HTTPIngressPath } from "kubernetes-types/networking/v1.js";
import { childMetadata, type Child, type Owner } from "./child.js";
import { PORT_NAME, childNames } from "./labels.js";

export interface IngressInput extends Owner {
  /** Without one the rule matches every host. */
  hostname?: string | undefined;
  ingressClassName?: string | undefined;
  /** TLS at the edge; only with a hostname. */
  tlsSecretName?: string | undefined;
  /** The server speaks HTTPS itself. */
  backendTls: boolean;
}

/** The server speaks HTTPS itself: tell ingress-nginx (other controllers ignore the annotation). */
const BACKEND_HTTPS = { "nginx.ingress.kubernetes.io/backend-protocol": "HTTPS" };

export function buildIngress(input: IngressInput): Child<Ingress> {
  const paths: HTTPIngressPath[] = [
    {
      path: "/",
      pathType: "Prefix",
      backend: { service: { name: childNames.service(input.llsd), port: { name: PORT_NAME } } },
    },
  ];
  const { hostname, ingressClassName, tlsSecretName } = input;
  return {
    apiVersion: "networking.k8s.io/v1",
    kind: "Ingress",
    metadata: childMetadata(
      input,
      childNames.ingress(input.llsd),
      input.backendTls ? BACKEND_HTTPS : undefined,
    ),
    spec: {
      ...(ingressClassName === undefined ? {} : { ingressClassName }),
      rules: [{ ...(hostname === undefined ? {} : { host: hostname }), http: { paths } }],
      ...(tlsSecretName === undefined || hostname === undefined
        ? {}
        : { tls: [{ hosts: [hostname], secretName: tlsSecretName }] }),
    },
  };
}
