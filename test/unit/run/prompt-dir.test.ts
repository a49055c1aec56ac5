import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ownIdentity } from "../../../src/shared/proc-identity.ts";
import { promptDirOwner, sweepStalePromptDirs } from "../../../src/run/session-files.ts";

let base: string;
beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), "pi-subagent-promptdirs-"));
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

const deadPid = () =>
  Number(spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" }).stdout);

describe("temp prompt folders of earlier versions", () => {
  it("carry the owning pi's pid and start time in their name", () => {
    expect(promptDirOwner("pi-subagent-prompt-4242-98765-aB3dE9")).toEqual({ pid: 4242, start: "98765" });
    expect(promptDirOwner("pi-subagent-prompt-4242-0-aB3dE9")).toEqual({ pid: 4242 });
    expect(promptDirOwner("pi-subagent-body-abc123")).toBeUndefined();
    expect(promptDirOwner("pi-subagent-prompt-12-x-abc123")).toBeUndefined();
  });

  it("are swept when their owner has ended (or its pid was reused), never while it runs, and never others'", () => {
    const own = ownIdentity();
    const mine = join(base, `pi-subagent-prompt-${own.pid}-${own.start}-Mn0Pq1`);
    mkdirSync(mine);
    writeFileSync(join(mine, "agent-prompt.md"), "body");
    const deadOwner = join(base, `pi-subagent-prompt-${deadPid()}-123-AbC123`);
    const reusedPid = join(base, `pi-subagent-prompt-${own.pid}-${Number(own.start) + 7}-XyZ789`);
    const foreign = join(base, "pi-subagent-body-Qw12er");
    for (const dir of [deadOwner, reusedPid, foreign]) {
      mkdirSync(dir);
      writeFileSync(join(dir, "agent-prompt.md"), "body");
    }
    expect(sweepStalePromptDirs(base)).toBe(2);
    expect(existsSync(mine)).toBe(true);
    expect(existsSync(foreign)).toBe(true);
    expect(existsSync(deadOwner)).toBe(false);
    expect(existsSync(reusedPid)).toBe(false);
  });
});
