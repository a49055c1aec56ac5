import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { cleanModelList, parseConfigLayer, readConfigLayer } from "../../../src/config/load.ts";
import { createTempTree, type TempTree } from "../agents/temp-tree.ts";

const FILE = "/home/u/.pi/agent/subagent-isolation.json";
const parse = (value: unknown) =>
  parseConfigLayer(typeof value === "string" ? value : JSON.stringify(value), "user", FILE);

describe("parseConfigLayer: entries", () => {
  it("reads a plain string as a model, and an object's model and thinking", () => {
    const layer = parse({
      writer: "p/flash",
      coder: { model: "p/pro", thinking: "high" },
      thinker: { thinking: "max" },
    });
    expect(layer.entries).toEqual({
      writer: { model: "p/flash" },
      coder: { model: "p/pro", thinking: "high" },
      thinker: { thinking: "max" },
    });
    expect(layer.warnings).toEqual([]);
    expect(layer.name).toBe("user");
    expect(layer.filePath).toBe(FILE);
    expect(layer.models).toBeUndefined();
  });

  it("tolerates a UTF-8 BOM", () => {
    expect(parseConfigLayer('\uFEFF{"a": "p/m"}', "project").entries).toEqual({ a: { model: "p/m" } });
  });

  it("trims model ids and ignores unknown fields inside an entry", () => {
    expect(parse({ a: { model: " p/m ", note: "kept on disk, not read" } }).entries).toEqual({ a: { model: "p/m" } });
  });

  it("treats a null field as not set", () => {
    const layer = parse({ a: { model: "p/m", thinking: null } });
    expect(layer.entries).toEqual({ a: { model: "p/m" } });
    expect(layer.warnings).toEqual([]);
  });

  it("never treats $-prefixed keys as agents", () => {
    const layer = parse({ $schema: "https://x", $other: { model: "p/m" }, a: "p/m" });
    expect(Object.keys(layer.entries)).toEqual(["a"]);
    expect(layer.warnings).toEqual([]);
  });

  it("ignores an invalid entry with a warning naming the file and the key", () => {
    const layer = parse({
      empty: "",
      blank: "  ",
      num: 3,
      list: ["p/m"],
      nul: null,
      none: {},
      bad: { thinking: "ultra" },
      ok: "p/m",
    });
    expect(layer.entries).toEqual({ ok: { model: "p/m" } });
    expect(layer.warnings).toEqual([
      `pi-subagent-dispatch: ${FILE}: "empty": the model must be a non-empty string; the entry is ignored`,
      `pi-subagent-dispatch: ${FILE}: "blank": the model must be a non-empty string; the entry is ignored`,
      `pi-subagent-dispatch: ${FILE}: "num": an entry must be a model string or an object with "model" and/or "thinking"; the entry is ignored`,
      `pi-subagent-dispatch: ${FILE}: "list": an entry must be a model string or an object with "model" and/or "thinking"; the entry is ignored`,
      `pi-subagent-dispatch: ${FILE}: "nul": an entry must be a model string or an object with "model" and/or "thinking"; the entry is ignored`,
      `pi-subagent-dispatch: ${FILE}: "none": the entry sets neither "model" nor "thinking" nor a budget nor "loopGuard" nor "sandbox"; the entry is ignored`,
      `pi-subagent-dispatch: ${FILE}: "bad": "thinking" must be one of off, minimal, low, medium, high, xhigh, max (got "ultra"); the entry sets neither "model" nor "thinking" nor a budget nor "loopGuard" nor "sandbox"; the entry is ignored`,
    ]);
  });

  it("keeps the valid half of a partly invalid entry, with a warning", () => {
    const layer = parse({ coder: { model: "p/pro", thinking: "HIGH" }, writer: { model: 5, thinking: "low" } });
    expect(layer.entries).toEqual({ coder: { model: "p/pro" }, writer: { thinking: "low" } });
    expect(layer.warnings).toEqual([
      `pi-subagent-dispatch: ${FILE}: "coder": "thinking" must be one of off, minimal, low, medium, high, xhigh, max (got "HIGH"); that value is ignored`,
      `pi-subagent-dispatch: ${FILE}: "writer": "model" must be a non-empty string; that value is ignored`,
    ]);
  });

  it("refuses the reserved names, which could reach Object.prototype", () => {
    const layer = parseConfigLayer(
      '{"__proto__": {"model": "evil"}, "constructor": "x", "prototype": "y", "a": "p/m"}',
      "project",
      "/p.json",
    );
    expect(Object.keys(layer.entries)).toEqual(["a"]);
    expect(layer.warnings).toEqual([
      'pi-subagent-dispatch: /p.json: "__proto__" is a reserved name, not an agent; ignored',
      'pi-subagent-dispatch: /p.json: "constructor" is a reserved name, not an agent; ignored',
      'pi-subagent-dispatch: /p.json: "prototype" is a reserved name, not an agent; ignored',
    ]);
    expect(({} as Record<string, unknown>)["model"]).toBeUndefined();
    // Entries have no prototype: an agent named like an Object method has no entry unless one is written.
    expect(layer.entries["toString"]).toBeUndefined();
  });
});

