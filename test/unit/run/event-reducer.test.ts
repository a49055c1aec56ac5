import { describe, expect, it } from "vitest";
import { classifyRun } from "../../../src/run/outcome.ts";
import {
  applyEvent,
  applyLine,
  initialRunState,
  MAX_ACTIVITY_LINES,
  STREAM_TAIL_CHARS,
  type RunState,
} from "../../../src/run/event-reducer.ts";
import { LineSplitter } from "../../../src/run/rpc.ts";
import {
  agentEnd,
  assistantEnd,
  assistantMessage,
  BASH_TOOL_STREAM,
  HTTP_500_STREAM,
  line,
  messageUpdate,
  readFixture,
  retryEnd,
  retryStart,
  sessionLine,
  textDelta,
  toolEnd,
  toolStart,
  toolUpdate,
  userEnd,
} from "../fixtures/pi-events.ts";

/** Feeds `text` through a LineSplitter in chunks of `chunkSize` (all at once when absent). */
function reduce(
  text: string,
  options: { chunkSize?: number; maxLineChars?: number; state?: RunState; now?: number } = {},
): RunState {
  const state = options.state ?? initialRunState(0);
  const splitter = new LineSplitter((split) => applyLine(state, split, options.now ?? 1), options.maxLineChars);
  const size = options.chunkSize ?? text.length;
  for (let at = 0; at < text.length; at += size) splitter.push(text.slice(at, at + size));
  splitter.end();
  return state;
}

const lines = (...all: string[]): string => `${all.join("\n")}\n`;

describe("event reducer on a real pi stream (bash tool call, then an answer)", () => {
  const stream = readFixture(BASH_TOOL_STREAM);
  const state = reduce(stream);

  it("keeps only the last assistant message's text as the final output", () => {
    expect(state.finalText).toBe("final answer here");
  });

  it("sums usage over both turns, cost included, and keeps the last turn's context size", () => {
    expect(state.usage.turns).toBe(2);
    expect(state.usage.input).toBe(200);
    expect(state.usage.output).toBe(40);
    expect(state.usage.cacheRead).toBe(0);
    expect(state.usage.cacheWrite).toBe(0);
    expect(state.usage.cost).toBeCloseTo(0.00028, 10);
    expect(state.usage.contextTokens).toBe(120);
  });

  it("records the tool call, model, stop reason and session id", () => {
    expect(state.toolCalls).toBe(1);
    expect(state.lastTool).toMatchObject({ name: "bash", summary: "echo hello" });
    expect(state.currentTool).toBeUndefined();
    expect(state.provider).toBe("fake");
    expect(state.model).toBe("fake-model");
    expect(state.stopReason).toBe("stop");
    expect(state.errorMessage).toBeUndefined();
    expect(state.sessionId).toBe("01a22a89-c3cf-7753-8bf8-71bd9a5261c6");
  });

  it("streams both texts into the tail, one per line, and logs what happened", () => {
    expect(state.streamTail).toBe("let me look\nfinal answer here");
    expect(state.activity.map((entry) => `${entry.kind}: ${entry.text}`)).toEqual([
      "text: let me look",
      "tool: bash: echo hello",
      "text: final answer here",
    ]);
  });

  it("skips nothing and counts every event", () => {
    expect(state.skippedLines).toBe(0);
    expect(state.events).toBe(stream.trim().split("\n").length);
  });

  it("is classified as succeeded after a clean exit", () => {
    expect(classifyRun(state, { exitCode: 0, signal: null })).toEqual({ status: "succeeded", stopReason: "stop" });
  });

  it("gives the same state whatever the chunking", () => {
    const strip = (s: RunState) => ({ ...s, activity: s.activity.map(({ kind, text }) => ({ kind, text })) });
    for (const chunkSize of [1, 7, 64, 1000, 4096]) {
      expect(strip(reduce(stream, { chunkSize }))).toEqual(strip(state));
    }
  });
});

