// The SBOM of the hook image's operating system and base tools (npm run
// release writes it beside the npm dependencies' one): read from the image's
// own files, never guessed. Debian's packages come from dpkg's database
// (var/lib/dpkg/status, or status.d/ where a base keeps one file per package),
// the distribution from os-release, and what the Node.js base adds outside
// dpkg from the image itself: Node.js (the config's NODE_VERSION, which the
// official image sets) and the npm packages it installs globally (npm,
// corepack, yarn: their package.json). The functions here are pure; reading
// the archive is image-files.ts' part. test/unit/install/os-packages.test.ts holds them.
import type { ImageFiles } from "./image-files.js";

export interface DebPackage {
  name: string;
  version: string;
  architecture: string;
  /** The source package, when it differs from the binary's name or version (`Source: name (version)`). */
  source?: string;
}

/** One installed package per stanza of a dpkg status file ("install ok installed" only), sorted by name. */
export function dpkgPackages(status: string): DebPackage[] {
  const packages: DebPackage[] = [];
  for (const stanza of status.split(/\n\s*\n/)) {
    const fields = new Map<string, string>();
    for (const line of stanza.split("\n")) {
      const [, key, value] = /^([A-Za-z0-9-]+):\s*(.*)$/.exec(line) ?? [];
      if (key !== undefined && value !== undefined) fields.set(key.toLowerCase(), value.trim());
    }
    const name = fields.get("package");
    const version = fields.get("version");
    if (name === undefined || name === "") continue;
    if (fields.get("status") !== "install ok installed") continue;
    if (version === undefined || version === "")
      throw new Error(`dpkg status: package ${name} has no Version`);
    const source = fields.get("source");
    packages.push({
      name,
      version,
      architecture: fields.get("architecture") ?? "",
      ...(source === undefined || source === "" ? {} : { source }),
    });
  }
  const seen = new Set<string>();
  for (const p of packages) {
    const key = `${p.name}:${p.architecture}`;
    if (seen.has(key)) throw new Error(`dpkg status: package ${key} is listed twice`);
    seen.add(key);
  }
  return packages.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** KEY=value lines of os-release (quotes removed). */
export function osRelease(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split("\n")) {
    const [, key, value] = /^([A-Z0-9_]+)=(.*)$/.exec(line.trim()) ?? [];
    if (key !== undefined && value !== undefined)
      out[key] = value.replace(/^"(.*)"$/, "$1").replace(/^'(.*)'$/, "$1");
  }
  return out;
}

/** A package URL segment: letters, digits and `.-_~` as they are, the rest percent-encoded. */
const purlPart = (s: string) =>
  [...new TextEncoder().encode(s)]
    .map((b) => {
      const c = String.fromCharCode(b);
      return /[A-Za-z0-9.\-_~]/.test(c) ? c : `%${b.toString(16).toUpperCase().padStart(2, "0")}`;
    })
    .join("");

/** pkg:deb/<distro id>/<name>@<version>?arch=<arch>&distro=<id>-<version id>. */
export function debPurl(p: DebPackage, os: Record<string, string>): string {
  const id = os["ID"] ?? "debian";
  const qualifiers = [
    ...(p.architecture === "" ? [] : [`arch=${purlPart(p.architecture)}`]),
    ...(os["VERSION_ID"] === undefined ? [] : [`distro=${purlPart(`${id}-${os["VERSION_ID"]}`)}`]),
  ];
  return `pkg:deb/${purlPart(id)}/${purlPart(p.name)}@${purlPart(p.version)}${qualifiers.length > 0 ? `?${qualifiers.join("&")}` : ""}`;
}

/** Something the base installs outside dpkg, with where in the image it was read. */
interface BaseTool {
  name: string;
  version: string;
  purl: string;
  /** The image file or config field it was read from. */
  from: string;
}

export interface OsBomInput {
  /** The image reference, e.g. ghcr.io/llsd-hook/llsd-hook:0.1.0. */
  image: string;
  /** The image config's labels, carried as the SBOM's properties (a stand-in base says so). */
  labels: Record<string, string>;
  os: Record<string, string>;
  packages: DebPackage[];
  tools: BaseTool[];
}

interface Property {
  name: string;
  value: string;
}

/**
 * CycloneDX 1.6 JSON of the image's operating system, its Debian packages and
 * the base's tools; reproducible (no timestamp or serial number, components in
 * a fixed order). The image is the BOM's subject, its labels its properties.
 */