describe("parseConfigLayer: whole-file problems make an empty layer with one warning", () => {
  it("invalid JSON", () => {
    const layer = parse('{"a": "p/m",');
    expect(layer.entries).toEqual({});
    expect(layer.warnings).toHaveLength(1);
    expect(layer.warnings[0]).toMatch(
      new RegExp(`^pi-subagent-dispatch: ${FILE}: invalid JSON \\(.+\\); the whole file is ignored$`),
    );
  });

  it.each([["[]"], ["null"], ["42"], ['"p/m"']])("a top level that is not an object: %s", (text) => {
    const layer = parse(text);
    expect(layer.entries).toEqual({});
    expect(layer.models).toBeUndefined();
    expect(layer.warnings).toEqual([
      `pi-subagent-dispatch: ${FILE}: the file must contain a JSON object; the whole file is ignored`,
    ]);
  });
});

describe("$models", () => {
  it("is cleaned: strings only, trimmed, blanks dropped, duplicates removed with the first kept", () => {
    const layer = parse({ $models: [" b/2 ", "a/1", 3, null, "", "  ", "a/1", "b/2", { x: 1 }, "c/3"] });
    expect(layer.models).toEqual(["b/2", "a/1", "c/3"]);
    expect(layer.warnings).toEqual([]);
  });

  it("an explicit empty list is a list", () => {
    expect(parse({ $models: [] }).models).toEqual([]);
  });

  it("a non-array counts as absent, with a warning", () => {
    const layer = parse({ $models: "a/1" });
    expect(layer.models).toBeUndefined();
    expect(layer.warnings).toEqual([`pi-subagent-dispatch: ${FILE}: "$models" must be an array of model ids; ignored`]);
  });

  it("is never an agent entry", () => {
    expect(Object.keys(parse({ $models: ["a/1"], a: "a/1" }).entries)).toEqual(["a"]);
  });

  it("cleanModelList on its own", () => {
    expect(cleanModelList(["x", " x", "y "])).toEqual(["x", "y"]);
  });
});

describe("readConfigLayer (the file read)", () => {
  let tree: TempTree;
  beforeEach(() => {
    tree = createTempTree();
  });
  afterEach(() => tree.remove());

  it("reads a file", () => {
    const path = tree.write("s.json", '{"a": {"thinking": "low"}}');
    expect(readConfigLayer(path, "project")).toMatchObject({
      name: "project",
      filePath: path,
      entries: { a: { thinking: "low" } },
      warnings: [],
    });
  });

  it("a missing file, or no file at all, is an empty layer without warnings", () => {
    expect(readConfigLayer(tree.path("missing.json"), "user")).toMatchObject({ entries: {}, warnings: [] });
    expect(readConfigLayer(undefined, "project")).toEqual({ name: "project", entries: {}, warnings: [] });
  });

  it("a path that is a folder is reported and ignored", () => {
    const dir = tree.mkdir("s.json");
    const layer = readConfigLayer(dir, "user");
    expect(layer.entries).toEqual({});
    expect(layer.warnings).toEqual([`pi-subagent-dispatch: ${dir}: cannot be read (EISDIR); ignored`]);
  });
});

describe("parseConfigLayer: sandbox", () => {
  it("keeps an entry with only a sandbox, and reads an unknown level as read-only with a warning (fail closed)", () => {
    const layer = parseConfigLayer(
      JSON.stringify({
        worker: { sandbox: "read-only" },
        coder: { model: "a/b", sandbox: "strict" },
        $sandbox: "workspace-write",
      }),
      "user",
      "/u.json",
    );
    expect(layer.entries["worker"]).toEqual({ sandbox: "read-only" });
    expect(layer.entries["coder"]).toEqual({ model: "a/b", sandbox: "read-only" });
    expect(layer.settings?.["$sandbox"]).toBe("workspace-write");
    expect(layer.warnings).toEqual([
      'pi-subagent-dispatch: /u.json: "coder": "sandbox" must be one of off, workspace-write, read-only (got "strict"); the agent runs read-only until that is fixed',
    ]);
  });
});
