/** What a task branch brings, judged before a merge: raw diff entries, links leaving the repository, files loaded later. */
import { describe, expect, it } from "vitest";
import {
  broughtEntries,
  isLoadedLater,
  linkLeavesRepository,
  parentFolders,
  parseRawDiff,
} from "../../../src/worktree/merge-texts.ts";

const ZERO = "0".repeat(40);
const BLOB = "a".repeat(40);

describe("branch files", () => {
  it("parses git diff --raw -z entries, and keeps only what brings something into the tree", () => {
    const raw = `:000000 100644 ${ZERO} ${BLOB} A\0new file.txt\0:120000 120000 ${BLOB} ${BLOB} M\0link\0:100644 000000 ${BLOB} ${ZERO} D\0gone.txt\0`;
    const entries = parseRawDiff(raw);
    expect(entries).toEqual([
      { status: "A", newMode: "100644", newBlob: BLOB, path: "new file.txt" },
      { status: "M", newMode: "120000", newBlob: BLOB, path: "link" },
      { status: "D", newMode: "000000", newBlob: ZERO, path: "gone.txt" },
    ]);
    expect(broughtEntries(entries).map((entry) => entry.path)).toEqual(["new file.txt", "link"]);
  });

  it("a link leaves the repository when its text leads outside the working tree or into .git, whether or not the target exists", () => {
    expect(linkLeavesRepository("/repo", "key", "/home/p/.ssh/id_ed25519")).toBe(true);
    expect(linkLeavesRepository("/repo", "a/b/key", "../../../home/p/.ssh")).toBe(true);
    expect(linkLeavesRepository("/repo", "hook", ".git/hooks/pre-commit")).toBe(true);
    expect(linkLeavesRepository("/repo", "a/b/readme", "../../README.md")).toBe(false);
    expect(linkLeavesRepository("/repo", "abs", "/repo/docs/x.md")).toBe(false);
    expect(linkLeavesRepository("/repo", "sibling", "../repo-other/x")).toBe(true);
  });

  it("names files pi, agents, git or the shell load later, at any depth, and not ordinary code", () => {
    for (const path of [
      ".pi/extensions/x.ts",
      "sub/.agents/a.md",
      ".claude/settings.json",
      "AGENTS.md",
      "pkg/CLAUDE.md",
      ".envrc",
      ".gitattributes",
      ".husky/pre-commit",
      ".githooks/pre-push",
      ".vscode/tasks.json",
      ".pre-commit-config.yaml",
    ]) {
      expect(isLoadedLater(path), path).toBe(true);
    }
    for (const path of ["src/hooks/useThing.ts", "README.md", "package.json", "src/.pi.ts", "docs/AGENTS.md.bak"]) {
      expect(isLoadedLater(path), path).toBe(false);
    }
  });

  it("lists every parent folder of a path", () => {
    expect(parentFolders("a/b/c.txt")).toEqual(["a", "a/b"]);
    expect(parentFolders("c.txt")).toEqual([]);
  });
});
