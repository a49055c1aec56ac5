/**
 * The docs stay navigable and true to the tree: ADVANCED.md's contents table lists exactly its `##` and `###`
 * headings, in order, each linked with the anchor GitHub gives it; and every module path `src/….ts` that
 * ADVANCED.md, the docs/ pages, ARCHITECTURE.md, README.md, CONTRIBUTING.md or test/README.md cites exists.
 * Fenced code blocks are left out of both: their lines are examples (an envelope whose first line starts with
 * `## `, a watch view reading `src/auth.ts`), not headings or citations.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../harness/pi-env.ts";
import { type Heading as Entry, headings, proseLines, readDoc as read, slug, topicPages } from "./markdown.ts";

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
/** Docs that may not exist yet in every checkout. */
const optionalDocs = ["CONTRIBUTING.md"].filter((doc) => existsSync(join(REPO_ROOT, doc)));

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
    expect(
      advancedHeadings.filter((text) => text.startsWith("[subagent-result]") || text === "Available Subagents"),
    ).toEqual([]);
  });

  it("makes GitHub's anchors: punctuation and code marks dropped, spaces as hyphens, repeats numbered", () => {
    expect(slug("Model and thinking configuration (subagent-isolation.json)")).toBe(
      "model-and-thinking-configuration-subagent-isolationjson",
    );
    expect(slug("The `[subagent-result]` envelope")).toBe("the-subagent-result-envelope");
    expect(slug("Nesting (`PI_SUBAGENT_MAX_DEPTH`)")).toBe("nesting-pi_subagent_max_depth");
    expect(slug("Commands: /subagent-cancel, /subagent-result")).toBe("commands-subagent-cancel-subagent-result");
    expect(slug("Roster — cached")).toBe("roster--cached");
    expect(headings("## Esc\n## Esc\n## Esc").map((heading) => heading.anchor)).toEqual(["esc", "esc-1", "esc-2"]);
  });

  it("reads a contents table with nested entries and code in the link text", () => {
    const sample = [
      "# T",
      "",
      "- [A `x` (y)](#a-x-y)",
      "  - [The `[b]` c](#the-b-c)",
      "",
      "## A `x` (y)",
      "- [not](#contents)",
    ].join("\n");
    expect(contentsTable(sample)).toEqual([
      { level: 2, text: "A `x` (y)", anchor: "a-x-y" },
      { level: 3, text: "The `[b]` c", anchor: "the-b-c" },
    ]);
  });

  it("finds module paths in prose and inline code, not in code blocks or inside other paths", () => {
    const sample = [
      "See `src/run/runner.ts` and src/start/main-pi.ts.",
      "Not node_modules/x/src/y.ts, nor the pattern src/<folder>/<module>.ts.",
      "```",
      " +00:02 ▸ read: src/auth.ts",
      "```",
    ].join("\n");
    expect(citedModules(sample)).toEqual([
      { path: "src/run/runner.ts", line: 1 },
      { path: "src/start/main-pi.ts", line: 1 },
    ]);
  });
});

describe("module paths the docs cite", () => {
  const DOCS = ["ADVANCED.md", "ARCHITECTURE.md", "README.md", "test/README.md", ...optionalDocs, ...topicPages()];

  it.each(DOCS)("%s cites only src/ modules that exist", (doc) => {
    const missing = citedModules(read(doc)).filter(({ path }) => !existsSync(join(REPO_ROOT, path)));
    expect(missing.map(({ path, line }) => `${doc}:${line}: ${path}`)).toEqual([]);
  });

  it("ARCHITECTURE.md names the modules it maps", () => {
    expect(citedModules(read("ARCHITECTURE.md")).length).toBeGreaterThan(20);
  });
});
