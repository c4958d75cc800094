// spec.networking: how the server is reached (its port and TLS, an Ingress, a
// NetworkPolicy).
import { z } from "zod";
import { rule, withRules } from "./rules.js";
import { DNS1123_SUBDOMAIN, LABEL_KEY } from "./names.js";

export const DEFAULT_PORT = 8321;

const secretName = z
  .string()
  .min(1)
  .max(253)
  .regex(DNS1123_SUBDOMAIN, "must be a valid Secret name");

type Tls = {
  enabled: boolean;
  secretName?: string | undefined;
  requireClientCertificate?: boolean | undefined;
};

const Tls = withRules(
  z
    .strictObject({
      enabled: z
        .boolean()
        .default(false)
        .describe("Serve HTTPS with the certificate of secretName."),
      secretName: secretName
        .optional()
        .describe(
          "A kubernetes.io/tls Secret (keys tls.crt and tls.key; ca.crt with requireClientCertificate).",
        ),
      requireClientCertificate: z
        .boolean()
        .optional()
        .describe(
          "Require client certificates signed by the Secret's ca.crt (mutual TLS). Probes then check the TCP port only.",
        ),
    })
    .describe("TLS for the server itself."),
  [
    rule<Tls>({
      id: "tls-secret-name-required",
      cel: "!self.enabled || has(self.secretName)",
      message:
        "spec.networking.tls.secretName: required when tls.enabled is true; name a kubernetes.io/tls Secret",
      fieldPath: ".secretName",
      check: (t) => !t.enabled || t.secretName !== undefined,
    }),
    rule<Tls>({
      id: "tls-fields-need-enabled",
      cel: "self.enabled || (!has(self.secretName) && !has(self.requireClientCertificate))",
      message:
        "spec.networking.tls: secretName and requireClientCertificate only apply with enabled: true; set enabled or remove them",
      check: (t) =>
        t.enabled || (t.secretName === undefined && t.requireClientCertificate === undefined),
    }),
  ],
);

type Expose = {
  enabled: boolean;
  hostname?: string | undefined;
  ingressClassName?: string | undefined;
  tlsSecretName?: string | undefined;
};

const Expose = withRules(
  z
    .strictObject({
      enabled: z
        .boolean()
        .default(true)
        .describe("Create the Ingress (default true when expose is set)."),
      hostname: z
        .string()
        .min(1)
        .max(253)
        .regex(
          /^(\*\.)?[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/,
          "must be a DNS hostname",
        )
        .optional()
        .describe("Host the Ingress answers for; without it, every host."),
      ingressClassName: z
        .string()
        .min(1)
        .max(253)
        .regex(DNS1123_SUBDOMAIN, "must be an IngressClass name")
        .optional()
        .describe("IngressClass to use."),
      tlsSecretName: secretName
        .optional()
        .describe("A TLS Secret the Ingress terminates TLS with (needs hostname)."),
    })
    .describe("Expose the server outside the cluster through an Ingress."),
  [
    rule<Expose>({
      id: "expose-tls-needs-hostname",
      cel: "!has(self.tlsSecretName) || has(self.hostname)",
      message:
        "spec.networking.expose.tlsSecretName: needs expose.hostname, the host the certificate is for; add hostname",
      fieldPath: ".tlsSecretName",
      check: (e) => e.tlsSecretName === undefined || e.hostname !== undefined,
    }),
  ],
);

export const AllowedFrom = z
  .strictObject({
    namespaces: z
      .array(
        z
          .string()
          .min(1)
          .max(63)
          .regex(/^(\*|[a-z0-9]([-a-z0-9]*[a-z0-9])?)$/, 'must be a namespace name or "*"'),
      )
      .min(1)
      .max(64)
      .optional()
      .describe('Namespaces whose pods may connect; "*" means every namespace.'),
    labels: z
      .array(z.string().min(1).max(317).regex(LABEL_KEY, "must be a label key"))
      .min(1)
      .max(64)
      .optional()
      .describe(
        "Namespace label keys: pods in any namespace that carries one of these label keys may connect (as in the upstream operator).",
      ),
  })
  .describe(
    "Restrict who may connect with a NetworkPolicy. Without allowedFrom no NetworkPolicy is created and the server is reachable as any Service is.",
  );

type WithAllowedFrom = { allowedFrom?: { namespaces?: unknown; labels?: unknown } | undefined };

/**
 * An allowedFrom that names no namespace and no label key is refused: an
 * empty peer list would admit every source. `message` says where and the fix.
 */
export function allowedFromNamesAPeer(id: string, message: string) {
  return rule<WithAllowedFrom>({
    id,
    cel: "!has(self.allowedFrom) || has(self.allowedFrom.namespaces) || has(self.allowedFrom.labels)",
    message,
    fieldPath: ".allowedFrom",
    check: (o) =>
      o.allowedFrom === undefined ||
      o.allowedFrom.namespaces !== undefined ||
      o.allowedFrom.labels !== undefined,
  });
}

export const Networking = withRules(
  z
    .strictObject({
      port: z
        .number()
        .int()
        .min(
          1024,
          "must be between 1024 and 65535 (Llama Stack refuses lower ports, and the server runs as non-root)",
        )
        .max(65535, "must be between 1024 and 65535")
        .default(DEFAULT_PORT)
        .describe("Port the server listens on and the Service exposes (1024-65535)."),
      tls: Tls.optional(),
      expose: Expose.optional(),
      allowedFrom: AllowedFrom.optional(),
    })
    .describe("How the server is reached."),
  [
    allowedFromNamesAPeer(
      "allowed-from-names-a-peer",
      'spec.networking.allowedFrom: names no namespace and no label key, and an empty peer list would admit every source; list namespaces ("*" for all) or labels, or remove allowedFrom',
    ),
  ],
);
export type Networking = z.infer<typeof Networking>;

/** The server's own TLS (networking.tls), when it is on. */
export interface ServerTls {
  secretName: string;
  requireClientCertificate: boolean;
}

/** The one answer to "does the server serve TLS?". */
export function serverTlsOf(networking: Networking | undefined): ServerTls | undefined {
  const tls = networking?.tls;
  if (tls?.enabled !== true || tls.secretName === undefined) return undefined;
  const requireClientCertificate = tls.requireClientCertificate === true;
  return { secretName: tls.secretName, requireClientCertificate };
}

/** networking.expose, when it is on. */
export type Ingress = NonNullable<Networking["expose"]>;

/** The one answer to "is there an Ingress?". */
export function ingressOf(networking: Networking | undefined): Ingress | undefined {
  const expose = networking?.expose;
  return expose?.enabled === true ? expose : undefined;
}
