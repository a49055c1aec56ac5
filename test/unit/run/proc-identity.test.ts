import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { formatIdentity, isIdentityAlive, isSameProcess, ownIdentity, parseIdentity, processStartTime } from "../../../src/run/proc-identity.ts";

const deadPid = () => Number(spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" }).stdout);

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
