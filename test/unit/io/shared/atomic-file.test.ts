import { chmodSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { atomicTempPath, writeFileAtomic } from "../../../../src/io/shared/atomic-file.ts";

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
