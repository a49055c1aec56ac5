import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createStateFileSync, readStateFileSync, readStateJsonSync } from "../../../src/shared/safe-write.ts";

let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), "state-file-"))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("reading our own state files", () => {
  it("refuses a link (to /dev/zero, or to a regular file), a FIFO and a file over the cap, without blocking", () => {
    symlinkSync("/dev/zero", join(dir, "zero.json"));
    writeFileSync(join(dir, "real.json"), "{}");
    symlinkSync(join(dir, "real.json"), join(dir, "link.json"));
    execFileSync("mkfifo", [join(dir, "fifo.json")]);
    writeFileSync(join(dir, "big.json"), "x".repeat(2049));
    expect(readStateFileSync(join(dir, "zero.json"), 1024)).toEqual({
      ok: false,
      kind: "refused",
      reason: "it is a symbolic link, which is not followed here",
    });
    expect(readStateFileSync(join(dir, "link.json"), 1024)).toMatchObject({ ok: false, kind: "refused" });
    expect(readStateFileSync(join(dir, "fifo.json"), 1024)).toEqual({
      ok: false,
      kind: "refused",
      reason: "it is a FIFO (named pipe), not a regular file",
    });
    expect(readStateFileSync(join(dir, "big.json"), 2048)).toMatchObject({
      ok: false,
      kind: "refused",
      reason: expect.stringContaining("too large"),
    });
    expect(readStateFileSync(join(dir, "missing.json"), 1024)).toMatchObject({ ok: false, kind: "missing" });
    expect(readStateJsonSync(join(dir, "real.json"), 1024)).toEqual({});
  });
});

describe("writing our own state files", () => {
  it("an exclusive create refuses a planted link (the link's target untouched)", () => {
    const target = join(dir, "target.txt");
    writeFileSync(target, "KEEP");
    symlinkSync(target, join(dir, "run.lock"));
    expect(() => createStateFileSync(join(dir, "run.lock"), "{}")).toThrow(/EEXIST/);
    expect(readFileSync(target, "utf8")).toBe("KEEP");
  });
});

const isRoot = process.getuid?.() === 0;
if (!isRoot) console.warn("state-file: the nearly-full-disk tests are skipped, mounting a tmpfs needs root");

describe.skipIf(!isRoot)("a nearly full disk (a 64 KiB tmpfs)", () => {
  let mountPoint: string;
  beforeEach(() => {
    mountPoint = join(dir, "small");
    execFileSync("mkdir", [mountPoint]);
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", mountPoint]);
  });
  afterEach(() => execFileSync("umount", [mountPoint]));

  it("an exclusive create that fits only in part throws ENOSPC and leaves nothing", () => {
    writeFileSync(join(mountPoint, "filler"), Buffer.alloc(64 * 1024 - 2 * 4096 - 8 * 1024));
    expect(() => createStateFileSync(join(mountPoint, "session.jsonl"), "y".repeat(40 * 1024))).toThrow(/ENOSPC/);
    expect(existsSync(join(mountPoint, "session.jsonl"))).toBe(false);
  });
});
