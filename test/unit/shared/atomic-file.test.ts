import {
  chmodSync,
  lstatSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { atomicTempPath, writeFileAtomic, writeFileAtomicSync } from "../../../src/shared/safe-write.ts";
import { execFileSync } from "node:child_process";

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "atomic-file-"));
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe("writeFileAtomic", () => {
  it("creates a new file with the exact content", async () => {
    const target = join(dir, "new.json");
    await writeFileAtomic(target, "{}\n");
    expect(readFileSync(target, "utf8")).toBe("{}\n");
    expect(readdirSync(dir)).toEqual(["new.json"]);
  });

  it("replaces an existing file and keeps its permission bits", async () => {
    const target = join(dir, "config.json");
    writeFileSync(target, "old");
    chmodSync(target, 0o600);
    await writeFileAtomic(target, "new content");
    expect(readFileSync(target, "utf8")).toBe("new content");
    expect(statSync(target).mode & 0o777).toBe(0o600);
  });

  it("leaves the old file intact and no temp file behind when it fails before the rename", async () => {
    const target = join(dir, "config.json");
    writeFileSync(target, "the old bytes\n");
    let sawTemp = "";
    const failure = await writeFileAtomic(target, "the new bytes\n", {
      beforeRename: (tempPath) => {
        sawTemp = readFileSync(tempPath, "utf8");
        throw new Error("simulated crash");
      },
    }).catch((error: Error) => error);
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message).toBe("simulated crash");
    // The temp file was complete before the rename would have happened.
    expect(sawTemp).toBe("the new bytes\n");
    expect(readFileSync(target, "utf8")).toBe("the old bytes\n");
    expect(readdirSync(dir)).toEqual(["config.json"]);
  });

  it("writes through a symlink, keeping the link", async () => {
    const real = join(dir, "real.json");
    const link = join(dir, "link.json");
    writeFileSync(real, "old");
    symlinkSync(real, link);
    await writeFileAtomic(link, "new");
    expect(readlinkSync(link)).toBe(real);
    expect(readFileSync(real, "utf8")).toBe("new");
  });

  it("names temp files hidden, next to the target, unique per call", () => {
    const a = atomicTempPath(join(dir, "x.json"));
    const b = atomicTempPath(join(dir, "x.json"));
    expect(a).not.toBe(b);
    expect(a.startsWith(join(dir, `.x.json.${process.pid}.`))).toBe(true);
    expect(a.endsWith(".tmp")).toBe(true);
  });
});

describe("writeFileAtomicSync (our own state files, issue 28 items 5 and 6)", () => {
  it("an atomic write replaces a planted link instead of writing through it", () => {
    const target = join(dir, "target.txt");
    writeFileSync(target, "KEEP");
    symlinkSync(target, join(dir, "state.json"));
    writeFileAtomicSync(join(dir, "state.json"), "NEW");
    expect(readFileSync(target, "utf8")).toBe("KEEP");
    expect(lstatSync(join(dir, "state.json")).isFile()).toBe(true);
    expect(readFileSync(join(dir, "state.json"), "utf8")).toBe("NEW");
    expect(readdirSync(dir).sort()).toEqual(["state.json", "target.txt"]);
  });
});

const isRoot = process.getuid?.() === 0;
if (!isRoot) console.warn("atomic-file: the nearly-full-disk test is skipped, mounting a tmpfs needs root");

describe.skipIf(!isRoot)("writeFileAtomicSync on a nearly full disk (a 64 KiB tmpfs)", () => {
  let mountPoint: string;
  beforeEach(() => {
    mountPoint = join(dir, "small");
    execFileSync("mkdir", [mountPoint]);
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", mountPoint]);
  });
  afterEach(() => execFileSync("umount", [mountPoint]));

  it("a write that fits only in part throws ENOSPC and leaves the old file whole, with no temp file", () => {
    const file = join(mountPoint, "record.json");
    writeFileAtomicSync(file, "OLD");
    // 8 KiB left free, then a 40 KiB write: the first write() takes what fits and returns a short count.
    writeFileSync(join(mountPoint, "filler"), Buffer.alloc(64 * 1024 - 3 * 4096 - 8 * 1024));
    expect(() => writeFileAtomicSync(file, "y".repeat(40 * 1024))).toThrow(/ENOSPC/);
    expect(readFileSync(file, "utf8")).toBe("OLD");
    expect(readdirSync(mountPoint).sort()).toEqual(["filler", "record.json"]);
  });
});
