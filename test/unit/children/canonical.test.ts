// Table tests for the one fixed form of a child: apiVersion, kind, metadata
// first (name, namespace first within it), every other key sorted, lists kept
// in order, undefined dropped.
import { expect } from "chai";
import { canonicalObject } from "../../../src/children/canonical.js";
import { deepFreeze } from "../../../src/lib/json.js";

const keys = (value: unknown): string[] => Object.keys(value as object);

describe("canonicalObject", () => {
  const rows: [why: string, given: object, text: string][] = [
    [
      "the head keys first, the rest sorted",
      { spec: 1, metadata: { name: "n" }, kind: "K", data: 2, apiVersion: "v1" },
      '{"apiVersion":"v1","kind":"K","metadata":{"name":"n"},"data":2,"spec":1}',
    ],
    [
      "name and namespace first in metadata only",
      {
        metadata: { labels: { b: "1", a: "2" }, namespace: "ns", name: "n" },
        spec: { name: "x", kind: "y" },
      },
      '{"metadata":{"name":"n","namespace":"ns","labels":{"a":"2","b":"1"}},"spec":{"kind":"y","name":"x"}}',
    ],
    ["lists keep their order", { spec: { list: [3, 1, 2] } }, '{"spec":{"list":[3,1,2]}}'],
    [
      "objects in lists are sorted, without a head",
      { spec: [{ kind: "k", b: 1, apiVersion: "a" }] },
      '{"spec":[{"apiVersion":"a","b":1,"kind":"k"}]}',
    ],
    [
      "undefined is dropped",
      { kind: "K", spec: undefined, data: { a: undefined } },
      '{"kind":"K","data":{}}',
    ],
    ["null is kept", { spec: null }, '{"spec":null}'],
    ["an empty object", {}, "{}"],
    [
      "hostile: a __proto__ key stays an own key",
      JSON.parse('{"spec": {"__proto__": {"polluted": true}}}') as object,
      '{"spec":{"__proto__":{"polluted":true}}}',
    ],
  ];
  for (const [why, given, text] of rows)
    it(why, () => expect(JSON.stringify(canonicalObject(given))).to.equal(text));

  for (const [why, given, text] of rows)
    it(`frozen: ${why}, worked out once and frozen too`, () => {
      const frozen = deepFreeze(structuredClone(given));
      const form = canonicalObject(frozen);
      expect(JSON.stringify(form)).to.equal(text);
      expect(canonicalObject(frozen)).to.equal(form);
      expect(Object.isFrozen(form)).to.equal(true);
    });

  it("an object that is not frozen gets a form of its own each time", () => {
    const given = { spec: { b: 1, a: 2 }, kind: "K" };
    expect(canonicalObject(given)).to.not.equal(canonicalObject(given));
  });

  it("is the same whatever the order it is given in", () => {
    const a = canonicalObject({ kind: "K", apiVersion: "v1", spec: { b: 1, a: 2 } });
    const b = canonicalObject({ spec: { a: 2, b: 1 }, apiVersion: "v1", kind: "K" });
    expect(JSON.stringify(a)).to.equal(JSON.stringify(b));
    expect(keys(a)).to.deep.equal(["apiVersion", "kind", "spec"]);
  });

  it("does not change its input", () => {
    const given = { spec: { b: 1, a: 2 }, kind: "K" };
    canonicalObject(given);
    expect(keys(given)).to.deep.equal(["spec", "kind"]);
    expect(keys(given.spec)).to.deep.equal(["b", "a"]);
  });
});
