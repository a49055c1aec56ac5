import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import type { BackgroundTasks } from "../../../../src/tasks/background-tasks.ts";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ExtensionAPI, ExtensionContext } from "@mariozechner/pi-coding-agent";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { PreparedRun } from "../../../../src/tool/prepare-dispatch.ts";
import {
  registerSubagentTool,
  admitAll,
  type BackgroundDispatcher,
  type SubagentToolOptions,
} from "../../../../src/pi/tool/execute.ts";
import type { SubagentParams } from "../../../../src/tool/schema.ts";
import {
  NO_TASKS_TO_CANCEL_IN_SYNC_MODE,
  TOOL_DESCRIPTION,
  TOOL_GUIDELINES,
  TOOL_SNIPPET,
} from "../../../../src/tool/texts.ts";

interface RegisteredTool {
  name: string;
  label: string;
  description: string;
  promptSnippet: string;
  promptGuidelines: string[];
  parameters: { properties: Record<string, unknown> };
  execute(
    id: string,
    params: SubagentParams,
    signal: AbortSignal | undefined,
    onUpdate: undefined,
    ctx: ExtensionContext,
  ): Promise<{ content: Array<{ text: string }> }>;
}

type ToolResultHandler = (event: { toolName: string; details: unknown }) => { isError: boolean } | undefined;

function fakePi(options: SubagentToolOptions = {}) {
  const tools: RegisteredTool[] = [];
  const handlers = new Map<string, ToolResultHandler>();
  const pi = {
    registerTool: (tool: RegisteredTool) => tools.push(tool),
    // A session with pi's default tools: the ceiling cuts nothing.
    getActiveTools: () => ["read", "bash", "edit", "write"],
    getAllTools: () => ["read", "bash", "edit", "write"].map((name) => ({ name, sourceInfo: { source: "builtin" } })),
    on: (event: string, handler: ToolResultHandler) => handlers.set(event, handler),
  } as unknown as ExtensionAPI;
  registerSubagentTool(pi, options);
  return { tool: tools[0]!, toolResult: handlers.get("tool_result")! };
}

/** The TUI path with a background dispatcher that records what it was handed (nothing is spawned). */
function tuiTool(answer: boolean) {
  const dispatched: PreparedRun[] = [];
  const questions: string[] = [];
  const tasks = {
    dispatch: (prepared: PreparedRun) => {
      dispatched.push(prepared);
      prepared.release();
      return { started: true };
    },
  } as unknown as BackgroundTasks;
  const background: BackgroundDispatcher = {
    tasks: () => tasks,
    cancel: () => ({ content: [], details: undefined }),
    message: () => ({ content: [], details: undefined }),
    // Admits every part as the real one does, then hands each prepared part to the tasks like a single dispatch.
    dispatchWorkflow: async (workflow, admit) => {
      const admitted = await admitAll(workflow.kind, workflow.parts, admit);
      for (const part of admitted) tasks.dispatch(part.prepare().prepared, "parent");
      return {
        content: [{ type: "text", text: `Dispatched ${workflow.kind} of ${admitted.length}.` }],
        details: undefined,
      };
    },
  };
  const { tool } = fakePi({
    background,
    appMode: "interactive",
    argv: [process.execPath, fileURLToPath(import.meta.url)],
  });
  const tuiCtx = {
    ...ctx(),
    hasUI: true,
    ui: {
      notify: () => {},
      confirm: async (title: string, message: string) => {
        questions.push(`${title} ${message}`);
        return answer;
      },
    },
  } as unknown as ExtensionContext;
  return { tool, tuiCtx, dispatched, questions };
}

const PROJECT_AGENT = "---\nname: local-helper\ndescription: A project agent\n---\nYou help locally.\n";

let root: string;
const savedEnv = { ...process.env };

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "pi-subagent-register-"));
  mkdirSync(join(root, "agent"));
  mkdirSync(join(root, "work"));
  process.env.PI_CODING_AGENT_DIR = join(root, "agent");
  // A home of the test's own: the person's ~/.claude/agents must not join the agents listed here.
  mkdirSync(join(root, "home"));
  process.env.HOME = join(root, "home");
  delete process.env.PI_SUBAGENT_DEPTH;
});

afterEach(() => {
  process.env = { ...savedEnv };
  rmSync(root, { recursive: true, force: true });
});

function ctx(): ExtensionContext {
  return {
    cwd: join(root, "work"),
    hasUI: false,
    ui: { notify: () => {} },
    model: undefined,
    // pi's model registry knows two models (both pis have find(provider, id)).
    modelRegistry: {
      find: (provider: string, id: string) =>
        provider === "fake" && ["fake-model", "fake-cheap"].includes(id) ? { provider, id } : undefined,
    },
    sessionManager: { getSessionId: () => "parent" },
  } as unknown as ExtensionContext;
}

