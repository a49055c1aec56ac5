import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { doubleQuoted, formatYamlScalar, isPlainSafe } from "../../../src/agents/edit-agent-file.ts";

/** What a reader gets back from `key: <formatted>`, under YAML 1.2 and YAML 1.1. */
function readBack(formatted: string): { v12: unknown; v11: unknown } {
  return {
    v12: (parse(`key: ${formatted}`) as Record<string, unknown>).key,
    v11: (parse(`key: ${formatted}`, { version: "1.1" }) as Record<string, unknown>).key,
  };
}

describe("formatYamlScalar", () => {
  const plain = [
    "Writes clean TypeScript and handles refactors.",
    "deepseek/deepseek-v4-pro",
    "read, edit, write, bash",
    "/path/to/skill1, /path/to/skill2",
    "claude-3-7-sonnet",
    "a [bracket] inside",
    "high",
    "x-1",
  ];
  for (const value of plain) {
    it(`writes ${JSON.stringify(value)} plain`, () => {
      expect(formatYamlScalar(value)).toBe(value);
      expect(readBack(value)).toEqual({ v12: value, v11: value });
    });
  }

  const quoted: Array<[string, string, string]> = [
    ["a colon", "openai/gpt-4o:high", '"openai/gpt-4o:high"'],
    ["a colon and space", "Role: reviewer", '"Role: reviewer"'],
    ["a hash", "C# expert", '"C# expert"'],
    ["a leading hash", "#1 helper", '"#1 helper"'],
    ["double quotes", 'say "hi"', '"say \\"hi\\""'],
    ["a single quote", "it's fine", '"it\'s fine"'],
    ["CJK", "编写代码的助手", '"编写代码的助手"'],
    ["a leading digit", "3d modeler", '"3d modeler"'],
    ["a number", "123", '"123"'],
    ["a date", "2024-01-01", '"2024-01-01"'],
    ["true", "true", '"true"'],
    ["False", "False", '"False"'],
    ["null", "null", '"null"'],
    ["a tilde", "~", '"~"'],
    ["yes", "yes", '"yes"'],
    ["No", "No", '"No"'],
    ["off (a YAML 1.1 boolean)", "off", '"off"'],
    ["on", "on", '"on"'],
    ["y", "y", '"y"'],
    ["a leading space", " padded", '" padded"'],
    ["a trailing space", "padded ", '"padded "'],
    ["an empty string", "", '""'],
    ["a leading dash and space", "- item", '"- item"'],
    ["a leading bracket", "[a, b]", '"[a, b]"'],
    ["a leading brace", "{a}", '"{a}"'],
    ["a leading star", "*alias", '"*alias"'],
    ["a leading ampersand", "&anchor", '"&anchor"'],
    ["a leading bang", "!tag", '"!tag"'],
    ["a leading pipe", "| block", '"| block"'],
    ["a leading greater-than", "> folded", '"> folded"'],
    ["a leading at", "@scope/pkg", '"@scope/pkg"'],
    ["a leading percent", "%TAG", '"%TAG"'],
    ["a backtick", "`code`", '"`code`"'],
    ["a backslash", "C:\\tools", '"C:\\\\tools"'],
    ["a tab", "a\tb", '"a\\tb"'],
    ["a line break", "a\nb", '"a\\nb"'],
    ["a control character", "a\u0007b", '"a\\u0007b"'],
    ["a line separator", "a\u2028b", '"a\\u2028b"'],
    ["an emoji", "ship it 🚀", '"ship it 🚀"'],
    [".inf", ".inf", '".inf"'],
    ["a hex number", "0x1f", '"0x1f"'],
  ];
  for (const [what, value, expected] of quoted) {
    it(`double-quotes a value with ${what}, and it reads back exactly`, () => {
      expect(isPlainSafe(value)).toBe(false);
      expect(formatYamlScalar(value)).toBe(expected);
      expect(readBack(expected)).toEqual({ v12: value, v11: value });
    });
  }

  it("escapes lone surrogates so the line stays valid", () => {
    expect(doubleQuoted("a\uD800b")).toBe('"a\\ud800b"');
  });
});
