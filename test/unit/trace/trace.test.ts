import { describe, expect, it } from "vitest";
import { buildTrace, decisionsOf, type TraceInput } from "../../../src/trace/trace.ts";
import { sessionSteps } from "../../../src/trace/session-steps.ts";
import { COSTLIEST_MARK, SLOWEST_MARK, traceLines } from "../../../src/trace/trace-text.ts";
import { spanLines, traceSpans, type TraceSpan } from "../../../src/trace/trace-spans.ts";
import { taskSpanId, traceIdOf } from "../../../src/delivery/lifecycle-events.ts";
import {
  CHAIN_ID,
  LEAF,
  LEAF_SESSION,
  record,
  STEP1,
  STEP1_SESSION,
  STEP2,
  STEP2_SESSION,
  T0,
} from "./trace-fixtures.ts";

function chainInput(): TraceInput {
  return {
    id: CHAIN_ID,
    kind: "chain",
    rootIds: [STEP1, STEP2],
    tasks: [
      { taskId: STEP1, record: record(STEP1, { start: 0, end: 600 }), steps: sessionSteps(STEP1_SESSION) },
      {
        taskId: STEP2,
        record: record(STEP2, {
          start: 1000,
          end: 2600,
          usage: { turns: 4, input: 400, output: 80, cacheRead: 0, cacheWrite: 0, cost: 0.0012, contextTokens: 0 },
          origin: {
            depth: 1,
            maxDepth: 2,
            context: "fresh",
            sandbox: "read-only",
            toolsNotGranted: "tools not granted: write (the main session has read-only tools)",
          },
          budget: { maxTurns: 8 },
          deliverable: "restated",
          messages: [{ at: T0 + 1200, from: "user", text: "also check b.ts", delivery: "steer" }],
        }),
        steps: sessionSteps(STEP2_SESSION),
      },
      {
        taskId: LEAF,
        parentTaskId: STEP2,
        record: record(LEAF, { start: 1450, end: 2450, origin: { depth: 2, maxDepth: 2, context: "fresh" } }),
        steps: sessionSteps(LEAF_SESSION),
      },
    ],
  };
}

describe("a delegation as a tree", () => {
  it("nests each child under the task that started it, sums the tree's usage and marks the slowest and costliest step", () => {
    const trace = buildTrace(chainInput());
    expect(trace.roots.map((node) => node.taskId)).toEqual([STEP1, STEP2]);
    expect(trace.roots[1]!.children.map((node) => [node.taskId, node.depth])).toEqual([[LEAF, 2]]);
    expect(trace.taskCount).toBe(3);
    expect(trace.usage.turns).toBe(6);
    expect(trace.start).toBe(T0);
    expect(trace.end).toBe(T0 + 2600);
    // The leaf's turn (890 ms) is slower than bash (340 ms); the subagent call holding the leaf is not counted.
    expect(trace.slowest).toEqual({ taskId: LEAF, index: 0 });
    expect(trace.costliest).toEqual({ taskId: STEP2, index: 2 });
  });

  it("prints the tree: tasks with agent, status, model, start and duration, their steps, the nested child under its call", () => {
    const lines = traceLines(buildTrace(chainInput()), T0 + 5000);
    expect(lines[0]).toBe(`chain ${CHAIN_ID} · 3 subagents · 2.6 s · 6 turns/↑600/↓120/$0.0014`);
    expect(lines).toContain(
      `1. worker 3a5dd513 · succeeded · fake/fake-model · 04:00:00 · 0.60 s · 1 turn/↑100/↓20/$0.0001`,
    );
    const text = lines.join("\n");
    expect(text).toContain("   +1.1 s   tool bash: npm test · 0.34 s → all green all green");
    expect(text).toContain("   +1.4 s   tool read: missing.txt · 5 ms · error: ENOENT: no such file");
    expect(text).toContain(`   +1.4 s   turn 2 · 10 ms · ↑100 ↓20 · $0.0009  ${COSTLIEST_MARK}`);
    const call = lines.findIndex((line) => line.includes("tool subagent: worker: leaf job"));
    expect(lines[call + 1]).toBe(
      "      worker 48756e1f · succeeded · fake/fake-model · 04:00:01 · 1.0 s · 1 turn/↑100/↓20/$0.0001",
    );
    expect(lines.slice(call + 1).find((line) => line.includes("LEAF-DONE"))).toContain(SLOWEST_MARK);
    expect(text).toContain("   +2.5 s   prompt: Check your answer again.");
  });

  it("lists the decisions a record holds: tools cut, sandbox, budget, checks, messages", () => {
    const decisions = decisionsOf(chainInput().tasks[1]!.record!);
    expect(decisions).toEqual([
      "tools not granted: write (the main session has read-only tools)",
      "sandbox: read-only",
      "budget: maxTurns 8",
      "deliverable check: restated (its first final message was not the deliverable; asked once, it restated it)",
      "message 04:00:01 from the user (while running): also check b.ts",
    ]);
    const stopped = decisionsOf(
      record(STEP1, { start: 0, end: 1, status: "stopped", errorMessage: "loop: the same call 5 times" }),
    );
    expect(stopped).toContain("stopped: loop: the same call 5 times");
  });

  it("shows a task that still runs, from its session alone, with its clock running", () => {
    const trace = buildTrace({
      id: STEP2,
      kind: "task",
      rootIds: [STEP2],
      tasks: [
        {
          taskId: STEP2,
          live: { agent: "worker", task: "middle", startedAt: T0 + 1000 },
          steps: sessionSteps(STEP2_SESSION.split("\n").slice(0, 4).join("\n")),
        },
      ],
    });
    expect(trace.end).toBeUndefined();
    const lines = traceLines(trace, T0 + 3000);
    expect(lines[0]).toBe(`task ${STEP2} · 1 subagent · running for 2.0 s · 1 turn/↑100/↓20/$0.0001`);
    expect(lines[1]).toMatch(/^worker 4152e710 · running · 04:00:01 · running 2.0 s/);
    expect(lines.at(-1)).toContain("tool bash: npm test · running");
  });
});

