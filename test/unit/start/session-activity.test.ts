import { describe, expect, it } from "vitest";
import { tuiLoadTiming, holdsSubagentActivity } from "../../../src/start/main-pi.ts";

const user = { type: "message", message: { role: "user", content: "hello" } };
const otherTool = {
  type: "message",
  message: {
    role: "assistant",
    content: [
      { type: "text", text: "x" },
      { type: "toolCall", name: "bash", arguments: {} },
    ],
  },
};
const otherResult = { type: "message", message: { role: "toolResult", toolName: "bash", content: [] } };
const subagentCall = {
  type: "message",
  message: {
    role: "assistant",
    content: [{ type: "toolCall", name: "subagent", arguments: { agent: "a", task: "t" } }],
  },
};
const subagentResult = { type: "message", message: { role: "toolResult", toolName: "subagent", content: [] } };
const deliveredResult = { type: "custom_message", customType: "subagent-result", content: "## [subagent-result] a" };
const otherCustom = { type: "custom_message", customType: "notes", content: "n" };

describe("holdsSubagentActivity", () => {
  it("finds a subagent call, its result, or a delivered [subagent-result] on any branch", () => {
    expect(holdsSubagentActivity([user, otherTool, subagentCall])).toBe(true);
    expect(holdsSubagentActivity([user, subagentResult])).toBe(true);
    expect(holdsSubagentActivity([user, deliveredResult])).toBe(true);
  });

  it("is false for a new session and for one with only other tools and messages; odd entries do not throw", () => {
    expect(holdsSubagentActivity([])).toBe(false);
    expect(
      holdsSubagentActivity([
        user,
        otherTool,
        otherResult,
        otherCustom,
        null,
        { type: "message" },
        { type: "message", message: { role: "assistant", content: "text" } },
      ]),
    ).toBe(false);
  });
});

describe("when the TUI loads the runtime at a session's start", () => {
  const ctx = (entries: unknown[]) => ({ sessionManager: { getEntries: () => entries } });

  it("at once for a session with subagent calls (its history is drawn with our renderers), soon for one without", () => {
    expect(tuiLoadTiming(ctx([user, subagentCall]))).toBe("now");
    expect(tuiLoadTiming(ctx([user]))).toBe("soon");
  });

  it("at once when the session cannot be read", () => {
    expect(tuiLoadTiming(undefined)).toBe("now");
    expect(
      tuiLoadTiming({
        sessionManager: {
          getEntries: () => {
            throw new Error("stale");
          },
        },
      }),
    ).toBe("now");
  });
});
