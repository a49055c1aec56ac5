import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  applyAgentFilePatch,
  replaceAgentBody,
  setAgentBody,
  updateAgentFile,
  type AgentFilePatch,
} from "../../../src/agents/edit-agent-file.ts";
import { parseAgentFile } from "../../../src/agents/parse.ts";
import { WriteBackError } from "../../../src/shared/safe-write.ts";

let dir: string;
let file: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "edit-agent-"));
  file = join(dir, "coder.md");
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const CODER = [
  "---",
  "name: coder",
  "description: Writes clean TypeScript and handles refactors.",
  "# a comment the editor must keep",
  "tools: read, edit, write, bash",
  "x-unknown-key:   kept exactly   # with its comment",
  "model: old/model",
  "---",
  "",
  "You are a senior TypeScript engineer.",
  "  Indented body line with trailing spaces   ",
  "",
].join("\n");

const read = () => readFileSync(file, "utf8");

function edited(text: string, patch: AgentFilePatch): string {
  const outcome = applyAgentFilePatch(text, patch);
  if (!outcome.changed) throw new Error("expected a change");
  return outcome.text;
}

/** The lines of `after` that differ from `before` (same line count assumed). */
function changedLines(before: string, after: string): Array<[string | undefined, string | undefined]> {
  const a = before.split("\n");
  const b = after.split("\n");
  const out: Array<[string | undefined, string | undefined]> = [];
  for (let i = 0; i < Math.max(a.length, b.length); i++) if (a[i] !== b[i]) out.push([a[i], b[i]]);
  return out;
}

function agentOf(text: string) {
  const parsed = parseAgentFile(text, file, "user");
  if (!parsed.ok) throw new Error(parsed.reason);
  return parsed.agent;
}

async function refusedOnDisk(
  original: string,
  patch: AgentFilePatch,
  code: WriteBackError["code"],
): Promise<WriteBackError> {
  writeFileSync(file, original);
  const error = await updateAgentFile(file, patch).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(WriteBackError);
  expect((error as WriteBackError).code).toBe(code);
  expect(read()).toBe(original);
  expect(readdirSync(dir)).toEqual(["coder.md"]);
  return error as WriteBackError;
}