export function osBom(input: OsBomInput): Record<string, unknown> {
  const at = input.image.lastIndexOf(":");
  const labels: Property[] = Object.keys(input.labels)
    .sort()
    .map((name) => ({ name, value: input.labels[name] ?? "" }));
  const osRef = `os:${input.os["ID"] ?? "unknown"}`;
  const packages = input.packages.map((p) => {
    const purl = debPurl(p, input.os);
    const properties: Property[] = [
      ...(p.architecture === "" ? [] : [{ name: "cdx:deb:architecture", value: p.architecture }]),
      ...(p.source === undefined ? [] : [{ name: "cdx:deb:source", value: p.source }]),
      { name: "llsd-hook:read-from", value: "var/lib/dpkg (dpkg's database in the image)" },
    ];
    return { type: "library", "bom-ref": purl, name: p.name, version: p.version, purl, properties };
  });
  const tools = [...input.tools]
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((t) => ({
      type: t.name === "node" ? "platform" : "application",
      "bom-ref": t.purl,
      name: t.name,
      version: t.version,
      purl: t.purl,
      properties: [{ name: "llsd-hook:read-from", value: t.from }],
    }));
  return {
    $schema: "http://cyclonedx.org/schema/bom-1.6.schema.json",
    bomFormat: "CycloneDX",
    specVersion: "1.6",
    version: 1,
    metadata: {
      tools: {
        components: [
          {
            type: "application",
            name: "llsd-hook npm run release (scripts/release/os-packages.ts)",
          },
        ],
      },
      component: {
        type: "container",
        "bom-ref": input.image,
        name: at > 0 ? input.image.slice(0, at) : input.image,
        ...(at > 0 ? { version: input.image.slice(at + 1) } : {}),
        ...(labels.length === 0 ? {} : { properties: labels }),
      },
      ...(labels.length === 0 ? {} : { properties: labels }),
    },
    components: [
      {
        type: "operating-system",
        "bom-ref": osRef,
        name: input.os["ID"] ?? "unknown",
        ...(input.os["VERSION_ID"] === undefined ? {} : { version: input.os["VERSION_ID"] }),
        ...(input.os["PRETTY_NAME"] === undefined ? {} : { description: input.os["PRETTY_NAME"] }),
        properties: [{ name: "llsd-hook:read-from", value: "etc/os-release" }],
      },
      ...packages,
      ...tools,
    ],
    dependencies: [
      { ref: input.image, dependsOn: [osRef, ...tools.map((t) => t["bom-ref"])] },
      { ref: osRef, dependsOn: packages.map((p) => p["bom-ref"]) },
    ],
  };
}

/** The paths the OS SBOM reads (and the link targets they may point at). */
export function osSbomPath(path: string): boolean {
  return (
    path === "var/lib/dpkg/status" ||
    /^var\/lib\/dpkg\/status\.d\/[^/]+$/.test(path) ||
    path === "etc/os-release" ||
    path === "usr/lib/os-release" ||
    /^usr\/local\/lib\/node_modules\/[^/]+\/package\.json$/.test(path) ||
    /^opt\/yarn-v[^/]+\/package\.json$/.test(path)
  );
}

/** The OS SBOM's input from what imageFiles (image-files.ts) read. */
export function osBomInput(image: string, read: ImageFiles): OsBomInput {
  const { files, config } = read;
  const statusParts = [...files.keys()]
    .filter((p) => p === "var/lib/dpkg/status" || p.startsWith("var/lib/dpkg/status.d/"))
    .sort()
    .map((p) => files.get(p) ?? "");
  if (statusParts.length === 0)
    throw new Error(`${image}: no dpkg database (var/lib/dpkg/status) in the image`);
  const osText = files.get("etc/os-release") ?? files.get("usr/lib/os-release");
  if (osText === undefined) throw new Error(`${image}: no etc/os-release in the image`);
  const tools: BaseTool[] = [];
  const env = config.config?.Env ?? [];
  const node = env.find((e) => e.startsWith("NODE_VERSION="))?.slice("NODE_VERSION=".length);
  if (node !== undefined && node !== "")
    tools.push({
      name: "node",
      version: node,
      purl: `pkg:generic/node@${purlPart(node)}`,
      from: "the image config's NODE_VERSION",
    });
  for (const [path, text] of files) {
    if (!path.endsWith("/package.json")) continue;
    const pkg = JSON.parse(text) as { name?: unknown; version?: unknown };
    if (typeof pkg.name !== "string" || typeof pkg.version !== "string")
      throw new Error(`${image}: ${path} has no name and version`);
    tools.push({
      name: pkg.name,
      version: pkg.version,
      purl: `pkg:npm/${purlPart(pkg.name)}@${purlPart(pkg.version)}`,
      from: path,
    });
  }
  return {
    image,
    labels: config.config?.Labels ?? {},
    os: osRelease(osText),
    packages: dpkgPackages(statusParts.join("\n\n")),
    tools,
  };
}
