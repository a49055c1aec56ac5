/** A throw-away folder tree for file-system tests: write files by relative path, remove it all afterwards. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

export interface TempTree {
  root: string;
  path(relative: string): string;
  write(relative: string, content: string): string;
  mkdir(relative: string): string;
  remove(): void;
}

export function createTempTree(prefix = "pi-subagent-unit-"): TempTree {
  const root = mkdtempSync(join(tmpdir(), prefix));
  return {
    root,
    path: (relative) => join(root, relative),
    write(relative, content) {
      const path = join(root, relative);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, content);
      return path;
    },
    mkdir(relative) {
      const path = join(root, relative);
      mkdirSync(path, { recursive: true });
      return path;
    },
    remove: () => rmSync(root, { recursive: true, force: true }),
  };
}

/** An agent file's text from frontmatter lines and a body. */
export function agentFile(frontmatter: Record<string, string>, body = "Do the work."): string {
  const lines = Object.entries(frontmatter).map(([key, value]) => `${key}: ${value}`);
  return `---\n${lines.join("\n")}\n---\n\n${body}\n`;
}
