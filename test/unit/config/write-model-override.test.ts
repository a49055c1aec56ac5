import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseConfigLayer, type ModelOverridePatch } from "../../../src/config/load.ts";
import { applyModelOverridePatch, writeModelOverride } from "../../../src/config/write.ts";
import { WriteBackError } from "../../../src/shared/safe-write.ts";

let dir: string;
let file: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "write-override-"));
  file = join(dir, "subagent-isolation.json");
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const read = () => readFileSync(file, "utf8");
const json = () => JSON.parse(read()) as Record<string, unknown>;

async function refusal(promise: Promise<unknown>): Promise<WriteBackError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(WriteBackError);
  return error as WriteBackError;
}

describe("writeModelOverride: validation before any I/O", () => {
  const invalidPatches: Array<[string, ModelOverridePatch]> = [
    ["empty model", { model: "" }],
    ["blank model", { model: "   " }],
    ["unknown thinking level", { thinking: "extreme" as never }],
    ["wrong-case thinking level", { thinking: "HIGH" as never }],
    ["model of the wrong type", { model: 42 as never }],
    ["unknown patch field", { model: "a/b", temperature: 1 } as never],
  ];
  for (const [what, patch] of invalidPatches) {
    it(`refuses ${what}: the existing file stays byte-identical`, async () => {
      const original = '{"coder":"a/b",  "x": 1}';
      writeFileSync(file, original);
      const error = await refusal(writeModelOverride(file, "coder", patch));
      expect(error.code).toBe("invalid-value");
      expect(read()).toBe(original);
      expect(readdirSync(dir)).toEqual(["subagent-isolation.json"]);
    });
  }

  for (const name of ["__proto__", "constructor", "prototype", "$models", "$schema", "", "a/b", "has space"]) {
    it(`refuses the agent name ${JSON.stringify(name)} without creating anything`, async () => {
      const nested = join(dir, "not-yet", "subagent-isolation.json");
      const error = await refusal(writeModelOverride(nested, name, { model: "a/b" }));
      expect(error.code).toBe("invalid-agent-name");
      expect(existsSync(join(dir, "not-yet"))).toBe(false);
    });
  }

  it("accepts every thinking level of the config format, max included", async () => {
    for (const level of ["off", "minimal", "low", "medium", "high", "xhigh", "max"] as const) {
      await writeModelOverride(file, `agent-${level}`, { thinking: level });
    }
    expect(json()).toEqual({
      "agent-off": { thinking: "off" },
      "agent-minimal": { thinking: "minimal" },
      "agent-low": { thinking: "low" },
      "agent-medium": { thinking: "medium" },
      "agent-high": { thinking: "high" },
      "agent-xhigh": { thinking: "xhigh" },
      "agent-max": { thinking: "max" },
    });
  });
});

