import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { applyAgentFilePatch, EDITABLE_AGENT_KEYS, type AgentFilePatch } from "../../../src/agents/edit-agent-file.ts";
import { parseAgentFile } from "../../../src/agents/parse.ts";
import { WriteBackError } from "../../../src/shared/safe-write.ts";

/*
 * The person's file changes only where the edit is. The corpus that decided against yaml's Document API
 * (which re-serialises the whole frontmatter: it folded long descriptions, squeezed spaces before comments,
 * wrote 0755 as 755 and refolded block scalars): our built-in agents plus hand-made odd files. Every edit
 * below must leave every line that is not a patched key's line byte for byte as it was, in the same order.
 */
const ODD_FILES: Record<string, string> = {
  "comments and padding":
    "---\nname: coder\ndescription: Writes clean TypeScript.\n# a comment the editor must keep\ntools: read, edit, write, bash\nx-unknown-key:   kept exactly   # with its comment\nmodel: old/model\n---\n\nBody\n  Indented body line with trailing spaces   \n",
  quotes:
    "---\nname: quoted\ndescription: 'It''s single-quoted: yes'\ntools: \"read, grep\"\nmodel: \"old/model\"   # pinned\nthinking: 'high'\n---\nBody\n",
  "block scalars elsewhere":
    "---\nname: blocky\nx-notes: >\n  folded text\n  continues\nx-list:\n  - a\n  - b\ndescription: d\nmodel: a/b\n---\nBody\n",
  crlf: "---\r\nname: crlf\r\ndescription: Windows line breaks\r\ntools: read, ls\r\nmodel: a/b\r\n---\r\n\r\nBody line\r\n",
  unicode:
    "---\nname: unicode\ndescription: 中文描述 — with an em dash and émojis 🎉\nx-jp: 日本語\nmodel: a/b\n---\nBody ✓\n",
  "key order and flow collections":
    "---\nmodel: z/z\nx-b:   2\nname: order\n\ndescription:    spaced   out\nx-a: [1,2,   3]\nx-map: {a: 1, b: 2}\ntools: read,grep\n---\nBody\n",
  bom: "\uFEFF---\nname: bom\ndescription: has a BOM\n---\nBody\n",
  "yaml 1.1 lookalikes":
    '---\nname: lookalikes\ndescription: "yes"\nx-octal: 0755\nx-date: 2024-01-01\nx-null: ~\nx-anchor: &a value\nx-alias: *a\nmodel: a/b\n---\nBody\n',
  "no final line break": "---\nname: nofinal\ndescription: d\n---",
};

const BUILT_IN = ["explore", "general-purpose", "planner", "reviewer"];

const CORPUS: [string, string][] = [
  ...BUILT_IN.map((name): [string, string] => [
    `agents/${name}.md`,
    readFileSync(join(import.meta.dirname, "../../../agents", `${name}.md`), "utf8"),
  ]),
  ...Object.entries(ODD_FILES),
];

const EDITS: AgentFilePatch[] = [
  { model: "new/model" },
  { thinking: "high" },
  { tools: null },
  { description: "A new: description, with 'quotes' and 中文" },
  { model: null, thinking: "low" },
  { tools: ["read", "grep"], skills: "/skills/a" },
];

/** The file's lines with their line breaks, minus the lines of the patched keys (and a BOM kept apart). */
function untouchedLines(text: string, patch: AgentFilePatch): string[] {
  const keys = Object.keys(patch).filter((key) => (EDITABLE_AGENT_KEYS as readonly string[]).includes(key));
  const keyLine = new RegExp(`^(?:${keys.join("|")})[ \\t]*:`);
  return (text.match(/[^\n]*\n|[^\n]+$/g) ?? []).filter((line) => !keyLine.test(line));
}

describe("agent file edits change only the edited lines (a corpus of real and odd files)", () => {
  for (const [label, text] of CORPUS) {
    for (const patch of EDITS) {
      it(`${label}: ${JSON.stringify(patch)}`, () => {
        const outcome = applyAgentFilePatch(text, patch);
        const after = outcome.changed ? outcome.text : text;
        expect(untouchedLines(after, patch)).toEqual(untouchedLines(text, patch));
        // And the edit is there when the file is read back the way the roster reads it.
        const parsed = parseAgentFile(after.replace(/^\uFEFF/, ""), "/agents/x.md", "user");
        expect(parsed.ok, label).toBe(true);
        const agent = parsed.ok ? parsed.agent : undefined;
        if (patch.model !== undefined) expect(agent?.model).toBe(patch.model ?? undefined);
        if (patch.thinking !== undefined) expect(agent?.thinking).toBe(patch.thinking ?? undefined);
        if (patch.description !== undefined) expect(agent?.description).toBe(patch.description);
      });
    }
  }

  it("a patched key whose value spans several lines is refused, leaving nothing to diff", () => {
    const text = "---\nname: blocky\ndescription: |\n  Line one\n  Line two\ntools:\n  - read\n---\nBody\n";
    for (const patch of [{ tools: null }, { description: "one line" }] satisfies AgentFilePatch[]) {
      let caught: unknown;
      try {
        applyAgentFilePatch(text, patch);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(WriteBackError);
      expect((caught as WriteBackError).code).toBe("multi-line-value");
    }
  });
});
