// The plain parts of the hook image's OS SBOM (scripts/release/os-packages.ts):
// dpkg's status file read as dpkg writes it, os-release, package URLs, and the
// CycloneDX document made from them. The archive reading and the schema
// validation run in test/install/release.test.ts on the image the suite builds.
import { expect } from "chai";
import {
  debPurl,
  dpkgPackages,
  osBom,
  osBomInput,
  osRelease,
  osSbomPath,
  type DebPackage,
} from "../../../scripts/release/os-packages.js";

const stanza = (fields: Record<string, string>) =>
  Object.entries(fields)
    .map(([k, v]) => `${k}: ${v}`)
    .join("\n");

const BASH = {
  Package: "bash",
  Essential: "yes",
  Status: "install ok installed",
  Priority: "required",
  Architecture: "amd64",
  Version: "5.2.15-2+b7",
  Description: "GNU Bourne Again SHell\n This is the shell.\n .\n More text: with a colon.",
};
const LIBC = {
  Package: "libc6",
  Status: "install ok installed",
  Architecture: "amd64",
  "Multi-Arch": "same",
  Source: "glibc",
  Version: "2.36-9+deb12u13",
};

describe("the image's OS SBOM: dpkg's status file", () => {
  const rows: [what: string, status: string, want: DebPackage[] | RegExp][] = [
    ["an empty database", "", []],
    [
      "two packages, sorted by name, a description's continuation lines ignored",
      [stanza(LIBC), stanza(BASH)].join("\n\n") + "\n",
      [
        { name: "bash", version: "5.2.15-2+b7", architecture: "amd64" },
        { name: "libc6", version: "2.36-9+deb12u13", architecture: "amd64", source: "glibc" },
      ],
    ],
    [
      "a package removed with its configuration kept is not installed",
      [stanza({ ...BASH, Status: "deinstall ok config-files" }), stanza(LIBC)].join("\n\n"),
      [{ name: "libc6", version: "2.36-9+deb12u13", architecture: "amd64", source: "glibc" }],
    ],
    [
      "a half-installed package is not installed",
      stanza({ ...BASH, Status: "install reinstreq half-installed" }),
      [],
    ],
    [
      "an epoch and a source with its own version are kept as written",
      stanza({ ...LIBC, Package: "tzdata", Version: "1:2025b-0+deb12u1", Source: "tz (2025b)" }),
      [
        {
          name: "tzdata",
          version: "1:2025b-0+deb12u1",
          architecture: "amd64",
          source: "tz (2025b)",
        },
      ],
    ],
    [
      "blank lines made of spaces still part stanzas; field names in any case",
      `package: a\nstatus: install ok installed\nversion: 1\narchitecture: all\n  \nPackage: b\nStatus: install ok installed\nVersion: 2\n`,
      [
        { name: "a", version: "1", architecture: "all" },
        { name: "b", version: "2", architecture: "" },
      ],
    ],
    [
      "an installed package without a version",
      stanza({ ...BASH, Version: "" }),
      /bash has no Version/,
    ],
    [
      "the same package and architecture twice",
      [stanza(BASH), stanza(BASH)].join("\n\n"),
      /bash:amd64 is listed twice/,
    ],
  ];
  for (const [what, status, want] of rows)
    it(what, () => {
      if (want instanceof RegExp) expect(() => dpkgPackages(status)).to.throw(want);
      else expect(dpkgPackages(status)).to.deep.equal(want);
    });
});

describe("the image's OS SBOM: os-release and package URLs", () => {
  it("reads os-release with and without quotes", () => {
    expect(
      osRelease(
        'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nNAME=\'Debian GNU/Linux\'\nVERSION_ID="12"\nID=debian\n# a comment\n',
      ),
    ).to.deep.equal({
      PRETTY_NAME: "Debian GNU/Linux 12 (bookworm)",
      NAME: "Debian GNU/Linux",
      VERSION_ID: "12",
      ID: "debian",
    });
  });

  const os = { ID: "debian", VERSION_ID: "12" };
  const rows: [DebPackage, string][] = [
    [
      { name: "bash", version: "5.2.15-2+b7", architecture: "amd64" },
      "pkg:deb/debian/bash@5.2.15-2%2Bb7?arch=amd64&distro=debian-12",
    ],
    [
      { name: "tzdata", version: "1:2025b-0+deb12u1", architecture: "all" },
      "pkg:deb/debian/tzdata@1%3A2025b-0%2Bdeb12u1?arch=all&distro=debian-12",
    ],
    [
      { name: "libstdc++6", version: "12.2.0-14~deb12u1", architecture: "" },
      "pkg:deb/debian/libstdc%2B%2B6@12.2.0-14~deb12u1?distro=debian-12",
    ],
  ];
  for (const [p, purl] of rows)
    it(`${p.name} ${p.version} is ${purl}`, () => expect(debPurl(p, os)).to.equal(purl));
});

