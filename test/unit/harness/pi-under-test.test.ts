import { existsSync } from "node:fs";
import { delimiter } from "node:path";
import { describe, expect, it } from "vitest";
import { parsePiLine, piUnderTest, withPiPath } from "../../harness/pi-under-test.ts";

describe("the pi under test (PI_E2E_PI)", () => {
  it("reads 0.73 (the default) and 1, and refuses anything else with the accepted values", () => {
    expect(parsePiLine(undefined)).toBe("0.73");
    expect(parsePiLine("")).toBe("0.73");
    expect(parsePiLine("0.73.1")).toBe("0.73");
    expect(parsePiLine("1")).toBe("1");
    expect(parsePiLine("1.6.0")).toBe("1");
    expect(() => parsePiLine("2")).toThrow(
      "PI_E2E_PI=2: expected 0.73 (pi 0.73.1 on Node 20) or 1 (pi 1.x on Node 22)",
    );
  });

  it("runs pi 0.73.1 on this node and pi 1.x on the installed Node 22, first on PATH", () => {
    const old = piUnderTest("0.73");
    expect(old.label).toBe("pi 0.73.1");
    expect(old.node).toBe(process.execPath);
    expect(existsSync(old.cli)).toBe(true);
    expect(withPiPath({ PATH: "/usr/bin" }, old).PATH).toBe("/usr/bin");

    const current = piUnderTest("1");
    expect(current.label).toMatch(/^pi 1\.\d+\.\d+$/);
    expect(existsSync(current.node) && existsSync(current.cli)).toBe(true);
    expect(withPiPath({ PATH: "/usr/bin" }, current).PATH).toBe(`${current.pathPrefix}${delimiter}/usr/bin`);
  });
});
