// Kubernetes' name patterns (apimachinery's validation), for the fields that
// name an object.

/** A DNS-1123 subdomain: the name of a Secret, ConfigMap, ServiceAccount, IngressClass... */
export const DNS1123_SUBDOMAIN =
  /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** A DNS-1123 label: the name of a namespace (at most 63 characters). */
export const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** A label key: an optional DNS-subdomain prefix and a slash, then a name of letters, digits, '-', '_' and '.'. */
export const LABEL_KEY =
  /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;

/** A DNS-1035 label: the name of a Service, which starts with a letter. */
export const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
