// YAML a user controls, read within bounds: each bound broken by a row past
// it (bounded-yaml-rows.ts), with the exact message.
import { expect } from "chai";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { heldAnswers, readYaml, readYamlOnce } from "../../../src/config/bounded-yaml.js";
import { BOUNDED_YAML_ROWS } from "./bounded-yaml-rows.js";

const configs = join(import.meta.dirname, "..", "..", "..", "configs");
const read11 = (text: string) => readYaml(text, { version: "1.1", json: true });
const refusal = (text: string) => {
  const r = read11(text);
  return r.ok ? "ok" : `${r.kind}: ${r.detail}`;
};

describe("readYaml", () => {
  it("reads every shipped base config within the bounds", () => {
    const releases = readdirSync(configs).filter((d) => /^\d/.test(d));
    let read = 0;
    for (const release of releases)
      for (const name of readdirSync(join(configs, release, "distributions"))) {
        const text = readFileSync(
          join(configs, release, "distributions", name, "config.yaml"),
          "utf8",
        );
        expect(refusal(text), `${release}/${name}`).to.equal("ok");
        read++;
      }
    expect(read).to.be.greaterThan(20);
  });

  // How long each takes (the same inputs whole took seconds or the heap): npm run bench -- 12.
  for (const row of BOUNDED_YAML_ROWS)
    it(`${row.name}: ${row.answer.split(":")[0] ?? ""}`, () => {
      expect(refusal(row.text)).to.equal(row.answer);
    });

  it("a 1.1 boolean is a boolean, as PyYAML reads it", () => {
    expect(read11("insecure: yes\n")).to.deep.equal({
      ok: true,
      value: { insecure: true },
      nodes: 2,
    });
  });
});

describe("readYamlOnce", () => {
  it("answers the same text with the same frozen value, once read", () => {
    const text = "apis: [inference]\nproviders: {inference: []}\n";
    const first = readYamlOnce(text, { version: "1.1", json: true });
    const second = readYamlOnce(text, { version: "1.1", json: true });
    expect(second).to.equal(first);
    if (!first.ok) throw new Error("not read");
    expect(Object.isFrozen(first.value)).to.equal(true);
    expect(Object.isFrozen((first.value as { apis: unknown }).apis)).to.equal(true);
  });

  it("keeps apart the same text read as 1.1 and as 1.2", () => {
    const as11 = readYamlOnce("a: yes\n", { version: "1.1", json: false });
    const as12 = readYamlOnce("a: yes\n", { version: "1.2", json: false });
    expect(as11).to.deep.equal({ ok: true, value: { a: true }, nodes: 2 });
    expect(as12).to.deep.equal({ ok: true, value: { a: "yes" }, nodes: 2 });
  });

  it("holds at most 64 answers and 4 MiB, whatever it is given", function () {
    this.timeout(20_000);
    let kept = 0;
    for (let i = 0; i < 30; i++) {
      // 2,000 values each (about 270 KB as weighed): more than 4 MiB well before 64 of them.
      const text = `n${i}:\n${`  - [${"a, ".repeat(9)}a]\n`.repeat(180)}`;
      const read = readYamlOnce(text, { version: "1.1", json: true });
      expect(read.ok).to.equal(true);
      const held = heldAnswers();
      kept = Math.max(kept, held.entries);
      expect(held.entries).to.be.at.most(64);
      expect(held.bytes).to.be.at.most(4 * 1024 * 1024);
    }
    expect(kept).to.be.within(2, 63); // bounded by bytes here, not by count
  });
});
