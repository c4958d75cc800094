// Metacontroller's namespace and ServiceAccount are set in one place,
// manifests/components/metacontroller-identity/identity.yaml, and copied by the
// component's replacements into every field that names them. This guards new
// places: any field of the install's YAML (manifests/, metacontroller/,
// examples/) that names Metacontroller's default namespace or ServiceAccount
// must be a target of those replacements, fed from the right value, and every
// target must exist. The rendering itself, by the suite's kustomize, is
// test/install/metacontroller-identity.test.ts; on a real API server,
// test/k8s/install-identity.test.ts.
import { expect } from "chai";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { parse, parseAllDocuments } from "yaml";
import {
  IDENTITY_COMPONENT,
  IDENTITY_FILE,
  IDENTITY_REPLACEMENTS,
} from "../../install/metacontroller-identity.js";
import { docSection } from "../../support/tools.js";

const root = join(import.meta.dirname, "..", "..", "..");
/** What the install assumes when identity.yaml is left as it is. */
const DEFAULT = "metacontroller";

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Path = (string | number)[];

function yamlFiles(dir: string): string[] {
  return readdirSync(join(root, dir)).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(join(root, path)).isDirectory()) return yamlFiles(path);
    return /\.ya?ml$/.test(name) && name !== "install.yaml" ? [path] : [];
  });
}

interface Doc {
  file: string;
  value: Json;
}

const docs: Doc[] = ["manifests", "metacontroller", "examples"].flatMap(yamlFiles).flatMap((file) =>
  parseAllDocuments(readFileSync(join(root, file), "utf8")).map((d) => ({
    file,
    value: d.toJS() as Json,
  })),
);

const isMap = (v: Json | undefined): v is { [k: string]: Json } =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** Every field below `value` whose key names a namespace or an object and whose value is Metacontroller's default. */
function namingFields(value: Json, path: Path = []): Path[] {
  if (Array.isArray(value)) return value.flatMap((v, i) => namingFields(v, [...path, i]));
  if (!isMap(value)) return [];
  return Object.entries(value).flatMap(([k, v]) =>
    /^(namespace|name|serviceAccount|serviceAccountName|kubernetes\.io\/metadata\.name)$/.test(k) &&
    v === DEFAULT
      ? [[...path, k]]
      : namingFields(v, [...path, k]),
  );
}

/** A kustomize fieldPath ("a.0.[k=v].[dotted.key]") evaluated on `value`: the concrete paths it selects. */
function resolveFieldPath(value: Json, fieldPath: string): Path[] {
  const segments = fieldPath.match(/\[[^\]]*\]|[^.[\]]+/g) ?? [];
  let found: { path: Path; value: Json }[] = [{ path: [], value }];
  for (const seg of segments) {
    found = found.flatMap(({ path, value: v }) => {
      const selector = /^\[([^=\]]+)=([^\]]*)\]$/.exec(seg);
      if (selector !== null) {
        if (!Array.isArray(v)) return [];
        return v.flatMap((el, i) =>
          isMap(el) && el[selector[1]!] === selector[2] ? [{ path: [...path, i], value: el }] : [],
        );
      }
      if (/^\d+$/.test(seg)) {
        const i = Number(seg);
        return Array.isArray(v) && i < v.length ? [{ path: [...path, i], value: v[i]! }] : [];
      }
      const key = seg.startsWith("[") ? seg.slice(1, -1) : seg;
      return isMap(v) && key in v ? [{ path: [...path, key], value: v[key]! }] : [];
    });
  }
  return found.map((f) => f.path);
}

interface Replacement {
  source: { kind: string; name: string; fieldPath: string };
  targets: {
    select: { group?: string; kind: string; name: string };
    fieldPaths: string[];
  }[];
}

const transformer = parse(readFileSync(join(root, IDENTITY_REPLACEMENTS), "utf8")) as {
  apiVersion: string;
  kind: string;
  replacements: Replacement[];
};

const idOf = (doc: Doc) => {
  const v = doc.value as { kind?: string; metadata?: { name?: string } };
  return `${doc.file} ${v.kind}/${v.metadata?.name}`;
};
const key = (doc: Doc, path: Path) => `${idOf(doc)} ${path.join(".")}`;
const isSource = (doc: Doc) => doc.file === IDENTITY_FILE;

describe("Metacontroller's namespace and ServiceAccount in the install", () => {
  it("are set in identity.yaml, a local-config ConfigMap, to the defaults the docs name", () => {
    const source = docs.filter(isSource);
    expect(source).to.have.length(1);
    expect(source[0]?.value).to.deep.equal({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: {
        name: "metacontroller-identity",
        annotations: { "config.kubernetes.io/local-config": "true" },
      },
      data: { namespace: DEFAULT, serviceAccount: DEFAULT },
    });
    expect(transformer).to.include({ apiVersion: "builtin", kind: "ReplacementTransformer" });
    for (const r of transformer.replacements)
      expect(r.source).to.deep.include({ kind: "ConfigMap", name: "metacontroller-identity" });
  });

  it("the base includes the component, so every install built on manifests/ follows it", () => {
    const base = parse(readFileSync(join(root, "manifests", "kustomization.yaml"), "utf8")) as {
      components?: string[];
    };
    expect(base.components?.map((c) => join("manifests", c))).to.include(IDENTITY_COMPONENT);
  });

  it("every field that names them is a replacement target fed from the right value, and every target exists", () => {
    const named = new Map<string, string>();
    for (const doc of docs.filter((d) => !isSource(d)))
      for (const path of namingFields(doc.value))
        named.set(key(doc, path), path.at(-1) === "name" ? "serviceAccount" : "namespace");

    const targeted = new Map<string, string>();
    const unresolved: string[] = [];
    for (const r of transformer.replacements) {
      const from = r.source.fieldPath.replace(/^data\./, "");
      for (const t of r.targets) {
        const matches = docs.filter((d) => {
          const v = d.value as { apiVersion?: string; kind?: string; metadata?: { name?: string } };
          const group = v.apiVersion?.includes("/") ? v.apiVersion.split("/")[0] : "";
          return (
            v.kind === t.select.kind &&
            v.metadata?.name === t.select.name &&
            (t.select.group === undefined || t.select.group === group)
          );
        });
        expect(matches, `${t.select.kind}/${t.select.name}`).to.have.length(1);
        for (const fieldPath of t.fieldPaths) {
          const paths = resolveFieldPath(matches[0]!.value, fieldPath);
          if (paths.length === 0) unresolved.push(`${t.select.kind}/${t.select.name} ${fieldPath}`);
          for (const p of paths) targeted.set(key(matches[0]!, p), from);
        }
      }
    }
    expect(unresolved, "targets that select nothing").to.deep.equal([]);
    expect(Object.fromEntries(targeted)).to.deep.equal(Object.fromEntries(named));
    // Today's places, so that a change to them is seen in review.
    expect([...named.keys()].sort()).to.deep.equal([
      "manifests/hook/networkpolicy.yaml NetworkPolicy/llsd-hook spec.ingress.0.from.0.namespaceSelector.matchLabels.kubernetes.io/metadata.name",
      "metacontroller/rbac.yaml ClusterRoleBinding/metacontroller-llsd-hook subjects.0.name",
      "metacontroller/rbac.yaml ClusterRoleBinding/metacontroller-llsd-hook subjects.0.namespace",
    ]);
  });

  it('docs/troubleshooting.md "The hook is never called" points at identity.yaml', () => {
    const section = docSection("docs/troubleshooting.md", "## The hook is never called");
    expect(section).to.include(`\`${IDENTITY_FILE}\``);
  });
});