describe("event reducer on a real pi stream (model HTTP 500, no retry)", () => {
  const state = reduce(readFixture(HTTP_500_STREAM));

  it("keeps the error of the last message and has no output", () => {
    expect(state.stopReason).toBe("error");
    expect(state.errorMessage).toBe("500 boom");
    expect(state.finalText).toBe("");
    expect(state.usage.turns).toBe(1);
    expect(state.activity.at(-1)).toMatchObject({ kind: "error", text: "500 boom" });
  });

  it("is classified as failed even though pi exited 0", () => {
    expect(classifyRun(state, { exitCode: 0, signal: null })).toEqual({
      status: "failed",
      stopReason: "error",
      errorMessage: "500 boom",
    });
  });
});

describe("event reducer: lines that are not events", () => {
  it("skips and counts malformed JSON without touching the state", () => {
    const state = reduce(
      lines('{"type":"message_end","message":{', "{not json}", '{"type":"tool_execution_start","toolName":"bash"'),
    );
    expect(state.skippedLines).toBe(3);
    expect(state.events).toBe(0);
    expect(state.usage.turns).toBe(0);
    expect(state.toolCalls).toBe(0);
  });

  it("skips JSON that is not an event object", () => {
    const state = reduce(lines("[1,2,3]", '"text"', "42", "null", '{"kind":"message_end"}', '{"type":7}'));
    expect(state.skippedLines).toBe(6);
    expect(state.events).toBe(0);
  });

  it("a flood of a million short non-JSON lines is counted and dropped within a measured budget, with a bounded sample", () => {
    const state = initialRunState(0);
    const splitter = new LineSplitter((line) => applyLine(state, line, 1));
    const chunk = "y\n".repeat(32 * 1024);
    const started = performance.now();
    for (let i = 0; i < 32; i++) splitter.push(chunk);
    splitter.push(`${"z".repeat(1000)}\n{ not json }\n`);
    const took = performance.now() - started;
    expect(state.skippedLines).toBe(32 * 32 * 1024 + 2);
    expect(state.skippedSample).toEqual(["y", "y", "y", "y", "y"]);
    expect(state.events).toBe(0);
    // About 0.1 s here; with a failed JSON.parse for every line it took over 10 s.
    expect(took, `took ${took.toFixed(0)} ms`).toBeLessThan(3000);
  });

  it("keeps each sampled line short", () => {
    const state = reduce(lines("a".repeat(5000), assistantEnd({ text: "done" })));
    expect(state.skippedSample).toEqual(["a".repeat(200)]);
    expect(state.finalText).toBe("done");
  });

  it("skips plain text (a warning printed on stdout) and ignores blank lines", () => {
    const state = reduce(lines("Warning: something odd", "", "   ", assistantEnd({ text: "done" })));
    expect(state.skippedLines).toBe(1);
    expect(state.finalText).toBe("done");
  });

  it("skips a partial last line when the stream ends mid-event, keeping what came before", () => {
    const whole = assistantEnd({ text: "first answer", usage: { input: 10, output: 5 } });
    const cut = assistantEnd({ text: "second answer" }).slice(0, 60);
    const state = reduce(`${whole}\n${cut}`);
    expect(state.skippedLines).toBe(1);
    expect(state.finalText).toBe("first answer");
    expect(state.usage.turns).toBe(1);
  });

  it("applies events written without pi's exact prefix through the full parser", () => {
    const spaced = JSON.stringify(
      { type: "message_end", message: assistantMessage({ text: "spaced out", usage: { input: 3, output: 4 } }) },
      null,
      0,
    ).replace('{"type":"message_end"', '{ "type" : "message_end"');
    const state = reduce(lines(spaced));
    expect(state.finalText).toBe("spaced out");
    expect(state.usage.input).toBe(3);
  });

  it("never reports an earlier answer when the last one was too large to keep", () => {
    const state = initialRunState(0);
    const splitter = new LineSplitter((line) => applyLine(state, line, 1), 1000);
    splitter.push(`${assistantEnd({ text: "an earlier answer" })}\n`);
    splitter.push(`${assistantEnd({ text: "x".repeat(5000) })}\n`);
    expect(state.finalText).toBe("");
    expect(state.errorMessage).toMatch(/final answer \(\d+ characters\) was too large to keep/);
  });

  it("handles CRLF line endings", () => {
    const state = reduce(
      [
        sessionLine("0190aaaa-0000-7000-8000-000000000000"),
        toolStart("read", { path: "a.ts" }),
        toolEnd("read", "x", true),
        assistantEnd({ text: "ok" }),
        agentEnd([], true),
      ]
        .map((l) => `${l}\r\n`)
        .join(""),
    );
    expect(state.skippedLines).toBe(0);
    expect(state.sessionId).toBe("0190aaaa-0000-7000-8000-000000000000");
    expect(state.activity.map((a) => a.text)).toContain("read failed");
    expect(state.finalText).toBe("ok");
    expect(state.retryPending).toBe(true);
  });
});

