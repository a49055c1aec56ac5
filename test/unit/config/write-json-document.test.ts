import { describe, expect, it } from "vitest";
import { isJsonObject, parseJsonDocument, stringifyJsonDocument, type JsonValue } from "../../../src/config/write.ts";

function roundTrip(text: string): string {
  const parsed = parseJsonDocument(text);
  if (!parsed.ok) throw new Error(parsed.reason);
  return stringifyJsonDocument(parsed.root, parsed.eol);
}

describe("the write side's ordered JSON document", () => {
  it("prints an ordinary document exactly like JSON.stringify(value, null, 2) plus a line break", () => {
    const value = {
      $schema: "https://example.com/schema.json",
      $models: ["a/b", "c/d"],
      coder: {
        model: "a/b",
        thinking: "high",
        note: { nested: [1, 2.5, -3e-7, true, false, null], empty: {}, list: [] },
      },
      writer: "c/d",
      'with "quotes" and \\ and \n': "é 中文 \u0001",
    };
    const compact = JSON.stringify(value);
    expect(roundTrip(compact)).toBe(`${JSON.stringify(value, null, 2)}\n`);
  });

  it("keeps key order, integer-like keys included, and an existing key where it is", () => {
    const text = '{"zeta": 1, "42": 2, "alpha": 3, "7": 4}';
    expect(roundTrip(text)).toBe('{\n  "zeta": 1,\n  "42": 2,\n  "alpha": 3,\n  "7": 4\n}\n');
    // Plain objects would have moved "7" and "42" to the front.
    expect(Object.keys(JSON.parse(text) as object)).toEqual(["7", "42", "zeta", "alpha"]);
  });

  it("keeps numbers exactly as written and a __proto__ key as an ordinary key", () => {
    const text = '{"id": 12345678901234567890123, "small": 1.50, "exp": 1E+2, "__proto__": {"polluted": true}}';
    expect(roundTrip(text)).toBe(
      '{\n  "id": 12345678901234567890123,\n  "small": 1.50,\n  "exp": 1E+2,\n  "__proto__": {\n    "polluted": true\n  }\n}\n',
    );
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("resolves a repeated key like JSON.parse: first position, last value", () => {
    expect(roundTrip('{"a": 1, "b": 2, "a": 3}')).toBe('{\n  "a": 3,\n  "b": 2\n}\n');
  });

  it("ignores a UTF-8 BOM, keeps CRLF line breaks, and reads an empty file as an empty object", () => {
    expect(roundTrip('\uFEFF{"a":1}')).toBe('{\n  "a": 1\n}\n');
    expect(roundTrip('{\r\n  "a": [1]\r\n}\r\n')).toBe('{\r\n  "a": [\r\n    1\r\n  ]\r\n}\r\n');
    const empty = parseJsonDocument(" \n");
    expect(empty.ok && isJsonObject(empty.root) && empty.root.size === 0).toBe(true);
  });

  it("refuses invalid JSON with JSON.parse's reason", () => {
    for (const bad of ['{"a": 1,}', "{a: 1}", '{"a": 1', "// comment\n{}", "[1, 2"]) {
      const parsed = parseJsonDocument(bad);
      expect(parsed.ok, bad).toBe(false);
      if (!parsed.ok) expect(parsed.reason.length).toBeGreaterThan(0);
    }
  });

  it("parses non-object roots (the writers refuse them, not the parser)", () => {
    const parsed = parseJsonDocument('["a"]');
    expect(parsed.ok && Array.isArray(parsed.root)).toBe(true);
    const root = (parsed as { root: JsonValue }).root;
    expect(stringifyJsonDocument(root)).toBe('[\n  "a"\n]\n');
  });
});
