/**
 * The developer docs list what is in the tree, no more and no less: ARCHITECTURE.md's module map names every
 * module under src/ (a row per folder, each module by its file name or its path), and test/README.md names every
 * file of test/harness/ (a bullet each) and every end-to-end test file (in "Finding the test of a behaviour").
 * A module or test file added, moved or removed without its line in the docs fails here.
 */
import { readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../harness/pi-env.ts";
import { type Line, proseLines, readDoc } from "./markdown.ts";

/** The prose lines of the `##` section titled `title`, up to the next `##` heading. */
function section(markdown: string, title: string): Line[] {
  const lines = proseLines(markdown);
  const start = lines.findIndex(({ text }) => text === `## ${title}`);
  if (start === -1) return [];
  const end = lines.findIndex(({ text }, index) => index > start && /^## /.test(text));
  return lines.slice(start + 1, end === -1 ? undefined : end);
}

/** The code spans of a line, without their backticks. */
const codeSpans = (text: string) => [...text.matchAll(/`([^`]+)`/g)].map((match) => match[1]!);

/**
 * The modules a module map names: in each table row whose first cell is a folder (`src/<folder>/`), a file name
 * (`runner.ts`) is a module of that folder; a path (`src/run/runner.ts`) anywhere in the row names itself.
 */
export function mappedModules(lines: readonly Line[]): Array<{ path: string; line: number }> {
  return lines.flatMap(({ number, text }) => {
    const cells = text.split("|").slice(1, -1);
    const folder = /^\s*`(src\/(?:[\w-]+\/)+)`\s*$/.exec(cells[0] ?? "")?.[1];
    if (!folder) return [];
    return cells.slice(1).flatMap((cell) =>
      codeSpans(cell).flatMap((span) => {
        if (/^src\/[\w./-]+\.ts$/.test(span)) return [{ path: span, line: number }];
        if (/^[\w.-]+\.ts$/.test(span)) return [{ path: folder + span, line: number }];
        return [];
      }),
    );
  });
}

/** The file names a harness list names: one bullet a file, opening with its name in bold code (`- **\`x.ts\`**`). */
export function bulletFiles(lines: readonly Line[]): string[] {
  return lines.flatMap(({ text }) => {
    const name = /^- \*\*`([\w.-]+)`\*\*/.exec(text)?.[1];
    return name ? [name] : [];
  });
}

/** The end-to-end files a section names: every `<name>.test.ts` in code, written without a folder. */
export function testFiles(lines: readonly Line[]): string[] {
  return lines.flatMap(({ text }) => codeSpans(text).filter((span) => /^[\w-]+\.test\.ts$/.test(span)));
}

function filesUnder(dir: string): string[] {
  return readdirSync(join(REPO_ROOT, dir), { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(join(dir, entry.name)) : [relative(REPO_ROOT, join(REPO_ROOT, dir, entry.name))],
  );
}

const sorted = (values: Iterable<string>) => [...new Set(values)].sort();

/** What `listed` lacks of `present`, and what it names that is not there. */
function difference(listed: readonly string[], present: readonly string[]) {
  return {
    missing: present.filter((file) => !listed.includes(file)),
    notThere: listed.filter((file) => !present.includes(file)),
  };
}

describe("ARCHITECTURE.md's module map", () => {
  const mapped = mappedModules(section(readDoc("ARCHITECTURE.md"), "Module map"));

  it("names every module under src/, and only modules that exist", () => {
    const modules = sorted(filesUnder("src"));
    expect(modules.length).toBeGreaterThan(50);
    expect(difference(sorted(mapped.map(({ path }) => path)), modules)).toEqual({ missing: [], notThere: [] });
  });

  it("reads a folder's file names and full paths, and nothing outside a folder's row", () => {
    const sample = [
      "| Folder | Modules |",
      "|---|---|",
      "| `src/run/` | `runner.ts` (one child; `run.lock`), `rpc.ts`, see `src/tool/run-sync.ts` |",
      "| `src/pi/ui/` | `cards.ts` |",
      "| `ui/` | `not-a-folder-row.ts` |",
      "`loose.ts` in prose",
    ].map((text, index) => ({ number: index + 1, text }));
    expect(mappedModules(sample)).toEqual([
      { path: "src/run/runner.ts", line: 3 },
      { path: "src/run/rpc.ts", line: 3 },
      { path: "src/tool/run-sync.ts", line: 3 },
      { path: "src/pi/ui/cards.ts", line: 4 },
    ]);
  });
});

describe("test/README.md's file lists", () => {
  const readme = readDoc("test/README.md");

  it("has a bullet for every file of test/harness/, and none for a file that is not there", () => {
    const harness = sorted(readdirSync(join(REPO_ROOT, "test/harness")));
    const listed = sorted(bulletFiles(section(readme, "The harness (`test/harness/`)")));
    expect(difference(listed, harness)).toEqual({ missing: [], notThere: [] });
  });

  it("names every end-to-end test file, and none that is not there", () => {
    const e2e = sorted(readdirSync(join(REPO_ROOT, "test/e2e")).filter((file) => file.endsWith(".test.ts")));
    expect(e2e.length).toBeGreaterThan(10);
    const listed = sorted(testFiles(section(readme, "Finding the test of a behaviour")));
    expect(difference(listed, e2e)).toEqual({ missing: [], notThere: [] });
  });

  it("reads bullets that open with a file and test files written without a folder", () => {
    const sample = [
      "- **`fake-model.ts`**: the fake model; see `pi-env.ts`",
      "  - **`nested.ts`** is not a bullet of the list",
      "| `sync-dispatch.test.ts` | print mode; unit: `test/unit/run/runner.test.ts` |",
    ].map((text, index) => ({ number: index + 1, text }));
    expect(bulletFiles(sample)).toEqual(["fake-model.ts"]);
    expect(testFiles(sample)).toEqual(["sync-dispatch.test.ts"]);
  });
});