describe("registerSubagentTool", () => {
  it("registers the subagent tool with its texts and parameters", () => {
    const { tool } = fakePi();
    expect(tool).toMatchObject({
      name: "subagent",
      label: "Subagent",
      description: TOOL_DESCRIPTION,
      promptSnippet: TOOL_SNIPPET,
      promptGuidelines: TOOL_GUIDELINES,
    });
    expect(Object.keys(tool.parameters.properties).sort()).toEqual(
      [
        "action",
        "agent",
        "agentScope",
        "chain",
        "confirm",
        "confirmProjectAgents",
        "context",
        "isolation",
        "maxCost",
        "maxTokens",
        "maxTurns",
        "message",
        "model",
        "reason",
        "sandbox",
        "sessionId",
        "task",
        "taskId",
        "tasks",
        "thinking",
        "tools",
        "verify",
      ].sort(),
    );
  });

  it("blocks every action inside a subagent (depth gate first)", async () => {
    process.env.PI_SUBAGENT_DEPTH = "1";
    const { tool } = fakePi();
    await expect(tool.execute("t1", { agent: "explore", task: "look" }, undefined, undefined, ctx())).rejects.toThrow(
      /^Subagent tool is blocked: depth limit reached/,
    );
    await expect(tool.execute("t2", { action: "cancel", taskId: "x" }, undefined, undefined, ctx())).rejects.toThrow(
      /depth limit reached/,
    );
    // Even an invalid call gets the depth message, not a validation message.
    await expect(tool.execute("t3", {}, undefined, undefined, ctx())).rejects.toThrow(/depth limit reached/);
  });

  it("answers a message in a blocking mode with what to do instead", async () => {
    const { tool } = fakePi();
    const result = await tool.execute(
      "m1",
      { action: "message", taskId: "x", message: "hi" },
      undefined,
      undefined,
      ctx(),
    );
    expect(result.content).toEqual([
      {
        type: "text",
        text: expect.stringMatching(
          /^action=message reaches background subagent tasks, which exist only in the interactive TUI\./,
        ),
      },
    ]);
  });

  it("refuses a task with a NUL before anything starts", async () => {
    const { tool } = fakePi();
    await expect(
      tool.execute("n1", { agent: "explore", task: "look\0here" }, undefined, undefined, ctx()),
    ).rejects.toThrow(/^The task contains a NUL character/);
  });

  it("answers a cancel in a blocking mode with nothing to cancel", async () => {
    const { tool } = fakePi();
    const result = await tool.execute("t1", { action: "cancel", taskId: "x" }, undefined, undefined, ctx());
    expect(result.content[0]!.text).toBe(NO_TASKS_TO_CANCEL_IN_SYNC_MODE);
  });

  it("rejects invalid dispatches with the validation messages, listing the built-in agents", async () => {
    const { tool } = fakePi();
    await expect(tool.execute("t1", { agent: "explore", task: "  " }, undefined, undefined, ctx())).rejects.toThrow(
      /^The "task" parameter is required/,
    );
    await expect(tool.execute("t2", { agent: "nobody", task: "x" }, undefined, undefined, ctx())).rejects.toThrow(
      /^Unknown agent "nobody"\. Available agents: .*explore \(builtin\)/,
    );
    await expect(
      tool.execute("t3", { agent: "explore", task: "x", sessionId: "not-an-id" }, undefined, undefined, ctx()),
    ).rejects.toThrow(/^"not-an-id" is not a sessionId this tool handed out/);
  });

  it("asks before running a project agent when confirmProjectAgents is set, and runs nothing when declined", async () => {
    mkdirSync(join(root, "work", ".pi", "agents"), { recursive: true });
    writeFileSync(join(root, "work", ".pi", "agents", "local-helper.md"), PROJECT_AGENT);
    const declined = tuiTool(false);
    await expect(
      declined.tool.execute(
        "t1",
        { agent: "local-helper", task: "x", confirmProjectAgents: true },
        undefined,
        undefined,
        declined.tuiCtx,
      ),
    ).rejects.toThrow('The user declined to run the project agent "local-helper".');
    expect(declined.questions).toHaveLength(1);
    expect(declined.questions[0]).toContain(join(root, "work", ".pi", "agents", "local-helper.md"));
    expect(declined.dispatched).toEqual([]);
    expect(existsSync(join(root, "agent", "subagent-sessions"))).toBe(false);

    const accepted = tuiTool(true);
    const receipt = await accepted.tool.execute(
      "t2",
      { agent: "local-helper", task: "x", confirmProjectAgents: true },
      undefined,
      undefined,
      accepted.tuiCtx,
    );
    expect(receipt.content[0]!.text).toMatch(/^Dispatched local-helper\. taskId: /);
    expect(accepted.dispatched.map((run) => run.agent.source)).toEqual(["project"]);

    // A built-in agent is never asked about.
    const builtin = tuiTool(false);
    await builtin.tool.execute(
      "t4",
      { agent: "explore", task: "x", confirmProjectAgents: true },
      undefined,
      undefined,
      builtin.tuiCtx,
    );
    expect(builtin.questions).toEqual([]);
    expect(builtin.dispatched.map((run) => run.agent.name)).toEqual(["explore"]);
  });

  it("without the flag, asks once before the first run of each version of a project agent's file (pi 0.73.1: no trust system)", async () => {
    const file = join(root, "work", ".pi", "agents", "local-helper.md");
    mkdirSync(join(root, "work", ".pi", "agents"), { recursive: true });
    writeFileSync(file, PROJECT_AGENT);
    const declined = tuiTool(false);
    await expect(
      declined.tool.execute("t1", { agent: "local-helper", task: "x" }, undefined, undefined, declined.tuiCtx),
    ).rejects.toThrow(`The person declined to run the project agent "local-helper" (${file}). Do not retry it`);
    expect(declined.questions).toHaveLength(1);
    expect(declined.dispatched).toEqual([]);

    const accepted = tuiTool(true);
    await accepted.tool.execute("t2", { agent: "local-helper", task: "x" }, undefined, undefined, accepted.tuiCtx);
    await accepted.tool.execute("t3", { agent: "local-helper", task: "again" }, undefined, undefined, accepted.tuiCtx);
    expect(accepted.questions).toHaveLength(1);
    expect(accepted.questions[0]).toContain(file);
    expect(accepted.dispatched.map((run) => run.task)).toEqual(["x", "again"]);

    // An edited file is another version: asked again.
    writeFileSync(file, PROJECT_AGENT.replace(/\n*$/, "\nOne more line.\n"));
    const edited = tuiTool(false);
    await expect(
      edited.tool.execute("t4", { agent: "local-helper", task: "x" }, undefined, undefined, edited.tuiCtx),
    ).rejects.toThrow(/declined/);
    expect(edited.questions).toHaveLength(1);
  });

  it("narrows the agents to the user tier with agentScope user (project agents are then unknown)", async () => {
    mkdirSync(join(root, "work", ".pi", "agents"), { recursive: true });
    writeFileSync(join(root, "work", ".pi", "agents", "local-helper.md"), PROJECT_AGENT);
    const { tool, tuiCtx } = tuiTool(true);
    await expect(
      tool.execute("t1", { agent: "local-helper", task: "x", agentScope: "user" }, undefined, undefined, tuiCtx),
    ).rejects.toThrow(
      /^Unknown agent "local-helper"\. Available agents: explore \(builtin\), general-purpose \(builtin\), planner \(builtin\), reviewer \(builtin\)\.$/,
    );
  });

  it("runs a call's own model and thinking above every config layer, for that task only", async () => {
    writeFileSync(
      join(root, "agent", "subagent-isolation.json"),
      JSON.stringify({ explore: { model: "fake/fake-model", thinking: "low" } }),
    );
    const { tool, tuiCtx, dispatched } = tuiTool(true);
    await tool.execute(
      "t1",
      { agent: "explore", task: "x", model: " fake/fake-cheap ", thinking: "high" },
      undefined,
      undefined,
      tuiCtx,
    );
    await tool.execute("t2", { agent: "explore", task: "y" }, undefined, undefined, tuiCtx);
    expect(dispatched.map((run) => run.resolved)).toEqual([
      { model: { value: "fake/fake-cheap", source: "call" }, thinking: { value: "high", source: "call" } },
      { model: { value: "fake/fake-model", source: "user" }, thinking: { value: "low", source: "user" } },
    ]);
    const args = dispatched[0]!.command.args;
    expect(args.slice(args.indexOf("--model"), args.indexOf("--model") + 2)).toEqual(["--model", "fake/fake-cheap"]);
    expect(args.slice(args.indexOf("--thinking"), args.indexOf("--thinking") + 2)).toEqual(["--thinking", "high"]);
  });

  it("refuses a call's model pi does not know, or one outside $models (naming the allowed ones), before anything starts", async () => {
    const { tool, tuiCtx, dispatched } = tuiTool(true);
    await expect(
      tool.execute("t1", { agent: "explore", task: "x", model: "fake/nope" }, undefined, undefined, tuiCtx),
    ).rejects.toThrow(
      'Unknown model "fake/nope": give provider/id of a model pi knows (pi --list-models), or omit model to use the agent\'s own.',
    );
    await expect(
      tool.execute("t2", { agent: "explore", task: "x", model: "fake-model" }, undefined, undefined, tuiCtx),
    ).rejects.toThrow(/^Unknown model "fake-model"/);
    await expect(
      tool.execute("t3", { agent: "explore", task: "x", thinking: "huge" as never }, undefined, undefined, tuiCtx),
    ).rejects.toThrow(
      'Invalid thinking "huge": use one of off, minimal, low, medium, high, xhigh, max, or omit thinking.',
    );
    writeFileSync(join(root, "agent", "subagent-isolation.json"), JSON.stringify({ $models: ["fake/fake-model"] }));
    await expect(
      tool.execute("t4", { agent: "explore", task: "x", model: "fake/fake-cheap" }, undefined, undefined, tuiCtx),
    ).rejects.toThrow(
      'Model "fake/fake-cheap" is not in the $models list of the user subagent-isolation.json; allowed: fake/fake-model. Omit model to use the agent\'s own.',
    );
    expect(dispatched).toEqual([]);
    expect(existsSync(join(root, "agent", "subagent-sessions"))).toBe(false);
    await tool.execute("t5", { agent: "explore", task: "x", model: "fake/fake-model" }, undefined, undefined, tuiCtx);
    expect(dispatched.map((run) => run.resolved.model)).toEqual([{ value: "fake/fake-model", source: "call" }]);
  });

  it("refuses a whole batch when one part is refused, naming the part, with nothing started or left on disk", async () => {
    const { tool } = fakePi({ appMode: "print", argv: [process.execPath, fileURLToPath(import.meta.url)] });
    await expect(
      tool.execute(
        "b1",
        {
          tasks: [
            { agent: "explore", task: "a" },
            { agent: "nobody", task: "b" },
          ],
        },
        undefined,
        undefined,
        ctx(),
      ),
    ).rejects.toThrow(
      /^Part 2 \(nobody\) was refused: Unknown agent "nobody"\. Available agents: .*\. Nothing was started\.$/,
    );
    await expect(
      tool.execute("b2", { chain: [{ agent: "explore", task: "a", model: "fake/nope" }] }, undefined, undefined, ctx()),
    ).rejects.toThrow(/^Step 1 \(explore\) was refused: Unknown model "fake\/nope"/);
    expect(existsSync(join(root, "agent", "subagent-sessions"))).toBe(false);
  });

  it("a batch part refused while it is prepared (a worktree outside git) undoes the parts prepared before it", async () => {
    const { tool } = fakePi({ appMode: "print", argv: [process.execPath, fileURLToPath(import.meta.url)] });
    await expect(
      tool.execute(
        "b3",
        {
          tasks: [
            { agent: "explore", task: "a" },
            { agent: "explore", task: "b", isolation: "worktree" },
          ],
        },
        undefined,
        undefined,
        ctx(),
      ),
    ).rejects.toThrow(/^Part 2 \(explore\) was refused: .*git.* Nothing was started\.$/s);
    const sessions = join(root, "agent", "subagent-sessions");
    // No task folder is left (`.running` holds the run locks of all tasks).
    expect((existsSync(sessions) ? readdirSync(sessions) : []).filter((name) => !name.startsWith("."))).toEqual([]);
  });

  it("hands a batch in the interactive TUI to the background path, every part admitted through the single path", async () => {
    const { tool, tuiCtx, dispatched } = tuiTool(true);
    await expect(
      tool.execute(
        "b1",
        {
          tasks: [
            { agent: "explore", task: "a" },
            { agent: "nobody", task: "b" },
          ],
        },
        undefined,
        undefined,
        tuiCtx,
      ),
    ).rejects.toThrow(/^Part 2 \(nobody\) was refused: Unknown agent "nobody"\./);
    expect(dispatched).toEqual([]);
    const result = await tool.execute(
      "b2",
      {
        tasks: [
          { agent: "explore", task: "a" },
          { agent: "explore", task: "b" },
        ],
      },
      undefined,
      undefined,
      tuiCtx,
    );
    expect(result.content).toEqual([{ type: "text", text: "Dispatched batch of 2." }]);
    expect(dispatched.map((run) => run.task)).toEqual(["a", "b"]);
  });

  it("flags a result that did not succeed as an error, keeping its details", () => {
    const { toolResult } = fakePi();
    expect(toolResult({ toolName: "subagent", details: { status: "failed" } })).toEqual({ isError: true });
    expect(toolResult({ toolName: "subagent", details: { status: "timed out" } })).toEqual({ isError: true });
    expect(toolResult({ toolName: "subagent", details: { status: "succeeded" } })).toBeUndefined();
    expect(toolResult({ toolName: "subagent", details: undefined })).toBeUndefined();
    expect(toolResult({ toolName: "bash", details: { status: "failed" } })).toBeUndefined();
  });
});
