// A container image reference, as the distribution/reference grammar that
// the kubelet's runtimes parse it: [host[:port]/]path[:tag][@digest], the path
// lower-case, the whole name at most 255 characters. Checked where an
// operator gives one (IMAGE_OVERRIDES_FILE), so a typo stops the hook at
// start rather than reaching a Deployment the API server or the node refuses.
const DOMAIN_COMPONENT = "(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])";
const HOST = `(?:${DOMAIN_COMPONENT}(?:\\.${DOMAIN_COMPONENT})*|\\[[0-9a-fA-F:.]+\\])(?::[0-9]+)?`;
const PATH_COMPONENT = "[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*";
const NAME = `(?:${HOST}/)?${PATH_COMPONENT}(?:/${PATH_COMPONENT})*`;
const TAG = "[\\w][\\w.-]{0,127}";
const DIGEST = "[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}";
const REFERENCE = new RegExp(`^(${NAME})(?::${TAG})?(?:@${DIGEST})?$`);

/** Whether `text` is an image reference a container runtime accepts. */
export function isImageReference(text: string): boolean {
  const match = REFERENCE.exec(text);
  return match !== null && (match[1] ?? "").length <= 255;
}
