/**
 * The fork's source with pi's own projection (pi 0.73.1's buildSessionContext here; pi 1.x's in its e2e run):
 * the active branch only, a compaction's summary in place of what it replaced, and the result written as
 * entries that pi reads back to the same messages.
 */
import { buildSessionContext, type SessionEntry } from "@mariozechner/pi-coding-agent";
import { describe, expect, it } from "vitest";
import { buildForkedHistory } from "../../../../src/run/fork-history.ts";
import { forkedConversation } from "../../../../src/pi/tool/execute.ts";

const at = "2026-12-01T00:00:00.000Z";
const user = (id: string, parentId: string | null, text: string): SessionEntry =>
  ({
    type: "message",
    id,
    parentId,
    timestamp: at,
    message: { role: "user", content: [{ type: "text", text }], timestamp: 1 },
  }) as SessionEntry;
const assistant = (id: string, parentId: string, text: string, calls: string[] = []): SessionEntry =>
  ({
    type: "message",
    id,
    parentId,
    timestamp: at,
    message: {
      role: "assistant",
      content: [
        { type: "text", text },
        ...calls.map((call) => ({ type: "toolCall", id: call, name: "subagent", arguments: {} })),
      ],
      api: "openai-completions",
      provider: "fake",
      model: "fake-model",
      usage: {
        input: 0,
        output: 0,
        cacheRead: 0,
        cacheWrite: 0,
        totalTokens: 0,
        cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
      },
      stopReason: calls.length > 0 ? "toolUse" : "stop",
      timestamp: 2,
    },
  }) as SessionEntry;

function sessionManagerOf(entries: SessionEntry[], leafId: string) {
  return { getEntries: () => entries, getLeafId: () => leafId } as unknown as Parameters<typeof forkedConversation>[0];
}

const texts = (messages: Array<{ role: string; content?: unknown; summary?: string }>) =>
  messages.map((m) =>
    m.role === "compactionSummary"
      ? `summary:${m.summary}`
      : `${m.role}:${JSON.stringify(m.content).match(/"text":"([^"]*)"/)?.[1] ?? ""}`,
  );

describe("forkedConversation", () => {
  it("follows the active branch only", () => {
    const entries = [
      user("a", null, "root"),
      assistant("b", "a", "one"),
      user("c", "b", "left branch"),
      user("d", "b", "right branch"),
      assistant("e", "d", "", ["call-1"]),
    ];
    expect(texts(forkedConversation(sessionManagerOf(entries, "e")))).toEqual([
      "user:root",
      "assistant:one",
      "user:right branch",
      "assistant:",
    ]);
  });

  it("puts a compaction's summary in place of what it replaced, and the fork reads back the same way", () => {
    const compaction = {
      type: "compaction",
      id: "d",
      parentId: "c",
      timestamp: at,
      summary: "EARLIER-WORK",
      firstKeptEntryId: "c",
      tokensBefore: 1000,
    } as SessionEntry;
    const entries = [
      user("a", null, "old and long"),
      assistant("b", "a", "old answer"),
      user("c", "b", "kept question"),
      compaction,
      assistant("e", "d", "kept answer"),
      user("f", "e", "Delegate."),
      assistant("g", "f", "", ["call-1"]),
    ];
    const messages = forkedConversation(sessionManagerOf(entries, "g"));
    expect(texts(messages)).toEqual([
      "summary:EARLIER-WORK",
      "user:kept question",
      "assistant:kept answer",
      "user:Delegate.",
      "assistant:",
    ]);

    const fork = buildForkedHistory(messages, "call-1", 100_000);
    if (!fork.ok) throw new Error(fork.message);
    expect(fork.history.messageCount).toBe(4);
    const written = fork.history.lines
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line) as SessionEntry);
    const readBack = buildSessionContext(written, written.at(-1)!.id).messages;
    expect(texts(readBack as never)).toEqual([
      "summary:EARLIER-WORK",
      "user:kept question",
      "assistant:kept answer",
      "user:Delegate.",
    ]);
  });

  it("writes a custom message (a delivered result) back as the custom_message entry pi made it from", () => {
    const custom = {
      type: "custom_message",
      id: "c",
      parentId: "b",
      timestamp: at,
      customType: "subagent-result",
      content: "## [subagent-result] worker succeeded",
      display: true,
      details: { taskId: "t" },
    } as SessionEntry;
    const entries = [user("a", null, "go"), assistant("b", "a", "dispatched"), custom, assistant("d", "c", "noted")];
    const messages = forkedConversation(sessionManagerOf(entries, "d"));
    const fork = buildForkedHistory(messages, undefined, 100_000);
    if (!fork.ok) throw new Error(fork.message);
    const written = fork.history.lines
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line) as SessionEntry);
    expect(written[2]).toMatchObject({
      type: "custom_message",
      customType: "subagent-result",
      content: "## [subagent-result] worker succeeded",
      display: true,
      details: { taskId: "t" },
    });
    expect(buildSessionContext(written, written.at(-1)!.id).messages).toEqual(messages);
  });
});
