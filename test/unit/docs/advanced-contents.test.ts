/**
 * The docs stay navigable and true to the tree: ADVANCED.md's contents table lists exactly its `##` and `###`
 * headings, in order, each linked with the anchor GitHub gives it; and every module path `src/….ts` that
 * ADVANCED.md, ARCHITECTURE.md, README.md or test/README.md cites exists. Fenced code blocks are left out of
 * both: their lines are examples (an envelope whose first line starts with `## `, a watch view reading
 * `src/auth.ts`), not headings or citations.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../harness/pi-env.ts";

interface Line {
  number: number;
  text: string;
}

interface Entry {
  level: number;
  text: string;
  anchor: string;
}

const read = (file: string) => readFileSync(join(REPO_ROOT, file), "utf8");

/** The lines outside fenced code blocks (``` or ~~~, indented up to 3 spaces, as in CommonMark), numbered from 1. */
function proseLines(markdown: string): Line[] {
  const lines: Line[] = [];
  let fence: string | undefined;
  markdown.split("\n").forEach((text, index) => {
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(text)?.[1];
    if (fence !== undefined) {
      // Closed by a run of the same character, at least as long, with nothing after it.
      if (marker && marker[0] === fence[0] && marker.length >= fence.length && text.trim() === marker) fence = undefined;
    } else if (marker) {
      fence = marker;
    } else {
      lines.push({ number: index + 1, text });
    }
  });
  return lines;
}

/** GitHub's anchor for a heading (as github-slugger makes it): lower case, punctuation dropped, each space a hyphen. */
function slug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, "")
    .replace(/ /g, "-");
}

