import { describe, expect, it } from "vitest";
import { readWorkflow, withPrevious, workflowResultText, readWorkflowCap } from "../../../src/workflows/workflow.ts";
import { blockingWorkflowRecord } from "../../../src/workflows/blocking-workflow.ts";

const A = "01912345-6789-7abc-8def-0123456789ab";
const B = "01912345-aaaa-7bbb-8ccc-0123456789ab";
const C = "01912345-bbbb-7ccc-8ddd-0123456789ab";

describe("reading a batch or a chain", () => {
  it("makes each part a single call's parameters, with the call's agentScope and confirmProjectAgents", () => {
    const read = readWorkflow(
      {
        tasks: [
          { agent: "explore", task: "a", model: "x/y" },
          { agent: "planner", task: "b" },
        ],
        agentScope: "user",
      },
      16,
    );
    expect(read).toEqual({
      ok: true,
      workflow: {
        kind: "batch",
        parts: [
          { agent: "explore", task: "a", model: "x/y", agentScope: "user", confirmProjectAgents: undefined },
          { agent: "planner", task: "b", agentScope: "user", confirmProjectAgents: undefined },
        ],
      },
    });
    expect(readWorkflow({ chain: [{ agent: "explore", task: "a" }] }, 16)).toMatchObject({
      ok: true,
      workflow: { kind: "chain" },
    });
  });

  it("refuses, before anything starts, both kinds at once, an empty list, a list over the cap, and single-task fields beside it", () => {
    const part = { agent: "explore", task: "a" };
    expect(readWorkflow({ tasks: [part], chain: [part] }, 16)).toEqual({
      ok: false,
      message: "Give either tasks (a batch) or chain, not both. Nothing was started.",
    });
    expect(readWorkflow({ chain: [] }, 16)).toEqual({
      ok: false,
      message: "chain is empty: give at least one {agent, task}, or call with agent and task. Nothing was started.",
    });
    expect(readWorkflow({ tasks: [part, part, part] }, 2)).toEqual({
      ok: false,
      message:
        'tasks has 3 entries, above the cap of 2 ("$maxWorkflowParts" in the user\'s subagent-isolation.json). Split the work. Nothing was started.',
    });
    expect(readWorkflow({ tasks: [part], agent: "explore", model: "x/y" }, 16)).toEqual({
      ok: false,
      message: "With tasks, put agent, model inside each entry, not beside tasks. Nothing was started.",
    });
    expect(readWorkflow({ tasks: "x" as never }, 16)).toEqual({
      ok: false,
      message: "tasks must be an array of {agent, task} objects. Nothing was started.",
    });
  });

  it("replaces every {previous} in a chain step's task", () => {
    expect(withPrevious("Check {previous}, then {previous} again", "OUT")).toBe("Check OUT, then OUT again");
    expect(withPrevious("No placeholder", "OUT")).toBe("No placeholder");
  });

  it("takes the cap from the user file only (16 by default)", () => {
    expect(readWorkflowCap({ user: {}, project: {} })).toEqual({ cap: 16, warnings: [] });
    expect(
      readWorkflowCap({
        user: { settings: { $maxWorkflowParts: 4 } },
        project: { filePath: "/p/.pi/subagent-isolation.json", settings: { $maxWorkflowParts: 99 } },
      }),
    ).toEqual({
      cap: 4,
      warnings: [
        'pi-subagent-dispatch: /p/.pi/subagent-isolation.json: "$maxWorkflowParts" can only be set in your user-level subagent-isolation.json; ignored',
      ],
    });
    expect(
      readWorkflowCap({ user: { filePath: "/u.json", settings: { $maxWorkflowParts: 0 } }, project: {} }).warnings,
    ).toEqual(['pi-subagent-dispatch: /u.json: "$maxWorkflowParts" must be a whole number of at least 1; using 16']);
  });
});