describe("writeModelOverride: what is written", () => {
  it("creates the file (and its folder) when a patch sets something, pretty-printed with a final line break", async () => {
    const nested = join(dir, ".pi", "subagent-isolation.json");
    expect(
      await writeModelOverride(nested, "coder", { model: " deepseek/deepseek-v4-pro ", thinking: "high" }),
    ).toEqual({ changed: true });
    expect(readFileSync(nested, "utf8")).toBe(
      '{\n  "coder": {\n    "model": "deepseek/deepseek-v4-pro",\n    "thinking": "high"\n  }\n}\n',
    );
    expect(readdirSync(join(dir, ".pi"))).toEqual(["subagent-isolation.json"]);
  });

  it("preserves unknown top-level keys and unknown fields inside the entry, in their order", async () => {
    writeFileSync(
      file,
      JSON.stringify({
        $schema: "https://example.com/s.json",
        $models: ["a/b", 7, "  c/d "],
        coder: { note: "keep me", model: "old/model", extra: { deep: [1, 2] }, thinking: "low" },
        writer: "w/model",
        future: { unknown: true },
      }),
    );
    await writeModelOverride(file, "coder", { model: "new/model" });
    expect(read()).toBe(
      [
        "{",
        '  "$schema": "https://example.com/s.json",',
        '  "$models": [',
        '    "a/b",',
        "    7,",
        '    "  c/d "',
        "  ],",
        '  "coder": {',
        '    "note": "keep me",',
        '    "model": "new/model",',
        '    "extra": {',
        '      "deep": [',
        "        1,",
        "        2",
        "      ]",
        "    },",
        '    "thinking": "low"',
        "  },",
        '  "writer": "w/model",',
        '  "future": {',
        '    "unknown": true',
        "  }",
        "}",
        "",
      ].join("\n"),
    );
  });

  it("upgrades a legacy string entry to object form where it stands", async () => {
    writeFileSync(file, JSON.stringify({ first: 1, writer: "w/model", last: 2 }));
    await writeModelOverride(file, "writer", { thinking: "medium" });
    expect(Object.keys(json())).toEqual(["first", "writer", "last"]);
    expect(json().writer).toEqual({ model: "w/model", thinking: "medium" });
  });

  it("adds a new agent at the end and keeps existing keys where they are", async () => {
    writeFileSync(file, '{"zed": {"model": "z/z"}, "42": {"model": "n/n"}, "alpha": "a/a"}');
    await writeModelOverride(file, "zed", { model: "z/2" });
    await writeModelOverride(file, "beta", { model: "b/b" });
    expect(read()).toBe(
      '{\n  "zed": {\n    "model": "z/2"\n  },\n  "42": {\n    "model": "n/n"\n  },\n  "alpha": "a/a",\n  "beta": {\n    "model": "b/b"\n  }\n}\n',
    );
  });

  it("sets, clears and leaves each field independently (string sets, null clears, undefined leaves)", async () => {
    await writeModelOverride(file, "coder", { model: "a/b", thinking: "high" });
    await writeModelOverride(file, "coder", { model: undefined, thinking: "low" });
    expect(json().coder).toEqual({ model: "a/b", thinking: "low" });
    await writeModelOverride(file, "coder", { thinking: null });
    expect(json().coder).toEqual({ model: "a/b" });
  });

  it("removes the whole key when both fields are cleared, leaving no empty object", async () => {
    writeFileSync(file, JSON.stringify({ coder: { model: "a/b", thinking: "high", note: "x" }, other: "o/o" }));
    await writeModelOverride(file, "coder", { model: null, thinking: null });
    expect(read()).toBe('{\n  "other": "o/o"\n}\n');
  });

  it("removes the key when clearing the last remaining field", async () => {
    writeFileSync(file, JSON.stringify({ coder: { thinking: "high" } }));
    await writeModelOverride(file, "coder", { thinking: null });
    expect(read()).toBe("{}\n");
  });

  it("treats the clear of a missing entry as a no-op: the file is not rewritten", async () => {
    const original = '{ "other": "o/o" }';
    writeFileSync(file, original);
    const before = statSync(file).mtimeMs;
    expect(await writeModelOverride(file, "coder", { model: null, thinking: null })).toEqual({ changed: false });
    expect(read()).toBe(original);
    expect(statSync(file).mtimeMs).toBe(before);
  });

  it("creates no file, no folder and no lock for the clear of a missing entry in a missing file", async () => {
    const nested = join(dir, ".pi", "subagent-isolation.json");
    expect(await writeModelOverride(nested, "coder", { model: null, thinking: null })).toEqual({ changed: false });
    expect(readdirSync(dir)).toEqual([]);
  });

  it("does not rewrite the file when the value is already there", async () => {
    const original = '{"coder": {"model": "a/b", "thinking": "high"}}';
    writeFileSync(file, original);
    expect(await writeModelOverride(file, "coder", { model: "a/b", thinking: "high" })).toEqual({ changed: false });
    expect(read()).toBe(original);
  });

  it("refuses an invalid-JSON file and leaves it byte-identical", async () => {
    const original = '{ "coder": { "model": "a/b", }\n';
    writeFileSync(file, original);
    const error = await refusal(writeModelOverride(file, "coder", { model: "c/d" }));
    expect(error.code).toBe("invalid-json");
    expect(error.message).toContain(file);
    expect(read()).toBe(original);
    expect(readdirSync(dir)).toEqual(["subagent-isolation.json"]);
  });

  for (const nonObject of ["[]", '"text"', "null", "42"]) {
    it(`refuses a file whose top level is ${nonObject}`, async () => {
      writeFileSync(file, nonObject);
      const error = await refusal(writeModelOverride(file, "coder", { model: "c/d" }));
      expect(error.code).toBe("not-an-object");
      expect(read()).toBe(nonObject);
    });
  }

  it("tolerates a UTF-8 BOM on read", async () => {
    writeFileSync(file, '\uFEFF{"writer": "w/w"}');
    await writeModelOverride(file, "coder", { model: "c/c" });
    expect(json()).toEqual({ writer: "w/w", coder: { model: "c/c" } });
  });

  it("keeps CRLF line breaks of a CRLF file", async () => {
    writeFileSync(file, '{\r\n  "writer": "w/w"\r\n}\r\n');
    await writeModelOverride(file, "coder", { model: "c/c" });
    expect(read()).toBe('{\r\n  "writer": "w/w",\r\n  "coder": {\r\n    "model": "c/c"\r\n  }\r\n}\r\n');
  });

  it("treats an empty file as an empty object", async () => {
    writeFileSync(file, "");
    await writeModelOverride(file, "coder", { model: "c/c" });
    expect(json()).toEqual({ coder: { model: "c/c" } });
  });

  it("replaces an entry readers ignore (a number, a list) instead of keeping it", async () => {
    writeFileSync(file, JSON.stringify({ coder: 5, writer: ["x"] }));
    await writeModelOverride(file, "coder", { model: "c/c" });
    await writeModelOverride(file, "writer", { thinking: "low" });
    expect(json()).toEqual({ coder: { model: "c/c" }, writer: { thinking: "low" } });
  });

  it("leaves the old file and no temp or lock file when the write fails at the last moment", async () => {
    const original = '{"coder": "a/b"}';
    writeFileSync(file, original);
    const failure = await writeModelOverride(
      file,
      "coder",
      { model: "c/d" },
      {
        atomic: {
          beforeRename: () => {
            throw new Error("disk full");
          },
        },
      },
    ).catch((error: Error) => error);
    expect((failure as Error).message).toBe("disk full");
    expect(read()).toBe(original);
    expect(readdirSync(dir)).toEqual(["subagent-isolation.json"]);
  });

  it("writes what the config reader then reads", async () => {
    await writeModelOverride(file, "coder", { model: "a/b", thinking: "xhigh" });
    await writeModelOverride(file, "writer", { model: "w/w" });
    const layer = parseConfigLayer(read(), "user", file);
    expect(layer.warnings).toEqual([]);
    expect({ ...layer.entries }).toEqual({ coder: { model: "a/b", thinking: "xhigh" }, writer: { model: "w/w" } });
  });
});