/** Every heading outside code blocks, with its anchor; a repeated anchor gets `-1`, `-2`, … as on GitHub. */
function headings(markdown: string): Entry[] {
  const seen = new Map<string, number>();
  return proseLines(markdown).flatMap(({ text }) => {
    const match = /^ {0,3}(#{1,6}) +(.*?)(?: +#+)? *$/.exec(text);
    if (!match) return [];
    const base = slug(match[2]!);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    return [{ level: match[1]!.length, text: match[2]!, anchor: count === 0 ? base : `${base}-${count}` }];
  });
}

/**
 * The contents table: the list of links to anchors before the first `##` heading, one entry a line; an entry
 * indented by two spaces is a `###` under the `##` above it.
 */
function contentsTable(markdown: string): Entry[] {
  const entries: Entry[] = [];
  for (const { text } of proseLines(markdown)) {
    if (/^## /.test(text)) break;
    const match = /^( *)- \[(.*)\]\(#([^)]*)\)\s*$/.exec(text);
    if (match) entries.push({ level: 2 + match[1]!.length / 2, text: match[2]!, anchor: match[3]! });
  }
  return entries;
}

/** The `src/….ts` paths cited outside code blocks, with the line each is on. */
function citedModules(markdown: string): Array<{ path: string; line: number }> {
  return proseLines(markdown).flatMap(({ number, text }) =>
    [...text.matchAll(/(?<![\w./-])src\/[\w./-]*\.ts\b/g)].map((match) => ({ path: match[0], line: number })),
  );
}

const CONTENTS_LEVELS = [2, 3];

describe("ADVANCED.md's contents table", () => {
  const advanced = read("ADVANCED.md");
  const table = contentsTable(advanced);
  const sections = headings(advanced).filter((heading) => CONTENTS_LEVELS.includes(heading.level));
  const show = (entry: Entry) => `${"#".repeat(entry.level)} ${entry.text} (#${entry.anchor})`;

  it("comes before the first section and is not empty", () => {
    expect(table.length).toBeGreaterThan(0);
    expect(sections.length).toBeGreaterThan(0);
  });

  it("lists every ## and ### heading", () => {
    const listed = new Set(table.map(show));
    expect(sections.filter((heading) => !listed.has(show(heading))).map(show)).toEqual([]);
  });

  it("has no entry without its heading", () => {
    const present = new Set(sections.map(show));
    expect(table.filter((entry) => !present.has(show(entry))).map(show)).toEqual([]);
  });

  it("links only to anchors that exist", () => {
    const anchors = new Set(headings(advanced).map((heading) => heading.anchor));
    expect(table.filter((entry) => !anchors.has(entry.anchor)).map(show)).toEqual([]);
  });

  it("follows the headings' order and nesting exactly", () => {
    expect(table).toEqual(sections);
  });
});

describe("the docs' reading of Markdown", () => {
  it("takes no line inside a fenced code block for a heading, in ADVANCED.md either", () => {
    const sample = [
      "# Title",
      "## Real section",
      "```",
      "## [subagent-result] coder succeeded (taskId: x)",
      "```",
      "- a list item",
      "  ```",
      "  ## inside an indented fence",
      "  ```",
      "~~~~",
      "```",
      "## still inside the tilde fence",
      "~~~~",
      "### Real subsection",
    ].join("\n");
    expect(headings(sample).map((heading) => heading.text)).toEqual(["Title", "Real section", "Real subsection"]);
    const advancedHeadings = headings(read("ADVANCED.md")).map((heading) => heading.text);
    expect(advancedHeadings.filter((text) => text.startsWith("[subagent-result]") || text === "Available Subagents")).toEqual([]);
  });

  it("makes GitHub's anchors: punctuation and code marks dropped, spaces as hyphens, repeats numbered", () => {
    expect(slug("Model and thinking configuration (subagent-isolation.json)")).toBe("model-and-thinking-configuration-subagent-isolationjson");
    expect(slug("The `[subagent-result]` envelope")).toBe("the-subagent-result-envelope");
    expect(slug("Nesting (`PI_SUBAGENT_MAX_DEPTH`)")).toBe("nesting-pi_subagent_max_depth");
    expect(slug("Commands: /subagent-cancel, /subagent-result")).toBe("commands-subagent-cancel-subagent-result");
    expect(slug("Roster — cached")).toBe("roster--cached");
    expect(headings("## Esc\n## Esc\n## Esc").map((heading) => heading.anchor)).toEqual(["esc", "esc-1", "esc-2"]);
  });

  it("reads a contents table with nested entries and code in the link text", () => {
    const sample = ["# T", "", "- [A `x` (y)](#a-x-y)", "  - [The `[b]` c](#the-b-c)", "", "## A `x` (y)", "- [not](#contents)"].join("\n");
    expect(contentsTable(sample)).toEqual([
      { level: 2, text: "A `x` (y)", anchor: "a-x-y" },
      { level: 3, text: "The `[b]` c", anchor: "the-b-c" },
    ]);
  });

  it("finds module paths in prose and inline code, not in code blocks or inside other paths", () => {
    const sample = [
      "See `src/io/run/runner.ts` and src/start/manifest.ts.",
      "Not node_modules/x/src/y.ts, nor the pattern src/<folder>/<module>.ts.",
      "```",
      " +00:02 ▸ read: src/auth.ts",
      "```",
    ].join("\n");
    expect(citedModules(sample)).toEqual([
      { path: "src/io/run/runner.ts", line: 1 },
      { path: "src/start/manifest.ts", line: 1 },
    ]);
  });
});

describe("module paths the docs cite", () => {
  const DOCS = ["ADVANCED.md", "ARCHITECTURE.md", "README.md", "test/README.md"];

  it.each(DOCS)("%s cites only src/ modules that exist", (doc) => {
    const missing = citedModules(read(doc)).filter(({ path }) => !existsSync(join(REPO_ROOT, path)));
    expect(missing.map(({ path, line }) => `${doc}:${line}: ${path}`)).toEqual([]);
  });

  it("ARCHITECTURE.md names the modules it maps", () => {
    expect(citedModules(read("ARCHITECTURE.md")).length).toBeGreaterThan(20);
  });
});