describe("the combined result of a blocking batch or chain", () => {
  it("is the title with the counts, then each part's own result under its heading", () => {
    const text = workflowResultText("batch", [
      { agent: "explore", status: "succeeded", taskId: A, text: `Found it.\n\n[subagent session: ${A}]` },
      {
        agent: "reviewer",
        status: "failed",
        taskId: B,
        text: `Subagent reviewer failed.\n- Error: boom\n\n[subagent session: ${B}]`,
      },
    ]);
    expect(text).toBe(
      [
        "batch of 2: 1 succeeded, 1 failed",
        "",
        `### 1. explore succeeded (taskId: ${A})`,
        "Found it.",
        "",
        `[subagent session: ${A}]`,
        "",
        `### 2. reviewer failed (taskId: ${B})`,
        "Subagent reviewer failed.",
        "- Error: boom",
        "",
        `[subagent session: ${B}]`,
      ].join("\n"),
    );
  });

  it("for a chain that ended early, names the step that ended it and lists the steps not run", () => {
    const text = workflowResultText(
      "chain",
      [
        { agent: "explore", status: "succeeded", taskId: A, text: "one" },
        { agent: "reviewer", status: "cancelled", taskId: B, text: "two" },
      ],
      ["planner", "explore"],
    );
    expect(text).toBe(
      [
        "chain of 4: ended at step 2 (reviewer cancelled); 2 steps not run",
        "",
        `### Step 1. explore succeeded (taskId: ${A})`,
        "one",
        "",
        `### Step 2. reviewer cancelled (taskId: ${B})`,
        "two",
        "",
        "### Step 3. planner not run",
        "### Step 4. explore not run",
      ].join("\n"),
    );
    expect(
      workflowResultText("chain", [
        { agent: "explore", status: "succeeded", taskId: A, text: "one" },
        { agent: "planner", status: "refused", text: "Unknown agent." },
      ])
        .split("\n")
        .slice(0, 1),
    ).toEqual(["chain of 2: ended at step 2 (planner refused)"]);
    expect(
      workflowResultText("chain", [{ agent: "explore", status: "succeeded", taskId: A, text: "one" }]).split("\n")[0],
    ).toBe("chain of 1: 1 succeeded");
  });
});

describe("a blocking batch's or chain's id", () => {
  it("follows the title on a line of its own, as a background receipt names it", () => {
    const text = workflowResultText(
      "chain",
      [{ agent: "explore", status: "succeeded", taskId: A, text: "one" }],
      [],
      B,
    );
    expect(text.split("\n").slice(0, 3)).toEqual(["chain of 1: 1 succeeded", `chainId: ${B}`, ""]);
  });

  it("has a record like a background one's, delivered with the result, listing its parts and the refused step", () => {
    const part = (taskId: string) => ({
      record: {
        version: 1 as const,
        taskId,
        agent: "worker",
        task: "t",
        mode: "sync" as const,
        status: "succeeded" as const,
        exitCode: 0,
        usage: { turns: 1, input: 10, output: 2, cacheRead: 0, cacheWrite: 0, cost: 0.01, contextTokens: 12 },
        durationMs: 100,
        dispatchedAt: 1000,
        finishedAt: 1100,
        output: "ok",
        sessionFile: "/s",
        cwd: "/w",
        delivered: true,
      },
    });
    const record = blockingWorkflowRecord({
      id: C,
      kind: "chain",
      parentSessionId: "main",
      parts: [part(A), { refused: { agent: "planner", message: "Unknown agent." } }],
      notRun: ["reviewer"],
      text: "chain of 3: …",
      finishedAt: 2000,
    });
    expect(record).toMatchObject({
      version: 1,
      workflowId: C,
      kind: "chain",
      parentSessionId: "main",
      partIds: [A],
      envelope: "chain of 3: …",
      delivered: true,
      deliveredAt: 2000,
      details: { taskId: C, agent: "chain of 3: ended at step 2 (planner refused); 1 step not run", status: "failed" },
    });
    expect(record.details.workflow.parts.map((p) => [p.agent, p.status, p.taskId])).toEqual([
      ["worker", "succeeded", A],
      ["planner", "refused", undefined],
    ]);
  });
});
