/**
 * The docs stay short enough to read and every link in them leads somewhere: ADVANCED.md (the reference and the
 * index) is at most 60 KB, each topic page under docs/ at most 40 KB, and every relative link in the docs a
 * person reads (README.md, ADVANCED.md, CONTRIBUTING.md, ARCHITECTURE.md, test/README.md, docs/*.md) names a
 * file that exists and, where it has an anchor, a heading of that file with GitHub's anchor for it.
 */
import { existsSync, statSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../harness/pi-env.ts";
import { headings, links, readDoc, topicPages } from "./markdown.ts";

const KB = 1024;
const READ_DOCS = ["README.md", "ADVANCED.md", "CONTRIBUTING.md", "ARCHITECTURE.md", "test/README.md"].filter((doc) =>
  existsSync(join(REPO_ROOT, doc)),
);

const anchorsOf = new Map<string, Set<string>>();
function anchors(file: string): Set<string> {
  let found = anchorsOf.get(file);
  if (!found) anchorsOf.set(file, (found = new Set(headings(readDoc(file)).map((heading) => heading.anchor))));
  return found;
}

/** What is wrong with one link of `doc`, or undefined when it resolves. */
function brokenLink(doc: string, target: string): string | undefined {
  // Links that leave the repository (a web page, mail) are not checked here.
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return undefined;
  const hash = target.indexOf("#");
  const path = hash === -1 ? target : target.slice(0, hash);
  const anchor = hash === -1 ? undefined : decodeURIComponent(target.slice(hash + 1));
  const file = path === "" ? doc : normalize(join(dirname(doc), decodeURIComponent(path)));
  if (file.startsWith("..") || !existsSync(join(REPO_ROOT, file))) return `no file ${file}`;
  if (anchor === undefined) return undefined;
  if (!file.endsWith(".md") || statSync(join(REPO_ROOT, file)).isDirectory())
    return `an anchor into ${file}, which has no headings`;
  return anchors(file).has(anchor) ? undefined : `no heading #${anchor} in ${file}`;
}

describe("the docs' sizes", () => {
  it("keeps ADVANCED.md, the reference and index, at most 60 KB", () => {
    expect(Buffer.byteLength(readDoc("ADVANCED.md"))).toBeLessThanOrEqual(60 * KB);
  });

  it("has the topic pages, each at most 40 KB and starting with what it answers", () => {
    const pages = topicPages();
    expect(pages.length).toBeGreaterThanOrEqual(9);
    const tooLong = pages.filter((page) => Buffer.byteLength(readDoc(page)) > 40 * KB);
    expect(tooLong).toEqual([]);
    for (const page of pages) {
      // A title, then a paragraph (not a heading, list or table) saying what the page answers.
      const [title, blank, intro] = readDoc(page).split("\n");
      expect(title, page).toMatch(/^# \S/);
      expect(blank, page).toBe("");
      expect(intro, page).toMatch(/^[A-Z`]/);
    }
  });
});

describe("links in the docs", () => {
  it.each([...READ_DOCS, ...topicPages()])("%s: every relative link and anchor resolves", (doc) => {
    const broken = links(readDoc(doc)).flatMap(({ target, line }) => {
      const problem = brokenLink(doc, target);
      return problem ? [`${doc}:${line}: (${target}) ${problem}`] : [];
    });
    expect(broken).toEqual([]);
  });

  it("ADVANCED.md's index links every topic page, and every page links back to the reference", () => {
    const linked = new Set(links(readDoc("ADVANCED.md")).map(({ target }) => target.split("#")[0]));
    expect(topicPages().filter((page) => !linked.has(page))).toEqual([]);
    expect(
      topicPages().filter((page) => !links(readDoc(page)).some(({ target }) => target.startsWith("../ADVANCED.md"))),
    ).toEqual([]);
  });

  it("reads links as GitHub does: not in code, with code in the text, an anchor into the same file", () => {
    const sample = [
      "See [The `subagent` tool](../ADVANCED.md#the-subagent-tool) and [here](#local).",
      "Not `[code](nowhere.md)`, nor the web: [site](https://example.org/x).",
      "```",
      "[fenced](nowhere.md)",
      "```",
    ].join("\n");
    expect(links(sample)).toEqual([
      { target: "../ADVANCED.md#the-subagent-tool", line: 1 },
      { target: "#local", line: 1 },
      { target: "https://example.org/x", line: 2 },
    ]);
    expect(brokenLink("docs/safety.md", "../ADVANCED.md#the-subagent-tool")).toBeUndefined();
    expect(brokenLink("docs/safety.md", "../ADVANCED.md#no-such-heading")).toBe(
      "no heading #no-such-heading in ADVANCED.md",
    );
    expect(brokenLink("docs/safety.md", "missing.md")).toBe("no file docs/missing.md");
    expect(brokenLink("README.md", "https://example.org/x")).toBeUndefined();
  });
});
