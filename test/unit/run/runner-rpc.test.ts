/**
 * The runner driving a fake RPC child: a node script that reads JSONL commands on stdin and answers the way
 * `pi --mode rpc` does (events on stdout, exit 0 when stdin ends). Each child carries a marker in its
 * environment so the test checks that nothing of it is left.
 */
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { ChildCommand } from "../../../src/run/command-line.ts";
import { startRun, type RunSpec } from "../../../src/run/runner.ts";
import { markedMessage } from "../../../src/run/rpc.ts";
import { MARKER_VAR } from "../../harness/pi-env.ts";
import { fakeRpcChild } from "../../harness/asking-child.ts";
import { expectNoProcessesLeftAfterEach } from "../../harness/processes.ts";

const markers = expectNoProcessesLeftAfterEach();

/**
 * The fake child. `behaviour`:
 * - `answer`: answers the prompt (echoing its length and any steer received before the answer) and waits for stdin to end;
 * - `work`: says some text, starts a bash tool and waits; on `abort` ends the turn (agent_end);
 * - `deaf`: like work, but ignores `abort` and traps SIGTERM (only SIGKILL ends it);
 * - `late`: answers at once and leaves steers in its queue for the next prompt, which takes them in first.
 */
const FAKE_CHILD = fakeRpcChild(String.raw`
const behaviour = process.argv[process.argv.length - 1];
const assistant = (text, stopReason) => ({ type: "message_end", message: { role: "assistant", content: [{ type: "text", text }], stopReason, provider: "fake", model: "m", usage: { input: 1, output: 1 } } });
if (behaviour === "deaf") process.on("SIGTERM", () => {});
keepOnEnd = behaviour === "deaf";
const steers = [];
let answerTimer;
function onCommand(command) {
  out({ type: "response", command: command.type, success: true });
  if (command.type === "prompt") {
    out({ type: "agent_start" });
    if (behaviour === "late") {
      if (steers.length > 0) {
        out({ type: "message_end", message: { role: "user", content: [{ type: "text", text: "[Message from x, sent while you were working]" }] } });
        out(assistant("next run: " + command.message.slice(0, 9) + "; steers: " + steers.join(" | "), "stop"));
      } else out(assistant("first run", "stop"));
      out({ type: "agent_end", messages: [] });
    } else if (behaviour === "answer") {
      answerTimer = setTimeout(() => {
        out(assistant("prompt " + command.message.length + " chars; steers: " + steers.join(" | "), "stop"));
        out({ type: "agent_end", messages: [] });
      }, 300);
    } else {
      out(assistant("Found 3 call sites so far.", "toolUse"));
      out({ type: "tool_execution_start", toolName: "bash", args: { command: "sleep 60" } });
    }
  } else if (command.type === "steer" && behaviour === "late") {
    // The steer came after pi's last look at its queue: it waits there for the next run.
    steers.push(command.message.split("\n").filter((line) => line !== "" && !line.startsWith("[Message from")).join(" "));
  } else if (command.type === "steer") {
    // pi takes a steer in as a user message, shown in its stream.
    out({ type: "message_end", message: { role: "user", content: [{ type: "text", text: command.message }] } });
    steers.push(command.message.split("\n").filter((line) => line !== "" && !line.startsWith("[Message from")).join(" "));
  } else if (command.type === "abort" && behaviour === "work") {
    out({ type: "tool_execution_end", toolName: "bash", isError: true });
    out(assistant("", "aborted"));
    out({ type: "agent_end", messages: [] });
  }
}
`);

function fakeChild(behaviour: "answer" | "work" | "deaf" | "late", prompt = "Task: test"): ChildCommand {
  const marker = randomUUID();
  markers.push(marker);
  return {
    command: process.execPath,
    args: ["-e", FAKE_CHILD, behaviour],
    env: { PATH: process.env.PATH, [MARKER_VAR]: marker },
    mode: "rpc",
    prompt,
  };
}

function run(command: ChildCommand, extra: Partial<RunSpec> = {}) {
  return startRun({
    command,
    cwd: process.cwd(),
    activityTimeoutMs: 0,
    hardTimeoutMs: 0,
    graceMs: 500,
    stopGraceMs: 1000,
    ...extra,
  });
}

