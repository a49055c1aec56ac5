import { describe, expect, it } from "vitest";
import { detectAppMode, isAsyncDispatchMode } from "../../../src/shared/pi-process.ts";

const NODE = ["/usr/bin/node", "/usr/lib/pi/dist/cli.js"];

describe("detectAppMode (mirrors pi's resolveAppMode)", () => {
  it("is interactive on a TTY without flags", () => {
    expect(detectAppMode(NODE, true)).toBe("interactive");
    expect(detectAppMode([...NODE, "--model", "x/y", "fix the bug"], true)).toBe("interactive");
  });

  it("is print with -p or --print, or when stdin is not a TTY", () => {
    expect(detectAppMode([...NODE, "-p", "hello"], true)).toBe("print");
    expect(detectAppMode([...NODE, "--print", "hello"], true)).toBe("print");
    expect(detectAppMode(NODE, false)).toBe("print");
  });

  it("is json or rpc with --mode, in both spellings, whatever else is given", () => {
    expect(detectAppMode([...NODE, "--mode", "json", "-p", "x"], true)).toBe("json");
    expect(detectAppMode([...NODE, "--mode=json"], false)).toBe("json");
    expect(detectAppMode([...NODE, "--mode", "rpc"], false)).toBe("rpc");
    expect(detectAppMode([...NODE, "-p", "--mode=rpc"], true)).toBe("rpc");
  });

  it("treats --mode text like no mode at all", () => {
    expect(detectAppMode([...NODE, "--mode", "text"], true)).toBe("interactive");
    expect(detectAppMode([...NODE, "--mode", "text", "-p"], true)).toBe("print");
  });
});

describe("isAsyncDispatchMode", () => {
  it("is asynchronous only in the interactive TUI with a UI", () => {
    expect(isAsyncDispatchMode(true, "interactive")).toBe(true);
    expect(isAsyncDispatchMode(false, "interactive")).toBe(false);
    expect(isAsyncDispatchMode(true, "rpc")).toBe(false);
    expect(isAsyncDispatchMode(false, "print")).toBe(false);
    expect(isAsyncDispatchMode(false, "json")).toBe(false);
  });
});
