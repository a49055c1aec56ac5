import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { lockPathFor, withFileLock, WriteBackError } from "../../../src/shared/safe-write.ts";

let dir: string;
let target: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "file-lock-"));
  target = join(dir, "subagent-isolation.json");
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const tick = () => new Promise((resolve) => setTimeout(resolve, 1));

/** A pid that certainly belongs to no process any more: a child that has already exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ["-e", "0"]);
  return child.pid ?? 0;
}

describe("withFileLock", () => {
  it("names the lock <file>.lock and holds the writer's pid and time while the action runs", async () => {
    expect(lockPathFor(target)).toBe(`${target}.lock`);
    const seen = await withFileLock(
      target,
      async () => JSON.parse(readFileSync(`${target}.lock`, "utf8")) as Record<string, unknown>,
    );
    expect(seen.pid).toBe(process.pid);
    expect(seen.hostname).toBe(hostname());
    expect(typeof seen.acquiredAt).toBe("number");
    expect(Math.abs(Date.now() - (seen.acquiredAt as number))).toBeLessThan(10_000);
    expect(existsSync(`${target}.lock`)).toBe(false);
  });

  it("releases the lock when the action throws", async () => {
    await expect(withFileLock(target, async () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    expect(existsSync(`${target}.lock`)).toBe(false);
  });

  it("serialises read-modify-write cycles so no update is lost", async () => {
    writeFileSync(target, "0");
    let inside = 0;
    let mostInside = 0;
    await Promise.all(
      Array.from({ length: 25 }, () =>
        withFileLock(target, async () => {
          inside++;
          mostInside = Math.max(mostInside, inside);
          const value = Number(readFileSync(target, "utf8"));
          await tick();
          writeFileSync(target, String(value + 1));
          inside--;
        }),
      ),
    );
    expect(readFileSync(target, "utf8")).toBe("25");
    expect(mostInside).toBe(1);
  });

  it("breaks a lock whose holder process no longer exists", async () => {
    writeFileSync(
      `${target}.lock`,
      JSON.stringify({ pid: deadPid(), hostname: hostname(), acquiredAt: Date.now(), token: "dead" }),
    );
    const started = Date.now();
    await withFileLock(target, async () => undefined, { timeoutMs: 2_000 });
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(existsSync(`${target}.lock`)).toBe(false);
  });

  it("breaks a lock older than staleMs even when its holder is alive", async () => {
    const old = Date.now() - 60_000;
    writeFileSync(
      `${target}.lock`,
      JSON.stringify({ pid: process.pid, hostname: hostname(), acquiredAt: old, token: "old" }),
    );
    await withFileLock(target, async () => undefined, { timeoutMs: 2_000, staleMs: 5_000 });
    expect(existsSync(`${target}.lock`)).toBe(false);
  });

  it("breaks an empty lock file (a writer that died between creating and filling it) once it is old", async () => {
    writeFileSync(`${target}.lock`, "");
    const past = new Date(Date.now() - 60_000);
    utimesSync(`${target}.lock`, past, past);
    await withFileLock(target, async () => undefined, { timeoutMs: 2_000 });
    expect(existsSync(`${target}.lock`)).toBe(false);
  });

  it("waits for a live fresh lock and gives up with a lock-timeout error, leaving that lock alone", async () => {
    const held = JSON.stringify({
      pid: process.pid,
      hostname: hostname(),
      acquiredAt: Date.now(),
      token: "someone-else",
    });
    writeFileSync(`${target}.lock`, held);
    let ran = false;
    const failure = await withFileLock(target, async () => (ran = true), { timeoutMs: 300 }).catch(
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(WriteBackError);
    expect((failure as WriteBackError).code).toBe("lock-timeout");
    expect((failure as WriteBackError).message).toContain(`${target}.lock`);
    expect(ran).toBe(false);
    expect(readFileSync(`${target}.lock`, "utf8")).toBe(held);
  });

  it("does not remove a lock that is no longer its own when it releases", async () => {
    const foreign = JSON.stringify({
      pid: process.pid,
      hostname: hostname(),
      acquiredAt: Date.now(),
      token: "taken-over",
    });
    await withFileLock(target, async () => {
      // Someone broke our lock as stale and took it.
      writeFileSync(`${target}.lock`, foreign);
    });
    expect(readFileSync(`${target}.lock`, "utf8")).toBe(foreign);
  });
});
