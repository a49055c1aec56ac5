import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseConfigLayer } from "../../../src/config/load.ts";
import {
  addAvailableModel,
  applyModelsListEdit,
  editModelsList,
  removeAvailableModel,
} from "../../../src/config/write.ts";
import { WriteBackError } from "../../../src/shared/safe-write.ts";

let dir: string;
let file: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "write-models-"));
  file = join(dir, "subagent-isolation.json");
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const read = () => readFileSync(file, "utf8");
const models = () => (JSON.parse(read()) as Record<string, unknown>)["$models"];

describe("$models: add", () => {
  it("creates the file with a one-item list when there is none", async () => {
    expect(await addAvailableModel(file, "deepseek/deepseek-v4-pro")).toEqual({ changed: true });
    expect(read()).toBe('{\n  "$models": [\n    "deepseek/deepseek-v4-pro"\n  ]\n}\n');
  });

  it("appends at the end of the list", async () => {
    writeFileSync(file, '{"$models": ["a/a", "b/b"]}');
    await addAvailableModel(file, " c/c ");
    expect(models()).toEqual(["a/a", "b/b", "c/c"]);
  });

  it("is idempotent: an id already in the (cleaned) list changes nothing", async () => {
    const original = '{"$models": ["  a/a ", "b/b"]}';
    writeFileSync(file, original);
    expect(await addAvailableModel(file, "a/a")).toEqual({ changed: false });
    expect(await addAvailableModel(file, "b/b")).toEqual({ changed: false });
    expect(read()).toBe(original);
  });

  it("rewrites a non-array $models as a one-item list, in place", async () => {
    writeFileSync(file, '{"first": 1, "$models": "a/a", "last": 2}');
    await addAvailableModel(file, "b/b");
    expect(read()).toBe('{\n  "first": 1,\n  "$models": [\n    "b/b"\n  ],\n  "last": 2\n}\n');
  });

  it("adds $models at the end of a file that has agent entries but no list", async () => {
    writeFileSync(file, '{"coder": {"model": "a/a"}}');
    await addAvailableModel(file, "a/a");
    expect(Object.keys(JSON.parse(read()) as object)).toEqual(["coder", "$models"]);
  });
});

describe("$models: remove", () => {
  it("removes every entry equal to the id", async () => {
    writeFileSync(file, '{"$models": ["a/a", "b/b", " a/a", "c/c"]}');
    expect(await removeAvailableModel(file, "a/a")).toEqual({ changed: true });
    expect(models()).toEqual(["b/b", "c/c"]);
  });

  it("is a no-op when the id is absent, the list is not an array, or there is no list", async () => {
    for (const original of ['{"$models": ["b/b"]}', '{"$models": "a/a"}', '{"coder": "x/x"}']) {
      writeFileSync(file, original);
      expect(await removeAvailableModel(file, "a/a")).toEqual({ changed: false });
      expect(read()).toBe(original);
    }
  });

  it("keeps an explicit empty list when the last entry goes", async () => {
    writeFileSync(file, '{"$models": ["a/a"], "coder": "x/x"}');
    await removeAvailableModel(file, "a/a");
    expect(read()).toBe('{\n  "$models": [],\n  "coder": "x/x"\n}\n');
    // An explicit empty list is a valid list: it shadows the user-level list.
    expect(parseConfigLayer(read(), "project").models).toEqual([]);
  });

  it("creates nothing when the file does not exist", async () => {
    expect(await removeAvailableModel(join(dir, ".pi", "subagent-isolation.json"), "a/a")).toEqual({ changed: false });
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe("$models: guarantees", () => {
  it("preserves every other key verbatim (agent entries, legacy strings, unknown keys)", async () => {
    writeFileSync(
      file,
      '{"$schema": "s", "coder": {"model": "a/a", "thinking": "high", "note": [1, {"x": null}]}, "writer": "w/w", "$models": ["a/a"], "zz": 1.0}',
    );
    await addAvailableModel(file, "b/b");
    expect(read()).toBe(
      [
        "{",
        '  "$schema": "s",',
        '  "coder": {',
        '    "model": "a/a",',
        '    "thinking": "high",',
        '    "note": [',
        "      1,",
        "      {",
        '        "x": null',
        "      }",
        "    ]",
        "  },",
        '  "writer": "w/w",',
        '  "$models": [',
        '    "a/a",',
        '    "b/b"',
        "  ],",
        '  "zz": 1.0',
        "}",
        "",
      ].join("\n"),
    );
  });

  it("refuses to touch an invalid-JSON file, for add and for remove", async () => {
    const original = '{"$models": ["a/a",]}';
    writeFileSync(file, original);
    for (const edit of [addAvailableModel(file, "b/b"), removeAvailableModel(file, "a/a")]) {
      const error = await edit.catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(WriteBackError);
      expect((error as WriteBackError).code).toBe("invalid-json");
    }
    expect(read()).toBe(original);
    expect(readdirSync(dir)).toEqual(["subagent-isolation.json"]);
  });

  it("refuses an empty id or an unknown action before any I/O", async () => {
    const nested = join(dir, "missing", "subagent-isolation.json");
    await expect(addAvailableModel(nested, "  ")).rejects.toThrow(WriteBackError);
    await expect(editModelsList(nested, { action: "rename", model: "a/a" } as never)).rejects.toThrow(WriteBackError);
    expect(existsSync(join(dir, "missing"))).toBe(false);
  });

  it("has a pure step that starts from an empty object", () => {
    expect(applyModelsListEdit(undefined, { action: "add", model: "a/a" })).toEqual({
      changed: true,
      text: '{\n  "$models": [\n    "a/a"\n  ]\n}\n',
    });
    expect(applyModelsListEdit(undefined, { action: "remove", model: "a/a" })).toEqual({ changed: false });
  });
});
