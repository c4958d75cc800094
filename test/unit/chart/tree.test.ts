// The chart generator's annotated trees (scripts/chart/tree.ts) and their
// templates (emit.ts): what a feature's render adds or changes is merged in
// tagged with the feature, gives each render back, and is written under its
// condition; what the trees cannot express stops the generator with the
// field's path. test/install/chart.test.ts holds the whole chart against
// kustomize with the real helm.
import { expect } from "chai";
import { template } from "../../../scripts/chart/emit.js";
import { fromJson, merge, project, type Json, type Node } from "../../../scripts/chart/tree.js";

const on = (...keys: string[]) => new Set(keys);
const condition = (key: string) => `.Values.${key}.enabled`;

/** `base` with each feature's render merged in, in order (each on top of nothing). */
function merged(base: Json, features: [string, Json][]): Node {
  const root = fromJson(base);
  for (const [key, after] of features) merge(root, base, after, [key], on(), "obj");
  return root;
}

describe("chart generator: merging a feature's render", () => {
  const base = {
    spec: { protocol: "http", env: [{ name: "A", value: "1" }], rules: ["x"] },
  };

  const rows: { what: string; after: Json; with: Json }[] = [
    {
      what: "a field added",
      after: { spec: { ...base.spec, caBundle: { key: "ca.crt" } } },
      with: { spec: { ...base.spec, caBundle: { key: "ca.crt" } } },
    },
    {
      what: "an item added before the others (matched by name)",
      after: { spec: { ...base.spec, env: [{ name: "TLS", value: "on" }, ...base.spec.env] } },
      with: { spec: { ...base.spec, env: [{ name: "TLS", value: "on" }, ...base.spec.env] } },
    },
    {
      what: "an item added at the end (matched whole)",
      after: { spec: { ...base.spec, rules: ["x", "y"] } },
      with: { spec: { ...base.spec, rules: ["x", "y"] } },
    },
    {
      what: "a field changed",
      after: { spec: { ...base.spec, protocol: "https" } },
      with: { spec: { ...base.spec, protocol: "https" } },
    },
  ];
  for (const row of rows)
    it(`${row.what}: the render with the feature, and the base without it`, () => {
      const root = merged(base, [["https", row.after]]);
      expect(project(root, on("https"))).to.deep.equal(row.with);
      expect(project(root, on())).to.deep.equal(base);
    });

  it("items two features add at one place follow the features' order", () => {
    const root = merged(base, [
      ["a", { spec: { ...base.spec, rules: ["x", "a"] } }],
      ["b", { spec: { ...base.spec, rules: ["x", "b"] } }],
    ]);
    expect(project(root, on("a", "b"))).to.deep.equal({
      spec: { ...base.spec, rules: ["x", "a", "b"] },
    });
    expect(project(root, on("b"))).to.deep.equal({ spec: { ...base.spec, rules: ["x", "b"] } });
  });

  it("a field and an item two features add alike are there once, with either feature or both", () => {
    const withBoth = { spec: { ...base.spec, rules: ["x", "open"], label: "open" } };
    const root = merged(base, [
      ["a", withBoth],
      ["b", withBoth],
    ]);
    for (const features of [on("a"), on("b"), on("a", "b")])
      expect(project(root, features)).to.deep.equal(withBoth);
    expect(project(root, on())).to.deep.equal(base);
  });

  const refused: { what: string; features: [string, Json][]; message: string }[] = [
    {
      what: "a field removed",
      features: [["a", { spec: { env: base.spec.env, rules: base.spec.rules } }]],
      message: "obj.spec.protocol: a field removed with a",
    },
    {
      what: "an item removed",
      features: [["a", { spec: { ...base.spec, rules: [] } }]],
      message: "obj.spec.rules[0]: an item removed or moved with a",
    },
    {
      what: "a field two features add with different values",
      features: [
        ["a", { spec: { ...base.spec, extra: 1 } }],
        ["b", { spec: { ...base.spec, extra: 2 } }],
      ],
      message: "obj.spec.extra: a field another feature adds otherwise with b",
    },
    {
      what: "a field two features change",
      features: [
        ["a", { spec: { ...base.spec, protocol: "https" } }],
        ["b", { spec: { ...base.spec, protocol: "h2c" } }],
      ],
      message: "obj.spec.protocol: a value changed a second time with b",
    },
  ];
  for (const row of refused)
    it(`refuses ${row.what}, naming the field`, () => {
      expect(() => merged(base, row.features)).to.throw(row.message);
    });
});

describe("chart generator: an object's template", () => {
  it("writes what a feature adds under its condition, and a changed field as if/else", () => {
    const base = { kind: "X", spec: { protocol: "http", env: [{ name: "A" }] } };
    const root = merged(base, [
      [
        "https",
        { kind: "X", spec: { protocol: "https", env: [{ name: "A" }, { name: "T" }], ca: "c" } },
      ],
    ]);
    expect(template(root, [], [], condition, ["header"])).to.equal(
      [
        "# header",
        "kind: X",
        "spec:",
        "  {{- if .Values.https.enabled }}",
        "  protocol: https",
        "  {{- else }}",
        "  protocol: http",
        "  {{- end }}",
        "  env:",
        "    - name: A",
        "    {{- if .Values.https.enabled }}",
        "    - name: T",
        "    {{- end }}",
        "  {{- if .Values.https.enabled }}",
        "  ca: c",
        "  {{- end }}",
        "",
      ].join("\n"),
    );
  });

  it("writes a part two features add alike once, under `or` of their conditions", () => {
    const base = { kind: "X", spec: { rules: ["x"] } };
    const withBoth = { kind: "X", spec: { rules: ["x", "open"] } };
    const root = fromJson(base);
    merge(root, base, withBoth, ["a", "https"], on("https"), "obj");
    merge(root, base, withBoth, ["b", "https"], on("https"), "obj");
    expect(template(root, [], [], condition, ["header"])).to.equal(
      [
        "# header",
        "kind: X",
        "spec:",
        "  rules:",
        "    - x",
        "    {{- if or (and .Values.a.enabled .Values.https.enabled) (and .Values.b.enabled .Values.https.enabled) }}",
        "    - open",
        "    {{- end }}",
        "",
      ].join("\n"),
    );
  });

  it("escapes {{ in the data, and puts an object's own condition around it all", () => {
    const root = fromJson({ kind: "Rule", expr: "{{ $labels.name }}" });
    expect(template(root, ["a"], ["not .Values.x"], condition, ["h"])).to.equal(
      [
        "{{- if and .Values.a.enabled (not .Values.x) }}",
        "# h",
        "kind: Rule",
        'expr: "{{ "{{" }} $labels.name }}"',
        "{{- end }}",
        "",
      ].join("\n"),
    );
  });
});