describe("event reducer: streaming text", () => {
  it("decodes escaped deltas", () => {
    const state = reduce(lines(textDelta('say "hi"\\n\tthen é ✓ \u0001')));
    expect(state.streamTail).toBe('say "hi"\\n\tthen é ✓ \u0001');
    expect(state.phase).toBe("writing");
  });

  it("keeps the stream tail bounded to the last characters", () => {
    const deltas: string[] = [];
    let soFar = "";
    for (let i = 0; i < 500; i++) {
      const delta = `chunk ${String(i).padStart(3, "0")} `;
      soFar += delta;
      deltas.push(textDelta(delta, soFar));
    }
    const state = reduce(lines(...deltas));
    expect(state.streamTail.length).toBe(STREAM_TAIL_CHARS);
    expect(state.streamTail.endsWith("chunk 499 ")).toBe(true);
    expect(soFar.endsWith(state.streamTail)).toBe(true);
  });

  it("separates the text of consecutive messages with a newline", () => {
    const state = reduce(
      lines(messageUpdate("text_start", {}), textDelta("one"), messageUpdate("text_start", {}), textDelta("two")),
    );
    expect(state.streamTail).toBe("one\ntwo");
  });

  it("follows the phase: thinking, writing, tool call", () => {
    const state = initialRunState(0);
    expect(state.phase).toBe("starting");
    reduce(lines(line({ type: "agent_start" })), { state });
    expect(state.phase).toBe("thinking");
    reduce(lines(messageUpdate("thinking_delta", { delta: "hmm" })), { state });
    expect(state.phase).toBe("thinking");
    expect(state.streamTail).toBe("");
    reduce(lines(textDelta("x")), { state });
    expect(state.phase).toBe("writing");
    reduce(lines(messageUpdate("toolcall_delta", { delta: '{"comm' })), { state });
    expect(state.phase).toBe("writing");
    reduce(lines(assistantEnd({ text: "x", toolCalls: [{ name: "bash", arguments: { command: "ls" } }] })), { state });
    expect(state.phase).toBe("tool");
    reduce(lines(toolStart("bash", { command: "ls" })), { state });
    expect(state.phase).toBe("tool");
    reduce(lines(toolEnd("bash", "a\nb")), { state });
    expect(state.phase).toBe("waiting");
  });

  it("reads deltas from an oversized message_update whose partial message was cut", () => {
    const huge = "y".repeat(3_000_000);
    const update = textDelta("tail words", huge);
    const state = reduce(lines(update), { maxLineChars: 1_000_000, chunkSize: 65_536 });
    expect(state.streamTail).toBe("tail words");
    expect(state.skippedLines).toBe(0);
  });
});