describe("updateAgentFile: line-level edits", () => {
  it("replaces only the target line; every other byte stays", () => {
    const after = edited(CODER, { model: "deepseek/deepseek-v4-pro" });
    expect(changedLines(CODER, after)).toEqual([["model: old/model", "model: deepseek/deepseek-v4-pro"]]);
  });

  it("deletes the key line for tools/skills/model/thinking set to null or empty", () => {
    for (const patch of [{ tools: null }, { tools: "" }, { tools: [] }, { tools: " , ," }] as AgentFilePatch[]) {
      const after = edited(CODER, patch);
      expect(after).toBe(CODER.replace("tools: read, edit, write, bash\n", ""));
    }
    expect(edited(CODER, { model: null })).toBe(CODER.replace("model: old/model\n", ""));
    expect(edited(CODER, { model: "" })).toBe(CODER.replace("model: old/model\n", ""));
  });

  it("appends a new key at the end of the frontmatter, before the closing line", () => {
    const after = edited(CODER, { thinking: "high", skills: ["/skills/a", "/skills/b"] });
    expect(after).toBe(
      CODER.replace("model: old/model\n---\n", "model: old/model\nskills: /skills/a, /skills/b\nthinking: high\n---\n"),
    );
    expect(agentOf(after)).toMatchObject({ thinking: "high", skills: ["/skills/a", "/skills/b"], model: "old/model" });
  });

  it("writes several keys in one patch and the reader sees exactly them", () => {
    const after = edited(CODER, { description: "Reviews code", tools: ["read", "grep"], model: null, thinking: "max" });
    const agent = agentOf(after);
    expect(agent).toMatchObject({
      name: "coder",
      description: "Reviews code",
      tools: ["read", "grep"],
      thinking: "max",
    });
    expect(agent.model).toBeUndefined();
    expect(agent.body).toBe("You are a senior TypeScript engineer.\n  Indented body line with trailing spaces");
    expect(after).toContain("x-unknown-key:   kept exactly   # with its comment\n");
    expect(after).toContain("# a comment the editor must keep\n");
    expect(
      after.endsWith("---\n\nYou are a senior TypeScript engineer.\n  Indented body line with trailing spaces   \n"),
    ).toBe(true);
  });

  it("keeps a line as written (quoting, comment) when the value is already the same, and reports no change", async () => {
    const text = CODER.replace("model: old/model", 'model: "old/model" # pinned');
    expect(applyAgentFilePatch(text, { model: "old/model", tools: "read,edit , write,bash" })).toEqual({
      changed: false,
    });
    writeFileSync(file, text);
    const before = statSync(file).mtimeMs;
    expect(await updateAgentFile(file, { model: "old/model" })).toEqual({ changed: false });
    expect(read()).toBe(text);
    expect(statSync(file).mtimeMs).toBe(before);
  });

  const quotingCases: Array<[string, AgentFilePatch, string]> = [
    ["a colon", { model: "openai/gpt-4o:high" }, 'model: "openai/gpt-4o:high"'],
    ["a hash", { description: "C# and F# expert" }, 'description: "C# and F# expert"'],
    ["quotes", { description: 'Says "hello" and it\'s fine' }, 'description: "Says \\"hello\\" and it\'s fine"'],
    ["CJK", { description: "编写和重构代码" }, 'description: "编写和重构代码"'],
    ["a leading digit", { description: "3D modelling helper" }, 'description: "3D modelling helper"'],
    ["a true look-alike", { description: "true" }, 'description: "true"'],
    ["a null look-alike", { model: "null" }, 'model: "null"'],
    ["a yes look-alike", { description: "yes" }, 'description: "yes"'],
    ["the off level", { thinking: "off" }, 'thinking: "off"'],
    [
      "a plain description",
      { description: "Reviews pull requests, carefully." },
      "description: Reviews pull requests, carefully.",
    ],
  ];
  for (const [what, patch, line] of quotingCases) {
    it(`writes a value with ${what} so that it reads back exactly`, () => {
      const after = edited(CODER, patch);
      expect(after.split("\n")).toContain(line);
      const agent = agentOf(after);
      for (const [key, value] of Object.entries(patch)) expect(agent[key as keyof typeof agent]).toBe(value);
    });
  }

  it("keeps CRLF line breaks, appended lines included", () => {
    const crlf = CODER.replace(/\n/g, "\r\n");
    const after = edited(crlf, { model: "a/b", thinking: "low", tools: null });
    expect(after.replace(/\r\n/g, "")).not.toContain("\n");
    expect(after).toBe(
      crlf
        .replace("tools: read, edit, write, bash\r\n", "")
        .replace("model: old/model\r\n", "model: a/b\r\nthinking: low\r\n"),
    );
  });

  it("keeps a BOM", () => {
    const after = edited(`\uFEFF${CODER}`, { model: "a/b" });
    expect(after.startsWith("\uFEFF---\n")).toBe(true);
    expect(agentOf(after).model).toBe("a/b");
  });

  it("handles a file that ends right after the closing line", () => {
    const bare = "---\nname: coder\ndescription: d\n---";
    expect(edited(bare, { model: "a/b" })).toBe("---\nname: coder\ndescription: d\nmodel: a/b\n---");
  });
});

