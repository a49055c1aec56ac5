/**
 * /subagent-agents' TUI view (src/pi/commands/agents-command.ts): the report's lines full screen, opened at the top, a long
 * line wrapped under its own indent, scrolled by the result viewer's keys, closed with Esc, q or Enter.
 */
import { describe, expect, it } from "vitest";
import { AgentsView } from "../../../../src/pi/commands/agents-command.ts";
import { plain, plainLines } from "./helpers.ts";

const LINES = [
  "Subagents the main agent can dispatch: 1",
  "",
  "explore · built-in",
  `  ${"word ".repeat(20).trim()}`,
  "  file: /agents/explore.md",
  "",
  "Left out:",
  "- /work/.pi/agents/broken.md · project: no frontmatter",
];

function view(rows: number, onClose = () => {}) {
  return new AgentsView({ lines: LINES, theme: plain, rows: () => rows, onClose });
}

describe("the /subagent-agents view", () => {
  it("shows the title, then the report from its top, a long line wrapped under its indent, and where it stands", () => {
    const lines = plainLines(view(20).render(60));
    expect(lines[0]).toBe(" Subagents the main agent can dispatch: 1");
    expect(lines.slice(2, 7)).toEqual([
      "",
      " explore · built-in",
      `   ${"word ".repeat(11).trim()}`,
      `   ${"word ".repeat(9).trim()}`,
      "   file: /agents/explore.md",
    ]);
    expect(lines).toHaveLength(20);
    expect(lines.at(-1)).toMatch(/^ 1-8 of 8 · ↑↓\/j\/k scroll/);
  });

  it("scrolls with G and g, and closes once with Esc, q or Enter", () => {
    let closed = 0;
    const small = view(8, () => closed++);
    expect(plainLines(small.render(60)).at(-1)).toMatch(/^ 1-4 of 8/);
    small.handleInput("G");
    const end = plainLines(small.render(60));
    expect(end).toContain(" - /work/.pi/agents/broken.md · project: no frontmatter");
    expect(end.at(-1)).toMatch(/^ 5-8 of 8/);
    small.handleInput("g");
    expect(plainLines(small.render(60)).at(-1)).toMatch(/^ 1-4 of 8/);
    small.handleInput("q");
    small.handleInput("\r");
    expect(closed).toBe(1);
  });
});
