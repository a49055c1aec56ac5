import { fstatSync, mkdirSync, mkdtempSync, readFileSync, readSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { jitiCacheNames } from "../../../src/sandbox/hand-in.ts";
import {
  MAX_HANDED_BYTES,
  openHandedFiles,
  jitiEntriesToCopy,
  sandboxedChildSources,
} from "../../../src/sandbox/handed-files.ts";

let root = "";
afterEach(() => rmSync(root, { recursive: true, force: true }));

function setUp() {
  root = mkdtempSync(join(tmpdir(), "jiti-entries-"));
  const pkg = join(root, "pkg");
  mkdirSync(join(pkg, "src", "io"), { recursive: true });
  const sources = [
    join(pkg, "extension.ts"),
    join(pkg, "src", "io", "a.ts"),
    join(pkg, "src", "io", "b.ts"),
    join(pkg, "src", "io", "c.ts"),
    join(pkg, "src", "io", "d.ts"),
  ];
  for (const source of sources) writeFileSync(source, "export {};\n");
  writeFileSync(join(pkg, "src", "io", "notes.md"), "not a module");
  const cache = join(root, "jiti");
  mkdirSync(cache);
  const entryOf = (source: string) => join(cache, jitiCacheNames(source)[0]!);
  return { pkg, sources, cache, entryOf };
}

describe("jitiEntriesToCopy", () => {
  it("looks for the entries of the modules a sandboxed child loads: the entry and the refusing tool's, none of the runtime", () => {
    const sources = sandboxedChildSources("/pkg");
    expect(sources).toContain("/pkg/extension.ts");
    expect(sources).toContain("/pkg/src/start/sandbox-gate-tool.ts");
    expect(sources).not.toContain("/pkg/src/pi/runtime.ts");
    expect(sources).not.toContain("/pkg/src/run/runner.ts");
  });

  it("takes the entries of the package's files that are regular files under the limit, never a link or another file's entry", () => {
    const { sources, cache, entryOf } = setUp();
    const [entry, a, b, c] = sources as [string, string, string, string, string];
    writeFileSync(entryOf(entry), "compiled entry");
    writeFileSync(entryOf(a), "compiled a");
    writeFileSync(join(root, "secret"), "not jiti's");
    symlinkSync(join(root, "secret"), entryOf(b));
    writeFileSync(entryOf(c), Buffer.alloc(MAX_HANDED_BYTES + 1));
    writeFileSync(join(cache, "other-module.0123abcd.mjs"), "someone else's");
    expect(jitiEntriesToCopy(cache, sources).sort()).toEqual([entryOf(entry), entryOf(a)].sort());
  });

  it("takes nothing without a cache folder", () => {
    const { sources } = setUp();
    expect(jitiEntriesToCopy(join(root, "missing"), sources)).toEqual([]);
  });
});

describe("openHandedFiles", () => {
  it("opens each file read-only in order, and /dev/null for one that became a link or is gone", () => {
    const { sources, entryOf } = setUp();
    const [entry, a, b] = sources as [string, string, string];
    writeFileSync(entryOf(entry), "compiled entry");
    writeFileSync(entryOf(a), "compiled a");
    writeFileSync(join(root, "secret"), "not jiti's");
    symlinkSync(join(root, "secret"), entryOf(b));
    const handed = openHandedFiles([entryOf(entry), entryOf(b), join(root, "gone.mjs"), entryOf(a)]);
    try {
      const read = (fd: number) => {
        const buffer = Buffer.alloc(64);
        return buffer.subarray(0, readSync(fd, buffer, 0, 64, 0)).toString();
      };
      expect(handed.fds.map(read)).toEqual(["compiled entry", "", "", "compiled a"]);
      expect(fstatSync(handed.fds[1]!).isCharacterDevice()).toBe(true);
    } finally {
      handed.close();
    }
    expect(() => fstatSync(handed.fds[0]!)).toThrow();
    expect(readFileSync(entryOf(entry), "utf8")).toBe("compiled entry");
  });
});