describe("event reducer: tools", () => {
  it("tracks the current and last tool with a short summary of the arguments", () => {
    const state = reduce(lines(toolStart("bash", { command: "npm test -- --run\n&& echo done", timeout: 60 })));
    expect(state.currentTool).toMatchObject({ name: "bash", summary: "npm test -- --run && echo done" });
    expect(state.lastTool).toEqual(state.currentTool);
    expect(state.toolCalls).toBe(1);

    reduce(lines(toolUpdate("bash", { command: "npm test" }, "PASS 3 tests"), toolEnd("bash", "PASS")), { state });
    expect(state.currentTool).toBeUndefined();
    expect(state.lastTool).toMatchObject({ name: "bash", summary: "npm test -- --run && echo done" });

    reduce(lines(toolStart("read", { path: "src/index.ts" }), toolEnd("read", "...")), { state });
    expect(state.lastTool).toMatchObject({ name: "read", summary: "src/index.ts" });
    expect(state.toolCalls).toBe(2);
  });

  it("logs a failed tool", () => {
    const state = reduce(lines(toolStart("bash", { command: "false" }), toolEnd("bash", "exit 1", true)));
    expect(state.activity.map((a) => `${a.kind}: ${a.text}`)).toEqual([
      "tool: bash: false",
      "tool-result: bash failed",
    ]);
  });

  it("reads name and error flag from an oversized tool_execution_end", () => {
    const big = toolEnd("bash", "z".repeat(2_000_000), true);
    const state = reduce(lines(toolStart("bash", { command: "cat big" }), big), {
      maxLineChars: 500_000,
      chunkSize: 65_536,
    });
    expect(state.skippedLines).toBe(0);
    expect(state.currentTool).toBeUndefined();
    expect(state.activity.at(-1)?.text).toBe("bash failed");
  });

  it("keeps the activity log bounded", () => {
    const many: string[] = [];
    for (let i = 0; i < 200; i++) many.push(toolStart("read", { path: `file-${i}.ts` }), toolEnd("read", "ok"));
    const state = reduce(lines(...many));
    expect(state.activity).toHaveLength(MAX_ACTIVITY_LINES);
    expect(state.activity.at(-1)?.text).toBe("read: file-199.ts");
    expect(state.toolCalls).toBe(200);
  });
});