describe("applyModelOverridePatch (the pure step)", () => {
  it("starts from an empty object when there is no file", () => {
    expect(applyModelOverridePatch(undefined, "coder", { model: "a/b" })).toEqual({
      changed: true,
      text: '{\n  "coder": {\n    "model": "a/b"\n  }\n}\n',
    });
    expect(applyModelOverridePatch(undefined, "coder", { model: null })).toEqual({ changed: false });
  });

  it("throws WriteBackError for a reserved name before looking at the text", () => {
    expect(() => applyModelOverridePatch("not json at all", "__proto__", { model: "a/b" })).toThrow(WriteBackError);
  });

  it("a save into a file that repeats the agent's key takes effect: every reader then sees the new model", () => {
    // JSON.parse (each reader) takes the last of repeated keys; an editor that changed only the first would save
    // nothing the person could see (jsonc-parser's modify does that, so it was not adopted).
    const text =
      '{\n  "coder": {\n    "model": "first/first"\n  },\n  "writer": "w/w",\n  "coder": {\n    "model": "last/last"\n  }\n}\n';
    const outcome = applyModelOverridePatch(text, "coder", { model: "new/model" });
    expect(outcome.changed).toBe(true);
    const saved = outcome.changed ? outcome.text : "";
    expect((JSON.parse(saved) as { coder: { model: string } }).coder.model).toBe("new/model");
    expect(saved.match(/"coder"/g)).toHaveLength(1);
  });
});

describe("writeModelOverride: sandbox", () => {
  it("writes a sandbox, and keeps an entry that still holds one when its model is cleared", async () => {
    writeFileSync(file, JSON.stringify({ worker: { model: "a/b" } }, null, 2));
    await writeModelOverride(file, "worker", { sandbox: "read-only" });
    expect(json()).toEqual({ worker: { model: "a/b", sandbox: "read-only" } });
    await writeModelOverride(file, "worker", { model: null });
    expect(json()).toEqual({ worker: { sandbox: "read-only" } });
    expect(parseConfigLayer(read(), "user", file).entries["worker"]).toEqual({ sandbox: "read-only" });
    await writeModelOverride(file, "worker", { sandbox: null });
    expect(json()).toEqual({});
  });

  it("keeps an entry that still holds a loopGuard when its model is cleared (turning the guard off is kept)", async () => {
    writeFileSync(file, JSON.stringify({ worker: { model: "a/b", loopGuard: false } }, null, 2));
    await writeModelOverride(file, "worker", { model: null });
    expect(json()).toEqual({ worker: { loopGuard: false } });
    expect(parseConfigLayer(read(), "user", file).entries["worker"]).toEqual({ loopGuard: Infinity });
  });

  it("refuses a level that is none of the three", async () => {
    const error = await refusal(writeModelOverride(file, "worker", { sandbox: "strict" as never }));
    expect(error.message).toBe('Not saved: the sandbox must be one of off, workspace-write, read-only (got "strict").');
  });
});