describe("a task with neither a record nor a live run (its pi was killed first)", () => {
  it("is `unrecorded`, ending where its session ends", () => {
    const trace = buildTrace({
      id: STEP2,
      kind: "task",
      rootIds: [STEP2],
      tasks: [
        { taskId: STEP2, steps: sessionSteps(STEP2_SESSION.split("\n").slice(0, 5).join("\n")), createdAt: T0 + 900 },
      ],
    });
    expect([trace.roots[0]!.status, trace.start - T0, trace.end! - T0]).toEqual(["unrecorded", 1020, 1400]);
    expect(traceLines(trace, T0 + 9000)[1]).toMatch(/^subagent 4152e710 · unrecorded · 04:00:01 · 0.38 s · 1 turn/);
  });
});

describe("a trace as OpenTelemetry spans", () => {
  const spans = traceSpans(buildTrace(chainInput()), T0 + 5000);
  const byId = new Map(spans.map((span) => [span.spanId, span]));

  it("links every span to its parent, so the links rebuild the tree, with one trace id", () => {
    expect(new Set(spans.map((span) => span.traceId))).toEqual(new Set([traceIdOf(CHAIN_ID)]));
    expect(spans.filter((span) => !span.parentSpanId).map((span) => span.name)).toEqual(["invoke_workflow chain"]);
    const agents = spans.filter((span) => span.name === "invoke_agent worker");
    expect(agents.map((span) => span.spanId)).toEqual([STEP1, STEP2, LEAF].map(taskSpanId));
    const parentOf = (span: TraceSpan) => byId.get(span.parentSpanId!);
    expect(parentOf(agents[2]!)?.name).toBe("execute_tool subagent");
    expect(parentOf(parentOf(agents[2]!)!)).toBe(agents[1]);
    expect(spans.filter((span) => span.parentSpanId === agents[1]!.spanId).map((span) => span.name)).toEqual([
      "chat fake/fake-model",
      "execute_tool bash",
      "chat fake/fake-model",
      "execute_tool read",
      "chat fake/fake-model",
      "execute_tool subagent",
      "chat fake/fake-model",
    ]);
  });

  it("keeps each span's times inside its parent's", () => {
    for (const span of spans) {
      const parent = span.parentSpanId ? byId.get(span.parentSpanId) : undefined;
      if (!parent) continue;
      expect(BigInt(span.startTimeUnixNano) >= BigInt(parent.startTimeUnixNano), span.name).toBe(true);
      expect(BigInt(span.endTimeUnixNano) <= BigInt(parent.endTimeUnixNano), span.name).toBe(true);
    }
  });

  it("carries the GenAI attributes: agent name and id, model, tokens, cost, tool name; one JSON object a line", () => {
    const leaf = byId.get(taskSpanId(LEAF))!;
    expect(leaf.attributes).toMatchObject({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.name": "worker",
      "gen_ai.agent.id": LEAF,
      "gen_ai.request.model": "fake/fake-model",
      "gen_ai.usage.input_tokens": 100,
      "gen_ai.usage.output_tokens": 20,
      "pi_subagent.cost_usd": 0.0001,
    });
    const read = spans.find((span) => span.name === "execute_tool read")!;
    expect(read.attributes).toMatchObject({ "gen_ai.tool.name": "read", "gen_ai.tool.call.id": "c2" });
    expect(read.status.code).toBe("ERROR");
    const lines = spanLines(spans).trimEnd().split("\n");
    expect(lines.map((line) => (JSON.parse(line) as TraceSpan).spanId)).toEqual(spans.map((span) => span.spanId));
  });
});
