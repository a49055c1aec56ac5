import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { splitFrontmatter } from "../../../src/agents/frontmatter.js";
import { parseSimpleFrontmatter } from "../../../src/agents/simple-frontmatter.js";

describe("parseSimpleFrontmatter", () => {
  it("reads one plain `key: text` per line, as the YAML library does", () => {
    const text = 'name: explore\ndescription: Finds "where is X" fast, e.g. src/a.ts#L3 (read-only).\ntools: read, grep\n# a comment\n\nmodel: fake/fake-model';
    expect(parseSimpleFrontmatter(text)).toEqual(parse(text));
  });

  it("reads every built-in agent's frontmatter without the YAML library, and alike", () => {
    const dir = join(import.meta.dirname, "../../../agents");
    for (const file of readdirSync(dir)) {
      const split = splitFrontmatter(readFileSync(join(dir, file), "utf8"));
      if (!split.ok) throw new Error(file);
      expect(parseSimpleFrontmatter(split.yaml), file).toEqual(parse(split.yaml));
    }
  });

  it.each([
    ["quoted value", 'name: "worker"'],
    ["single-quoted value", "name: 'worker'"],
    ["block scalar", "description: |\n  two\n  lines"],
    ["folded scalar", "description: >\n  folded"],
    ["indented continuation", "description: one\n  two"],
    ["list", "tools:\n  - read"],
    ["flow list", "tools: [read, bash]"],
    ["flow map", "x: {a: 1}"],
    ["empty value (null)", "model:"],
    ["number", "timeout: 30"],
    ["float-looking", "version: 1.5"],
    ["signed", "n: -3"],
    ["boolean", "enabled: true"],
    ["boolean, other case", "enabled: False"],
    ["null word", "model: null"],
    ["tilde", "model: ~"],
    ["anchor", "name: &a worker"],
    ["alias", "name: *a"],
    ["tag", "name: !!str 5"],
    ["comment after the value", "name: worker # the worker"],
    ["colon-space in the value", "description: note: this"],
    ["value ending in a colon", "description: see:"],
    ["duplicate key", "name: a\nname: b"],
    ["no space after the colon", "name:worker"],
    ["quoted key", '"name": worker'],
    ["document marker", "name: a\n---\nname: b"],
    ["directive", "%YAML 1.2"],
    ["tab", "name:\tworker"],
    ["prototype key", "__proto__: x"],
  ])("leaves %s to the YAML library", (_label, text) => {
    expect(parseSimpleFrontmatter(text)).toBeUndefined();
  });

  it("is empty for an empty frontmatter, as YAML's null is read as no fields", () => {
    expect(parseSimpleFrontmatter("")).toEqual({});
  });
});
