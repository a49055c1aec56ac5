import { describe, expect, it } from "vitest";
import { buildForkedHistory, historyBeforeCall, type ForkMessage } from "../../../src/run/fork-history.ts";

const user = (text: string): ForkMessage => ({
  role: "user",
  content: [{ type: "text", text }],
  timestamp: 1_700_000_000_000,
});
const assistant = (text: string, calls: string[] = []): ForkMessage => ({
  role: "assistant",
  content: [
    { type: "text", text },
    ...calls.map((id) => ({ type: "toolCall", id, name: id.startsWith("sub") ? "subagent" : "read", arguments: {} })),
  ],
});
const result = (id: string): ForkMessage => ({
  role: "toolResult",
  toolCallId: id,
  content: [{ type: "text", text: `result of ${id}` }],
});

describe("historyBeforeCall", () => {
  it("ends before the assistant message holding the in-flight call, dropping its sibling results", () => {
    const messages = [
      user("The code word is HERON."),
      assistant("", ["read-1"]),
      result("read-1"),
      user("Delegate."),
      assistant("I'll delegate.", ["read-2", "sub-1"]),
      result("read-2"),
    ];
    expect(historyBeforeCall(messages, "sub-1")).toEqual(messages.slice(0, 4));
  });

  it("leaves out pi 1.x's system messages (the parent's prompt sections and tool loadout)", () => {
    const system: ForkMessage = { role: "system", content: "", timestamp: 1 };
    const messages = [
      system,
      user("a"),
      assistant("b"),
      { ...system, timestamp: 2 },
      user("Delegate."),
      assistant("", ["sub-1"]),
    ];
    expect(historyBeforeCall(messages, "sub-1")).toEqual([user("a"), assistant("b"), user("Delegate.")]);
  });

  it("keeps everything when the in-flight call is not in the history yet (pi had not stored it)", () => {
    const messages = [user("a"), assistant("b"), user("Delegate.")];
    expect(historyBeforeCall(messages, "sub-1")).toEqual(messages);
  });

  it("drops any trailing assistant turn whose calls have no results, so no call dangles", () => {
    const messages = [user("a"), assistant("", ["read-1", "read-2"]), result("read-1")];
    expect(historyBeforeCall(messages, undefined)).toEqual([user("a")]);
    const answered = [user("a"), assistant("", ["read-1"]), result("read-1")];
    expect(historyBeforeCall(answered, undefined)).toEqual(answered);
  });
});

describe("buildForkedHistory", () => {
  it("writes one chained message entry per message that reads back as the same messages", () => {
    const messages = [user("The code word is HERON."), assistant("noted"), user("Delegate."), assistant("", ["sub-1"])];
    const built = buildForkedHistory(messages, "sub-1", 100_000, new Date("2026-12-01T00:00:00Z"));
    if (!built.ok) throw new Error(built.message);
    expect(built.history.messageCount).toBe(3);
    const entries = built.history.lines
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(entries.map((entry) => entry["message"])).toEqual(messages.slice(0, 3));
    expect(entries[0]).toMatchObject({
      type: "message",
      parentId: null,
      timestamp: new Date(1_700_000_000_000).toISOString(),
    });
    expect(entries[1]!["parentId"]).toBe(entries[0]!["id"]);
    expect(entries[2]!["parentId"]).toBe(entries[1]!["id"]);
    expect(entries[1]!["timestamp"]).toBe("2026-12-01T00:00:00.000Z");
    expect(new Set(entries.map((entry) => entry["id"])).size).toBe(3);
    expect(built.history.lines.endsWith("\n")).toBe(true);
  });

  it("refuses a history over the limit, naming its size, the limit and both ways out", () => {
    const messages = [user("x".repeat(500))];
    const built = buildForkedHistory(messages, undefined, 100);
    expect(built.ok).toBe(false);
    if (built.ok) return;
    const size = JSON.stringify(messages[0]).length;
    expect(built.message).toBe(
      `Cannot fork the conversation: it is ${size} characters, above the fork limit of 100 (PI_SUBAGENT_FORK_MAX_CHARS, or "$forkMaxChars" in subagent-isolation.json). Dispatch with context "fresh" and a self-contained task, or raise the limit.`,
    );
    expect(buildForkedHistory(messages, undefined, size).ok).toBe(true);
  });

  it("an empty conversation forks as an empty history", () => {
    const built = buildForkedHistory([], "sub-1", 10);
    expect(built).toEqual({ ok: true, history: { lines: "", messageCount: 0, chars: 0 } });
  });
});