describe("event reducer: usage and the last message", () => {
  it("sums usage over turns (cost included) and ignores user and tool-result messages", () => {
    const state = reduce(
      lines(
        userEnd("Task: do it"),
        assistantEnd({
          text: "a",
          toolCalls: [{ name: "ls", arguments: {} }],
          usage: { input: 1000, output: 200, cacheRead: 50, cacheWrite: 10, cost: 0.001 },
        }),
        line({
          type: "message_end",
          message: { role: "toolResult", toolCallId: "c", toolName: "ls", content: [], isError: false },
        }),
        assistantEnd({ text: "b", usage: { input: 1500, output: 300, cacheRead: 1000, cost: 0.0032 } }),
      ),
    );
    expect(state.usage).toEqual({
      turns: 2,
      input: 2500,
      output: 500,
      cacheRead: 1050,
      cacheWrite: 10,
      cost: expect.closeTo(0.0042, 10),
      contextTokens: 2800,
    });
  });

  it("takes stop reason and error from the last assistant message only", () => {
    const state = reduce(
      lines(assistantEnd({ stopReason: "error", errorMessage: "overloaded" }), assistantEnd({ text: "recovered" })),
    );
    expect(state.stopReason).toBe("stop");
    expect(state.errorMessage).toBeUndefined();
    expect(state.finalText).toBe("recovered");

    reduce(lines(assistantEnd({ text: "half an ans", stopReason: "length" })), { state });
    expect(state.stopReason).toBe("length");
    expect(state.finalText).toBe("half an ans");
  });

  it("has no final text when the last message only called a tool", () => {
    const state = reduce(
      lines(
        assistantEnd({ text: "thinking aloud" }),
        assistantEnd({ toolCalls: [{ name: "bash", arguments: { command: "sleep 300" } }] }),
      ),
    );
    expect(state.finalText).toBe("");
    expect(state.stopReason).toBe("toolUse");
  });

  it("estimates the tokens of a turn whose usage is missing, non-numeric or negative, and marks its cost unknown", () => {
    const task = "t".repeat(4000);
    const bad: unknown[] = [
      undefined,
      { input: "12", output: null, cost: { total: Number.NaN } },
      { input: -500, output: -20, cost: { total: -0.1 } },
    ];
    for (const usage of bad) {
      const message = assistantMessage({ text: "a".repeat(400) });
      message.usage = usage;
      const answerChars = JSON.stringify(message.content).length;
      const state = reduce(lines(userEnd(task), line({ type: "message_end", message })));
      const taskChars = JSON.stringify([{ type: "text", text: task }]).length;
      expect(state.usage).toMatchObject({
        turns: 1,
        input: Math.ceil(taskChars / 4),
        output: Math.ceil(answerChars / 4),
        cost: 0,
      });
      expect(state).toMatchObject({ estimatedTurns: 1, unknownCostTurns: 1 });
    }
  });

  it("a later turn's estimate counts everything the child read before it (answers and tool results)", () => {
    const state = reduce(
      lines(
        userEnd("task"),
        assistantEnd({ toolCalls: [{ name: "bash", arguments: { command: "ls" } }] }),
        line({
          type: "message_end",
          message: { role: "toolResult", content: [{ type: "text", text: "x".repeat(8000) }] },
        }),
        assistantEnd({ text: "done" }),
      ),
    );
    expect(state.usage.turns).toBe(2);
    expect(state.estimatedTurns).toBe(2);
    expect(state.usage.input).toBeGreaterThan(2000);
  });

  it("keeps a usable report as it is, and a negative cost with usable tokens is an unknown cost", () => {
    const good = reduce(lines(assistantEnd({ text: "x", usage: { input: 100, output: 20, cost: 0.5 } })));
    expect(good.usage).toMatchObject({ turns: 1, input: 100, output: 20, cost: 0.5 });
    expect(good).toMatchObject({ estimatedTurns: 0, unknownCostTurns: 0 });
    const badCost = reduce(lines(assistantEnd({ text: "x", usage: { input: 100, output: 20, cost: -1 } })));
    expect(badCost.usage).toMatchObject({ input: 100, output: 20, cost: 0 });
    expect(badCost).toMatchObject({ estimatedTurns: 0, unknownCostTurns: 1 });
  });

  it("a failed call without usage costs nothing (not estimated); pi's aborted no-call message is not a turn", () => {
    const state = reduce(
      lines(
        userEnd("task"),
        assistantEnd({ stopReason: "error", errorMessage: "500 boom" }),
        assistantEnd({
          text: "step",
          toolCalls: [{ name: "bash", arguments: { command: "ls" } }],
          usage: { input: 50, output: 5 },
        }),
        assistantEnd({ text: "", stopReason: "aborted" }),
      ),
    );
    expect(state.usage).toMatchObject({ turns: 2, input: 50, output: 5 });
    expect(state).toMatchObject({ estimatedTurns: 0, unknownCostTurns: 0, stopReason: "aborted" });
  });
});

