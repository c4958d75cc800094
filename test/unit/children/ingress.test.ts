// Table tests for the Ingress of networking.expose.
import { expect } from "chai";
import { buildIngress, type IngressInput } from "../../../src/children/ingress.js";

const owner = { llsd: "llama", namespace: "default" };
const paths = [
  {
    path: "/",
    pathType: "Prefix",
    backend: { service: { name: "llama-service", port: { name: "http" } } },
  },
];

describe("buildIngress", () => {
  const rows: [input: Omit<IngressInput, "llsd" | "namespace">, spec: unknown, why: string][] = [
    [{ backendTls: false }, { rules: [{ http: { paths } }] }, "no hostname: every host"],
    [
      { backendTls: false, hostname: "llama.example.com" },
      { rules: [{ host: "llama.example.com", http: { paths } }] },
      "one host",
    ],
    [
      { backendTls: false, hostname: "llama.example.com", tlsSecretName: "edge" },
      {
        rules: [{ host: "llama.example.com", http: { paths } }],
        tls: [{ hosts: ["llama.example.com"], secretName: "edge" }],
      },
      "TLS at the edge for that host",
    ],
    [
      { backendTls: false, tlsSecretName: "edge" },
      { rules: [{ http: { paths } }] },
      "TLS without a hostname is left out (the schema asks for one)",
    ],
    [
      { backendTls: false, ingressClassName: "nginx" },
      { ingressClassName: "nginx", rules: [{ http: { paths } }] },
      "a class",
    ],
    [
      {
        backendTls: false,
        hostname: undefined,
        ingressClassName: undefined,
        tlsSecretName: undefined,
      },
      { rules: [{ http: { paths } }] },
      "explicit undefined fields are left out",
    ],
  ];
  for (const [input, spec, why] of rows)
    it(why, () => expect(buildIngress({ ...owner, ...input }).spec).to.deep.equal(spec));

  const annotations: [backendTls: boolean, annotations: unknown][] = [
    [false, undefined],
    [true, { "nginx.ingress.kubernetes.io/backend-protocol": "HTTPS" }],
  ];
  for (const [backendTls, expected] of annotations)
    it(`server TLS ${backendTls ? "on" : "off"}: backend-protocol annotation ${expected === undefined ? "absent" : "set"}`, () => {
      const ingress = buildIngress({ ...owner, backendTls });
      expect(ingress.metadata.name).to.equal("llama-ingress");
      expect(ingress.metadata.annotations).to.deep.equal(expected);
      expect("annotations" in ingress.metadata).to.equal(expected !== undefined);
    });
});