const until = async (predicate: () => boolean, timeoutMs = 10_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

describe("runner with an RPC child", () => {
  it("sends a 200 KiB task on stdin (no E2BIG) and ends the child cleanly once its run is over", async () => {
    const handle = run(fakeChild("answer", `Task: ${"x".repeat(200 * 1024)}`));
    const outcome = await handle.done;
    expect(outcome).toMatchObject({ status: "succeeded", exitCode: 0, signal: null });
    expect(outcome.output).toBe(`prompt ${200 * 1024 + 6} chars; steers: `);
    expect(outcome.partial).toBeUndefined();
  });

  it("delivers a steer to the running child; refuses one after the run is over", async () => {
    const handle = run(fakeChild("answer"));
    expect(handle.steer(markedMessage("also b.ts", "agent"))).toBe("sent");
    const outcome = await handle.done;
    expect(outcome.output).toBe("prompt 10 chars; steers: also b.ts");
    expect(handle.over).toBe(true);
    expect(handle.steer("late")).toBe("ended");
  });

  it("coalesces messages that arrive while a steer waits into one steer, in order (one model call, not one each)", async () => {
    const handle = run(fakeChild("answer"));
    for (const text of ["one", "two", "three"]) expect(handle.steer(markedMessage(text, "agent"))).toBe("sent");
    const outcome = await handle.done;
    expect(outcome.output).toBe("prompt 10 chars; steers: one | two three");
  });

  it("a steer that arrives after the child's last look at its queue gets one more run, so it is never lost", async () => {
    const handle = run(fakeChild("late"));
    expect(handle.steer(markedMessage("also b.ts", "agent"))).toBe("sent");
    const outcome = await handle.done;
    expect(outcome.output).toBe("next run: [Messages; steers: also b.ts");
  });

  it("a stop asks the child to abort, keeps its text and tools, and reports the cause", async () => {
    const handle = run(fakeChild("work"));
    await until(() => handle.state.currentTool !== undefined);
    const asked = Date.now();
    expect(handle.stop("aborted")).toBe(true);
    const outcome = await handle.done;
    expect(Date.now() - asked).toBeLessThan(1000 + 500 + 2500);
    expect(outcome.status).toBe("cancelled");
    expect(outcome.stopReason).toBe("aborted");
    expect(outcome.partial).toEqual({ text: "Found 3 call sites so far.", tools: ["bash: sleep 60"] });
    expect(outcome.output).toBe("Found 3 call sites so far.");
    expect(handle.stop("hard_timeout")).toBe(false);
  });

  it("a child that ignores the abort and traps SIGTERM still ends within the stop grace plus the kill grace", async () => {
    const handle = run(fakeChild("deaf"));
    await until(() => handle.state.currentTool !== undefined);
    const asked = Date.now();
    handle.stop("activity_timeout");
    const outcome = await handle.done;
    const took = Date.now() - asked;
    expect(took).toBeGreaterThanOrEqual(1000 + 500 - 50);
    // grace + kill grace, plus slack for a slow, shared machine
    expect(took).toBeLessThan(1000 + 500 + 3000);
    expect(outcome).toMatchObject({ status: "timed out", stopReason: "activity_timeout", signal: "SIGKILL" });
    expect(outcome.partial?.text).toBe("Found 3 call sites so far.");
  });

  it("a stop after the run was over is refused: the result stays succeeded (no cancel/succeeded contradiction)", async () => {
    const handle = run(fakeChild("answer"));
    await until(() => handle.over);
    expect(handle.stop("aborted")).toBe(false);
    expect((await handle.done).status).toBe("succeeded");
  });

  it("a turn budget reached by a turn that goes on stops the run gracefully, keeping its partial output", async () => {
    const handle = run(fakeChild("work"), { budget: { maxTurns: 1 } });
    const outcome = await handle.done;
    expect(outcome).toMatchObject({
      status: "stopped",
      stopReason: "turn_budget",
      errorMessage: "turn budget 1 reached",
    });
    expect(outcome.budgetHit).toEqual({ kind: "turn", limit: 1 });
    expect(outcome.partial?.text).toBe("Found 3 call sites so far.");
  });

  it("a final answer that reaches the budget is kept as a success (only a run that would go on is stopped)", async () => {
    const outcome = await run(fakeChild("answer"), { budget: { maxTurns: 1, maxTokens: 2 } }).done;
    expect(outcome).toMatchObject({ status: "succeeded" });
    expect(outcome.budgetHit).toBeUndefined();
  });
});
