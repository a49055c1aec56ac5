import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { isProcessAlive, isSameProcess, readStartTime, selfIdentity, startTimeFromStat } from "../../../src/shared/process-identity.ts";

describe("process identity", () => {
  it("reads field 22 of /proc/<pid>/stat, even when the command name holds spaces and parentheses", () => {
    const rest = Array.from({ length: 50 }, (_, i) => String(i + 3));
    expect(startTimeFromStat(`123 (we ird) (name) ${rest.join(" ")}`)).toBe("22");
    expect(startTimeFromStat("garbage")).toBeUndefined();
  });

  it.skipIf(process.platform !== "linux")("knows this process is alive and a reused pid with another start time is not", () => {
    const self = selfIdentity();
    expect(self.startTime).toBe(readStartTime(process.pid));
    expect(isProcessAlive(self)).toBe(true);
    expect(isProcessAlive({ pid: process.pid, startTime: "1" })).toBe(false);
  });

  it("finds an ended process dead", () => {
    const child = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" });
    expect(isProcessAlive({ pid: Number(child.stdout) })).toBe(false);
    expect(isProcessAlive({ pid: -1 })).toBe(false);
  });

  it("compares start times only when both are known", () => {
    expect(isSameProcess({ pid: 5, startTime: "9" }, { pid: 5, startTime: "9" })).toBe(true);
    expect(isSameProcess({ pid: 5, startTime: "9" }, { pid: 5, startTime: "8" })).toBe(false);
    expect(isSameProcess({ pid: 5 }, { pid: 5, startTime: "8" })).toBe(true);
    expect(isSameProcess({ pid: 5 }, { pid: 6 })).toBe(false);
  });
});