describe("the image's OS SBOM: the document", () => {
  const files = new Map<string, string>([
    ["var/lib/dpkg/status", [stanza(LIBC), stanza(BASH)].join("\n\n")],
    [
      "etc/os-release",
      'ID=debian\nVERSION_ID="12"\nPRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\n',
    ],
    ["usr/local/lib/node_modules/npm/package.json", '{"name": "npm", "version": "11.19.0"}'],
    ["opt/yarn-v1.22.22/package.json", '{"name": "yarn", "version": "1.22.22"}'],
  ]);
  const config = {
    config: {
      Env: ["PATH=/usr/bin", "NODE_VERSION=24.21.0"],
      Labels: { "io.llsd-hook.stand-in-base": "docker.io/library/node:24.21.0-bookworm-slim, …" },
    },
  };
  const image = "ghcr.io/llsd-hook/llsd-hook:0.1.0";
  const bom = osBom(osBomInput(image, { config, files })) as {
    metadata: { component: Record<string, unknown>; properties?: unknown[] };
    components: { type: string; name: string; version?: string; purl?: string }[];
    dependencies: { ref: string; dependsOn: string[] }[];
  };

  it("is about the image, labelled as the image is (a stand-in base says so)", () => {
    const label = [
      {
        name: "io.llsd-hook.stand-in-base",
        value: config.config.Labels["io.llsd-hook.stand-in-base"],
      },
    ];
    expect(bom.metadata.component).to.deep.include({
      type: "container",
      name: "ghcr.io/llsd-hook/llsd-hook",
      version: "0.1.0",
      properties: label,
    });
    expect(bom.metadata.properties).to.deep.equal(label);
  });

  it("lists the distribution, every installed package and the base's tools, in a fixed order", () => {
    expect(bom.components.map((c) => `${c.type} ${c.name} ${c.version ?? ""}`)).to.deep.equal([
      "operating-system debian 12",
      "library bash 5.2.15-2+b7",
      "library libc6 2.36-9+deb12u13",
      "platform node 24.21.0",
      "application npm 11.19.0",
      "application yarn 1.22.22",
    ]);
    expect(bom.components.find((c) => c.name === "npm")?.purl).to.equal("pkg:npm/npm@11.19.0");
    expect(bom.dependencies[1]?.dependsOn).to.have.length(2);
  });

  it("is the same bytes from the same files (no timestamp, no serial number)", () => {
    const again = osBom(osBomInput(image, { config, files }));
    expect(JSON.stringify(again)).to.equal(JSON.stringify(bom));
    expect(JSON.stringify(bom)).to.not.match(/timestamp|serialNumber/);
  });

  it("refuses an image without dpkg's database or os-release, rather than list nothing", () => {
    const without = (path: string) => new Map([...files].filter(([p]) => p !== path));
    expect(() => osBomInput(image, { config, files: without("var/lib/dpkg/status") })).to.throw(
      /no dpkg database/,
    );
    expect(() => osBomInput(image, { config, files: without("etc/os-release") })).to.throw(
      /no etc\/os-release/,
    );
  });

  it("reads only the paths it needs from the image", () => {
    const rows: [string, boolean][] = [
      ["var/lib/dpkg/status", true],
      ["var/lib/dpkg/status-old", false],
      ["var/lib/dpkg/status.d/base", true],
      ["etc/os-release", true],
      ["usr/lib/os-release", true],
      ["usr/local/lib/node_modules/npm/package.json", true],
      ["usr/local/lib/node_modules/npm/node_modules/abbrev/package.json", false],
      ["opt/yarn-v1.22.22/package.json", true],
      ["app/node_modules/yaml/package.json", false],
    ];
    for (const [path, want] of rows) expect(osSbomPath(path), path).to.equal(want);
  });
});