describe("event reducer: retries", () => {
  const failedAttempt = [
    assistantEnd({ stopReason: "error", errorMessage: "500 boom" }),
    line({ type: "turn_end" }),
    agentEnd([assistantMessage({ stopReason: "error", errorMessage: "500 boom" })]),
  ];

  it("a failed call is marked from its message_end until pi says what follows (a retry, or willRetry: false)", () => {
    const state = reduce(
      lines(assistantEnd({ stopReason: "error", errorMessage: "500 boom" }), line({ type: "turn_end" })),
    );
    expect(state.failedCallAt).toEqual(expect.any(Number));
    // pi 0.73.1's agent_end says nothing about a retry: still undecided.
    reduce(lines(agentEnd([assistantMessage({ stopReason: "error", errorMessage: "500 boom" })])), { state });
    expect(state.failedCallAt).toEqual(expect.any(Number));
    reduce(lines(retryStart(1, 3, "500 boom")), { state });
    expect(state.failedCallAt).toBeUndefined();
    expect(state.retryPending).toBe(true);

    const noRetry = reduce(lines(assistantEnd({ stopReason: "error", errorMessage: "500 boom" }), agentEnd([], false)));
    expect(noRetry.failedCallAt).toBeUndefined();
    const answered = reduce(lines(assistantEnd({ text: "fine" })));
    expect(answered.failedCallAt).toBeUndefined();
  });

  it("auto_retry_start marks a retry pending; a later success clears the error", () => {
    const state = reduce(lines(...failedAttempt, retryStart(1, 3, "500 boom")));
    expect(state.retryPending).toBe(true);
    expect(state.retryAttempts).toBe(1);
    expect(state.phase).toBe("retrying");
    expect(state.activity.at(-1)).toMatchObject({ kind: "retry", text: "retrying (1/3): 500 boom" });

    reduce(
      lines(
        line({ type: "agent_start" }),
        line({ type: "turn_start" }),
        textDelta("it worked"),
        assistantEnd({ text: "it worked", usage: { input: 10, output: 3 } }),
        retryEnd(true, 1),
        agentEnd(),
      ),
      { state },
    );
    expect(state.retryPending).toBe(false);
    expect(state.errorMessage).toBeUndefined();
    expect(state.stopReason).toBe("stop");
    expect(state.finalText).toBe("it worked");
    expect(classifyRun(state, { exitCode: 0, signal: null }).status).toBe("succeeded");
  });

  it("the retry's own request starting ends the pending state (a hang after that is a hang)", () => {
    const state = reduce(lines(...failedAttempt, retryStart(1, 3, "500 boom")));
    expect(state.retryPending).toBe(true);
    reduce(lines(line({ type: "agent_start" }), line({ type: "turn_start" })), { state });
    expect(state.retryPending).toBe(false);
    expect(state.retryAttempts).toBe(1);
    expect(state.phase).toBe("thinking");
  });

  it("a retry that gives up keeps the final error", () => {
    const state = reduce(
      lines(...failedAttempt, retryStart(1, 1, "500 boom"), ...failedAttempt, retryEnd(false, 1, "500 boom (gave up)")),
    );
    expect(state.retryPending).toBe(false);
    expect(state.errorMessage).toBe("500 boom (gave up)");
    expect(classifyRun(state, { exitCode: 0, signal: null })).toMatchObject({ status: "failed", stopReason: "error" });
  });

  it("agent_end with willRetry:true marks a retry pending, without it nothing changes", () => {
    const pending = reduce(
      lines(
        assistantEnd({ stopReason: "error", errorMessage: "429" }),
        agentEnd([assistantMessage({ text: "x" })], true),
      ),
    );
    expect(pending.retryPending).toBe(true);
    const notPending = reduce(
      lines(
        assistantEnd({ stopReason: "error", errorMessage: "429" }),
        agentEnd([assistantMessage({ text: "x" })], false),
      ),
    );
    expect(notPending.retryPending).toBe(false);
  });

  it("does not mistake a willRetry inside the conversation for the flag", () => {
    const state = reduce(lines(agentEnd([assistantMessage({ text: '"willRetry":true' })])));
    expect(state.retryPending).toBe(false);
  });

  it("reads willRetry from the tail of an oversized agent_end", () => {
    const messages = [assistantMessage({ text: "w".repeat(3_000_000) })];
    const state = reduce(lines(agentEnd(messages, true)), { maxLineChars: 1_000_000, chunkSize: 65_536 });
    expect(state.retryPending).toBe(true);
    expect(state.skippedLines).toBe(0);
  });
});

describe("event reducer: bookkeeping", () => {
  it("stamps each event with the time it was applied", () => {
    const state = initialRunState(100);
    expect(state.lastEventAt).toBe(100);
    reduce(lines(line({ type: "turn_start" })), { state, now: 250 });
    expect(state.lastEventAt).toBe(250);
    reduce(lines("garbage"), { state, now: 900 });
    expect(state.lastEventAt).toBe(250);
  });

  it("applyEvent accepts an already parsed event", () => {
    const state = initialRunState(0);
    applyEvent(state, { type: "session", id: "abc" }, 5);
    applyEvent(state, { type: "message_update", assistantMessageEvent: { type: "text_delta", delta: "parsed" } }, 6);
    applyEvent(state, { type: "tool_execution_start", toolName: "grep", args: { pattern: "TODO" } }, 7);
    expect(state).toMatchObject({
      sessionId: "abc",
      streamTail: "parsed",
      currentTool: { name: "grep", summary: "TODO", at: 7 },
      events: 3,
      lastEventAt: 7,
    });
  });
});
