import { spawn, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  formatIdentity,
  isIdentityAlive,
  isIdentityRunning,
  isSameProcess,
  ownIdentity,
  parseIdentity,
  processStartTime,
} from "../../../src/shared/proc-identity.ts";

const deadPid = () =>
  Number(spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" }).stdout);

describe("process identity", () => {
  it("reads field 22 of /proc/<pid>/stat, and nothing for a process that has exited", () => {
    const own = ownIdentity();
    expect(own.pid).toBe(process.pid);
    expect(own.start).toMatch(/^\d+$/);
    expect(processStartTime(1)).toMatch(/^\d+$/);
    expect(processStartTime(deadPid())).toBeUndefined();
  });

  it("is alive only for the same pid with the same start time", () => {
    const own = ownIdentity();
    expect(isIdentityAlive(own)).toBe(true);
    expect(isIdentityAlive({ pid: own.pid, start: String(Number(own.start) + 1) })).toBe(false);
    expect(isIdentityAlive({ pid: deadPid(), start: own.start })).toBe(false);
    // Without a start time (an older lock) only the pid is checked.
    expect(isIdentityAlive({ pid: own.pid })).toBe(true);
    expect(isIdentityAlive({ pid: 0 })).toBe(false);
  });

  it("runs only while alive and not exiting: a zombie (exited, not yet reaped) does not run", async () => {
    const own = ownIdentity();
    expect(isIdentityRunning(own)).toBe(true);
    expect(isIdentityRunning({ pid: own.pid })).toBe(true);
    // The same pid with another start time is a later process, not the one named.
    expect(isIdentityRunning({ pid: own.pid, start: String(Number(own.start) + 1) })).toBe(false);
    expect(isIdentityRunning({ pid: deadPid(), start: own.start })).toBe(false);
    expect(isIdentityRunning({ pid: 0 })).toBe(false);
    // The background `head` becomes a child of the exec'd `sleep 30`, which never reaps it: once it exits it is a
    // zombie until the sleep ends. It exits only when the test writes to its pipe (fd 3), after the exec: had it
    // ended before, the shell could have reaped it itself (a race that made this test fail under load).
    const holder = spawn("sh", ["-c", "head -c 1 <&3 >/dev/null & echo $!; exec sleep 30 3<&-"], {
      stdio: ["ignore", "pipe", "ignore", "pipe"],
    });
    try {
      const zombiePid = await new Promise<number>((resolve) =>
        holder.stdout!.once("data", (chunk: Buffer) => resolve(Number(String(chunk).trim()))),
      );
      const execed = () => readFileSync(`/proc/${holder.pid}/cmdline`, "latin1").startsWith("sleep\0");
      await expect.poll(execed, { timeout: 10_000 }).toBe(true);
      (holder.stdio[3] as NodeJS.WritableStream).end("x");
      const isZombie = () => {
        const stat = readFileSync(`/proc/${zombiePid}/stat`, "latin1");
        return stat.slice(stat.lastIndexOf(")")).startsWith(") Z ");
      };
      await expect.poll(isZombie, { timeout: 10_000 }).toBe(true);
      expect(processStartTime(zombiePid)).toBeUndefined();
      expect(isIdentityRunning({ pid: zombiePid, start: "1" })).toBe(false);
      // Without a start time the pid still exists, but the zombie holds no memory: not running either.
      expect(isIdentityAlive({ pid: zombiePid })).toBe(true);
      expect(isIdentityRunning({ pid: zombiePid })).toBe(false);
    } finally {
      holder.kill("SIGKILL");
    }
  });

  it("round-trips through its environment form and rejects anything else", () => {
    expect(parseIdentity(formatIdentity({ pid: 42, start: "1234" }))).toEqual({ pid: 42, start: "1234" });
    expect(parseIdentity("42")).toEqual({ pid: 42 });
    for (const bad of [undefined, "", "x", "42:", "-1", "0", "1:2:3"]) expect(parseIdentity(bad)).toBeUndefined();
  });

  it("compares start times only when both are known", () => {
    expect(isSameProcess({ pid: 5, start: "9" }, { pid: 5, start: "9" })).toBe(true);
    expect(isSameProcess({ pid: 5, start: "9" }, { pid: 5, start: "8" })).toBe(false);
    expect(isSameProcess({ pid: 5 }, { pid: 5, start: "8" })).toBe(true);
    expect(isSameProcess({ pid: 5 }, { pid: 6 })).toBe(false);
  });
});
