import { chmodSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  bwrapDirs,
  bwrapInSystemDirs,
  findWorkingBwrap,
  probeAhead,
  SYSTEM_BWRAP_DIRS,
} from "../../../src/sandbox/sandbox-layout.ts";

let dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  dirs = [];
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "find-bwrap-"));
  dirs.push(dir);
  return dir;
}

function fakeBwrap(dir: string, script: string): string {
  const fake = join(dir, "bwrap");
  writeFileSync(fake, `#!/bin/sh\n${script}\n`);
  chmodSync(fake, 0o755);
  return realpathSync(fake);
}

const isRoot = process.getuid?.() === 0;

describe("findWorkingBwrap", () => {
  it("refuses off Linux", () => {
    expect(findWorkingBwrap(["/usr/bin"], "darwin")).toEqual({
      ok: false,
      reason: { kind: "platform", platform: "darwin" },
    });
  });

  it("finds nothing in an empty folder, and says where it looked", () => {
    const dir = tempDir();
    expect(findWorkingBwrap([dir], "linux")).toEqual({ ok: false, reason: { kind: "not-found", dirs: [dir] } });
  });

  it("looks in the system's folders only, never on PATH, unless PI_SUBAGENT_BWRAP_DIRS names others", () => {
    expect(bwrapDirs({ PATH: "/x/node_modules/.bin:/usr/bin" })).toEqual(SYSTEM_BWRAP_DIRS);
    expect(SYSTEM_BWRAP_DIRS).toContain("/usr/bin");
    expect(SYSTEM_BWRAP_DIRS.every((dir) => dir.startsWith("/") && !dir.includes("node_modules"))).toBe(true);
    expect(bwrapDirs({ PI_SUBAGENT_BWRAP_DIRS: "/a:/b" })).toEqual(["/a", "/b"]);
  });

  it("takes no bwrap from a relative folder or one others can write", () => {
    const dir = tempDir();
    fakeBwrap(dir, "exit 0");
    expect(bwrapInSystemDirs(["relative/bin"])).toBeUndefined();
    chmodSync(dir, 0o777);
    expect(bwrapInSystemDirs([dir])).toBeUndefined();
    chmodSync(dir, 0o755);
    expect(bwrapInSystemDirs([dir])).toBe(isRoot ? realpathSync(join(dir, "bwrap")) : undefined);
  });

  it.skipIf(!bwrapInSystemDirs())(
    "takes the system's bwrap, whose sandbox proves it keeps a read-only folder read-only",
    () => {
      expect(findWorkingBwrap(SYSTEM_BWRAP_DIRS, "linux")).toEqual({ ok: true, bwrap: bwrapInSystemDirs() });
    },
  );

  it.skipIf(!isRoot)("reports a bwrap that cannot make a sandbox, with what it said", () => {
    const dir = tempDir();
    const fake = fakeBwrap(dir, "echo 'bwrap: setting up uid map: Permission denied' >&2\nexit 1");
    expect(findWorkingBwrap([dir], "linux")).toEqual({
      ok: false,
      reason: { kind: "broken", bwrap: fake, detail: "bwrap: setting up uid map: Permission denied" },
    });
  });

  it.skipIf(!isRoot)("refuses a bwrap that runs its command without isolating it", () => {
    const dir = tempDir();
    // Skips bubblewrap's options and runs the command as it is: the write the probe tries succeeds.
    const fake = fakeBwrap(join(dir), 'while [ "$1" != "--" ]; do shift; done; shift; exec "$@"');
    const found = findWorkingBwrap([dir], "linux");
    expect(found).toEqual({
      ok: false,
      reason: { kind: "broken", bwrap: fake, detail: "a write inside its sandbox reached the host" },
    });
  });

  it.skipIf(!isRoot)(
    "a probe started ahead decides as the probe at the dispatch would, and runs once: a bwrap that does not isolate is refused all the same",
    async () => {
      const dir = tempDir();
      const runs = join(dir, "runs");
      const fake = fakeBwrap(dir, `echo run >> '${runs}'\nwhile [ "$1" != "--" ]; do shift; done; shift; exec "$@"`);
      await Promise.all([probeAhead([dir], "linux"), probeAhead([dir], "linux")]);
      expect(findWorkingBwrap([dir], "linux")).toEqual({
        ok: false,
        reason: { kind: "broken", bwrap: fake, detail: "a write inside its sandbox reached the host" },
      });
      await probeAhead([dir], "linux");
      expect(readFileSync(runs, "utf8")).toBe("run\n");
    },
  );

  it.skipIf(!isRoot)(
    "a probe started ahead reports a bwrap that cannot make a sandbox, with what it said",
    async () => {
      const dir = tempDir();
      const fake = fakeBwrap(dir, "echo 'bwrap: No permissions to create new namespace' >&2\nexit 1");
      await probeAhead([dir], "linux");
      expect(findWorkingBwrap([dir], "linux")).toEqual({
        ok: false,
        reason: { kind: "broken", bwrap: fake, detail: "bwrap: No permissions to create new namespace" },
      });
    },
  );

  it.skipIf(!bwrapInSystemDirs())("a probe started ahead finds the system's bwrap working", async () => {
    await probeAhead(SYSTEM_BWRAP_DIRS, "linux");
    expect(findWorkingBwrap(SYSTEM_BWRAP_DIRS, "linux")).toEqual({ ok: true, bwrap: bwrapInSystemDirs() });
  });

  it("a probe ahead does nothing off Linux or without a bwrap", async () => {
    await expect(probeAhead(["/usr/bin"], "darwin")).resolves.toBeUndefined();
    await expect(probeAhead([tempDir()], "linux")).resolves.toBeUndefined();
  });
});
