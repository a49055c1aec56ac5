/**
 * Session lines and records as pi and the package write them, for the trace's unit tests: a chain's two steps,
 * the second running bash and read and starting a nested child. Times are milliseconds from T0.
 */
import { emptyUsage } from "../../../src/shared/text.ts";
import type { TaskRecord } from "../../../src/records/record.ts";

export const T0 = Date.UTC(2026, 11, 5, 4, 0, 0);
export const CHAIN_ID = "01a24476-4aee-7358-97d3-ac842c74cf99";
export const STEP1 = "01a24476-533e-76a1-a6d9-63793a5dd513";
export const STEP2 = "01a24476-5637-7465-a195-249f4152e710";
export const LEAF = "01a24476-5a4d-768b-ae33-5a1548756e1f";

const iso = (ms: number) => new Date(T0 + ms).toISOString();

export function userLine(at: number, text: string): string {
  return JSON.stringify({
    type: "message",
    timestamp: iso(at),
    message: { role: "user", content: [{ type: "text", text }], timestamp: T0 + at },
  });
}

/** An assistant turn that began at `at`, was written at `written`, with `calls` tool calls or a text. */
export function assistantLine(
  at: number,
  written: number,
  content: { text?: string; calls?: Array<{ id: string; name: string; args: Record<string, unknown> }> },
  cost = 0.0001,
  durationMs?: number,
): string {
  const parts = [
    ...(content.text ? [{ type: "text", text: content.text }] : []),
    ...(content.calls ?? []).map((call) => ({ type: "toolCall", id: call.id, name: call.name, arguments: call.args })),
  ];
  return JSON.stringify({
    type: "message",
    timestamp: iso(written),
    message: {
      role: "assistant",
      content: parts,
      provider: "fake",
      model: "fake-model",
      usage: { input: 100, output: 20, cacheRead: 5, cacheWrite: 0, cost: { total: cost } },
      stopReason: content.calls ? "toolUse" : "stop",
      timestamp: T0 + at,
      ...(durationMs !== undefined ? { durationMs } : {}),
    },
  });
}

export function toolResultLine(
  at: number,
  id: string,
  name: string,
  text: string,
  extra: Record<string, unknown> = {},
): string {
  return JSON.stringify({
    type: "message",
    timestamp: iso(at),
    message: {
      role: "toolResult",
      toolCallId: id,
      toolName: name,
      content: [{ type: "text", text }],
      timestamp: T0 + at,
      ...extra,
    },
  });
}

export function record(taskId: string, fields: Partial<TaskRecord> & { start: number; end: number }): TaskRecord {
  const { start, end, ...rest } = fields;
  return {
    version: 1,
    taskId,
    agent: "worker",
    task: "a task",
    mode: "async",
    status: "succeeded",
    exitCode: 0,
    usage: { ...emptyUsage(), turns: 1, input: 100, output: 20, cost: 0.0001 },
    model: "fake/fake-model",
    durationMs: end - start,
    dispatchedAt: T0 + start,
    startedAt: T0 + start,
    finishedAt: T0 + end,
    output: "done",
    sessionFile: `/agent/subagent-sessions/${taskId}/session.jsonl`,
    cwd: "/work",
    delivered: true,
    ...rest,
  };
}

/** The second step's session: bash (300 ms), read (an error), then a subagent call that started LEAF. */
export const STEP2_SESSION = [
  JSON.stringify({ type: "session", version: 3, id: STEP2, timestamp: iso(1000), cwd: "/work" }),
  JSON.stringify({ type: "model_change", timestamp: iso(1001), provider: "fake", modelId: "fake-model" }),
  userLine(1010, "Task: middle job"),
  assistantLine(1020, 1060, { calls: [{ id: "c1", name: "bash", args: { command: "npm test" } }] }),
  toolResultLine(1400, "c1", "bash", "all green\n".repeat(100)),
  assistantLine(1410, 1420, { calls: [{ id: "c2", name: "read", args: { path: "missing.txt" } }] }, 0.0009),
  toolResultLine(1425, "c2", "read", "ENOENT: no such file", { isError: true }),
  "not json at all",
  assistantLine(1430, 1440, { calls: [{ id: "c3", name: "subagent", args: { agent: "worker", task: "leaf job" } }] }),
  toolResultLine(2500, "c3", "subagent", `LEAF-DONE\n\n[subagent session: ${LEAF}]`, { details: { taskId: LEAF } }),
  userLine(2510, "Check your answer again."),
  assistantLine(2520, 2530, { text: "MIDDLE-DONE" }),
].join("\n");

export const LEAF_SESSION = [userLine(1500, "Task: leaf job"), assistantLine(1510, 2400, { text: "LEAF-DONE" })].join(
  "\n",
);

export const STEP1_SESSION = [userLine(10, "Task: first job"), assistantLine(20, 500, { text: "FIRST-DONE" })].join(
  "\n",
);
