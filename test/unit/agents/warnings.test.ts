import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { formatAgentWarning, reportWarningsOnce, resetReportedWarningsForTests } from "../../../src/agents/warnings.ts";

beforeEach(() => resetReportedWarningsForTests());
afterEach(() => vi.restoreAllMocks());

function fakeUi(hasUI: boolean) {
  const notes: Array<[string, string | undefined]> = [];
  return {
    notes,
    sink: {
      hasUI,
      ui: { notify: (message: string, type?: "info" | "warning" | "error") => void notes.push([message, type]) },
    },
  };
}

describe("formatAgentWarning", () => {
  it("says whether the file was skipped, names it, and gives the reason", () => {
    expect(
      formatAgentWarning({ filePath: "/p/.pi/agents/x.md", reason: 'missing required field "name"', skipped: true }),
    ).toBe('pi-subagent-dispatch: skipped agent file /p/.pi/agents/x.md: missing required field "name"');
    expect(
      formatAgentWarning({ filePath: "/a/y.md", reason: "bad thinking; that field is ignored, the agent still loads" }),
    ).toBe("pi-subagent-dispatch: agent file /a/y.md: bad thinking; that field is ignored, the agent still loads");
  });

  it("never prints control characters from a file name", () => {
    expect(formatAgentWarning({ filePath: "/a/\u001b[2Jx.md", reason: "r", skipped: true })).toBe(
      "pi-subagent-dispatch: skipped agent file /a/?[2Jx.md: r",
    );
  });
});

describe("reportWarningsOnce", () => {
  it("shows each message once, as a UI warning when there is a UI", () => {
    const { notes, sink } = fakeUi(true);
    const stderr = vi.spyOn(console, "error").mockImplementation(() => {});
    reportWarningsOnce(["one", "two"], sink);
    reportWarningsOnce(["two", "three"], sink);
    expect(notes).toEqual([
      ["one", "warning"],
      ["two", "warning"],
      ["three", "warning"],
    ]);
    expect(stderr).not.toHaveBeenCalled();
  });

  it("writes to stderr when there is no UI (print and JSON mode), still once", () => {
    const { notes, sink } = fakeUi(false);
    const stderr = vi.spyOn(console, "error").mockImplementation(() => {});
    reportWarningsOnce(["broken"], sink);
    reportWarningsOnce(["broken"], undefined);
    expect(stderr.mock.calls).toEqual([["broken"]]);
    expect(notes).toEqual([]);
  });

  it("does not throw when the UI does", () => {
    const sink = {
      hasUI: true,
      ui: {
        notify: () => {
          throw new Error("stale ctx");
        },
      },
    };
    expect(() => reportWarningsOnce(["x"], sink)).not.toThrow();
  });
});
