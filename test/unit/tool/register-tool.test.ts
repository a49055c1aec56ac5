import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ExtensionAPI, ExtensionContext } from "@mariozechner/pi-coding-agent";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { registerSubagentTool } from "../../../src/tool/register-tool.ts";
import type { SubagentParams } from "../../../src/tool/schema.ts";
import { NO_TASKS_TO_CANCEL_IN_SYNC_MODE, TOOL_DESCRIPTION, TOOL_GUIDELINES, TOOL_SNIPPET } from "../../../src/tool/texts.ts";

interface RegisteredTool {
  name: string;
  label: string;
  description: string;
  promptSnippet: string;
  promptGuidelines: string[];
  parameters: { properties: Record<string, unknown> };
  execute(id: string, params: SubagentParams, signal: AbortSignal | undefined, onUpdate: undefined, ctx: ExtensionContext): Promise<{ content: Array<{ text: string }> }>;
}

type ToolResultHandler = (event: { toolName: string; details: unknown }) => { isError: boolean } | undefined;

function fakePi() {
  const tools: RegisteredTool[] = [];
  const handlers = new Map<string, ToolResultHandler>();
  const pi = {
    registerTool: (tool: RegisteredTool) => tools.push(tool),
    on: (event: string, handler: ToolResultHandler) => handlers.set(event, handler),
  } as unknown as ExtensionAPI;
  registerSubagentTool(pi);
  return { tool: tools[0]!, toolResult: handlers.get("tool_result")! };
}

let root: string;
const savedEnv = { ...process.env };

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "pi-subagent-register-"));
  mkdirSync(join(root, "agent"));
  mkdirSync(join(root, "work"));
  process.env.PI_CODING_AGENT_DIR = join(root, "agent");
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
    sessionManager: { getSessionId: () => "parent" },
  } as unknown as ExtensionContext;
}

describe("registerSubagentTool", () => {
  it("registers the subagent tool with its texts and parameters", () => {
    const { tool } = fakePi();
    expect(tool).toMatchObject({ name: "subagent", label: "Subagent", description: TOOL_DESCRIPTION, promptSnippet: TOOL_SNIPPET, promptGuidelines: TOOL_GUIDELINES });
    expect(Object.keys(tool.parameters.properties).sort()).toEqual(
      ["action", "agent", "agentScope", "confirm", "confirmProjectAgents", "reason", "sessionId", "task", "taskId"].sort(),
    );
  });

  it("blocks every action inside a subagent (depth gate first)", async () => {
    process.env.PI_SUBAGENT_DEPTH = "1";
    const { tool } = fakePi();
    await expect(tool.execute("t1", { agent: "explore", task: "look" }, undefined, undefined, ctx())).rejects.toThrow(
      /^Subagent tool is blocked: depth limit reached/,
    );
    await expect(tool.execute("t2", { action: "cancel", taskId: "x" }, undefined, undefined, ctx())).rejects.toThrow(/depth limit reached/);
    // Even an invalid call gets the depth message, not a validation message.
    await expect(tool.execute("t3", {}, undefined, undefined, ctx())).rejects.toThrow(/depth limit reached/);
  });

  it("answers a cancel in a blocking mode with nothing to cancel", async () => {
    const { tool } = fakePi();
    const result = await tool.execute("t1", { action: "cancel", taskId: "x" }, undefined, undefined, ctx());
    expect(result.content[0]!.text).toBe(NO_TASKS_TO_CANCEL_IN_SYNC_MODE);
  });

  it("rejects invalid dispatches with the validation messages, listing the built-in agents", async () => {
    const { tool } = fakePi();
    await expect(tool.execute("t1", { agent: "explore", task: "  " }, undefined, undefined, ctx())).rejects.toThrow(/^The "task" parameter is required/);
    await expect(tool.execute("t2", { agent: "nobody", task: "x" }, undefined, undefined, ctx())).rejects.toThrow(
      /^Unknown agent "nobody"\. Available agents: .*explore \(builtin\)/,
    );
    await expect(tool.execute("t3", { agent: "explore", task: "x", sessionId: "not-an-id" }, undefined, undefined, ctx())).rejects.toThrow(
      /^"not-an-id" is not a sessionId this tool handed out/,
    );
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