describe("updateAgentFile: refusals leave the file byte-identical", () => {
  it("refuses any patch containing name, even the same name or mixed with valid keys", async () => {
    for (const patch of [
      { name: "renamed" },
      { name: "coder" },
      { name: "renamed", model: "a/b" },
      { name: undefined, model: "a/b" },
    ] as AgentFilePatch[]) {
      const error = await refusedOnDisk(CODER, patch, "name-read-only");
      expect(error.message).toContain("identity");
    }
  });

  const multiLine: Array<[string, string, AgentFilePatch]> = [
    ["a literal block scalar", "description: |\n  Line one\n  Line two\n", { description: "new" }],
    ["a folded block scalar", "description: >-\n  Folded\n  text\n", { description: "new" }],
    ["indented continuation lines", "description: first part\n  continued here\n", { description: "new" }],
    ["YAML list items", "tools:\n  - read\n  - edit\n", { tools: "bash" }],
    ["unindented list items", "tools:\n- read\n- edit\n", { tools: null }],
    ["a multi-line quoted value", 'description: "first\n  second"\n', { description: "new" }],
  ];
  for (const [what, lines, patch] of multiLine) {
    it(`refuses to patch a key whose value is ${what}, with a hint to edit by hand`, async () => {
      const original = `---\nname: coder\n${lines}model: a/b\n---\nBody\n`;
      const error = await refusedOnDisk(original, { ...patch, model: "changed/too" }, "multi-line-value");
      expect(error.message).toContain("Edit the file by hand");
    });
  }

  it("edits other keys freely when a multi-line key is not patched", () => {
    const original =
      "---\nname: coder\ndescription: |\n  Line one\n  Line two\ntools:\n  - read\nmodel: a/b\n---\nBody\n";
    const after = edited(original, { model: "c/d", thinking: "high" });
    expect(after).toBe(
      "---\nname: coder\ndescription: |\n  Line one\n  Line two\ntools:\n  - read\nmodel: c/d\nthinking: high\n---\nBody\n",
    );
  });

  const invalid: Array<[string, AgentFilePatch]> = [
    ["an empty description", { description: "" }],
    ["a blank description", { description: "   " }],
    ["a null description", { description: null as never }],
    ["an unknown thinking level", { thinking: "turbo" as never }],
    ["an unknown key", { color: "red" } as never],
    ["a line break in a value", { model: "a\nb" }],
    ["a list item containing a comma", { tools: ["read,edit"] }],
    ["a list of non-strings", { skills: [1, 2] as never }],
  ];
  for (const [what, patch] of invalid) {
    it(`refuses ${what}`, async () => {
      await refusedOnDisk(CODER, { model: "would/change", ...patch }, "invalid-value");
    });
  }

  it("refuses a file without frontmatter, or with invalid YAML in it", async () => {
    await refusedOnDisk("# just markdown\n", { model: "a/b" }, "no-frontmatter");
    await refusedOnDisk("---\nname: coder\n", { model: "a/b" }, "no-frontmatter");
    await refusedOnDisk("---\nname: coder\ndescription: [unclosed\n---\n", { model: "a/b" }, "invalid-frontmatter");
  });

  it("refuses rather than write a file that would not read back as intended (a quoted key the line scan cannot see)", async () => {
    await refusedOnDisk('---\nname: coder\ndescription: d\n"model": a/b\n---\n', { model: "c/d" }, "multi-line-value");
  });

  it("leaves the old file when the write fails at the last moment", async () => {
    writeFileSync(file, CODER);
    const failure = await updateAgentFile(
      file,
      { model: "a/b" },
      {
        atomic: {
          beforeRename: () => {
            throw new Error("simulated crash");
          },
        },
      },
    ).catch((error: Error) => error);
    expect((failure as Error).message).toBe("simulated crash");
    expect(read()).toBe(CODER);
    expect(readdirSync(dir)).toEqual(["coder.md"]);
  });

  it("loses no update when two edits of one file run at the same time", async () => {
    writeFileSync(file, CODER);
    await Promise.all([
      updateAgentFile(file, { model: "a/b" }),
      updateAgentFile(file, { thinking: "low" }),
      updateAgentFile(file, { tools: "read" }),
    ]);
    expect(agentOf(read())).toMatchObject({ model: "a/b", thinking: "low", tools: ["read"] });
    expect(readdirSync(dir)).toEqual(["coder.md"]);
  });
});

describe("setAgentBody", () => {
  it("replaces the body and keeps the frontmatter bytes and the blank separator line", async () => {
    writeFileSync(file, CODER);
    expect(await setAgentBody(file, "New system prompt.\nSecond line.\n\n\n")).toEqual({ changed: true });
    const frontmatter = CODER.slice(0, CODER.indexOf("---\n\n") + 5);
    expect(read()).toBe(`${frontmatter}New system prompt.\nSecond line.\n`);
  });

  it("uses the file's CRLF line breaks for the new body and keeps a BOM", () => {
    const crlf = `\uFEFF${CODER.replace(/\n/g, "\r\n")}`;
    const outcome = replaceAgentBody(crlf, "One\nTwo");
    expect(outcome.changed && outcome.text).toBe(`${crlf.slice(0, crlf.indexOf("---\r\n\r\n") + 7)}One\r\nTwo\r\n`);
  });

  it("adds a blank line after the frontmatter when there was no body", () => {
    const outcome = replaceAgentBody("---\nname: a\ndescription: d\n---", "Prompt");
    expect(outcome).toEqual({
      changed: true,
      text: "---\nname: a\ndescription: d\n---\nPrompt\n".replace("---\nPrompt", "---\n\nPrompt"),
    });
  });

  it("reports no change when the body is the same, and refuses a blank body", async () => {
    writeFileSync(file, "---\nname: a\ndescription: d\n---\n\nSame body\n");
    expect(await setAgentBody(file, "Same body")).toEqual({ changed: false });
    await expect(setAgentBody(file, " \n\t")).rejects.toThrow(WriteBackError);
    expect(read()).toBe("---\nname: a\ndescription: d\n---\n\nSame body\n");
  });
});
