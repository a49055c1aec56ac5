/**
 * Ids and parameters the model or the person gets wrong on purpose or by accident: a path as a taskId, a
 * 10 KB id, a blank sessionId, an action the schema does not know. None reaches the disk or is echoed whole.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ExtensionAPI, ExtensionContext } from "@mariozechner/pi-coding-agent";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { forgetExitHooksForTests } from "../../../src/run/processes.ts";
import type { AgentDefinition } from "../../../src/agents/parse.ts";
import { initialRunState, type RunOutcome } from "../../../src/run/event-reducer.ts";
import { taskDir } from "../../../src/run/session-files.ts";
import {
  noRunningTaskMatches,
  noTaskRecord,
  prefixTooShort,
  resolveTaskPrefix,
} from "../../../src/commands/task-commands.ts";
import { BackgroundTasks } from "../../../src/tasks/background-tasks.ts";
import { readRecord } from "../../../src/records/record-store.ts";
import { newTaskId } from "../../../src/shared/run-settings.ts";
import { ID_ECHO_MAX, idForMessage } from "../../../src/shared/nesting.ts";
import { createBackgroundDispatcher } from "../../../src/pi/tool/background-dispatch.ts";
import { registerSubagentTool } from "../../../src/pi/tool/execute.ts";
import type { SubagentParams } from "../../../src/tool/schema.ts";
import { validateDispatch } from "../../../src/tool/validate.ts";

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "hostile-ids-"));
});
afterEach(() => {
  forgetExitHooksForTests();
  rmSync(root, { recursive: true, force: true });
});

/** A record.json planted outside the store, where `../../project` from the store's folder points. */
function plantRecordOutside(agentDir: string): void {
  const outside = join(agentDir, "..", "project");
  mkdirSync(outside, { recursive: true });
  writeFileSync(join(outside, "record.json"), JSON.stringify({ version: 1, taskId: "planted", status: "succeeded" }));
}

function backgroundDispatcher(agentDir: string) {
  const tasks = new BackgroundTasks({
    agentDir,
    settings: { activityTimeoutMs: 600_000, hardTimeoutMs: 0, maxConcurrent: 1, killGraceMs: 10 },
    send: () => {},
    startRun: () => ({
      pid: undefined,
      state: initialRunState(0),
      startedAt: 0,
      done: new Promise<RunOutcome>(() => {}),
      stop: () => true,
      over: false,
      steer: () => "unsupported" as const,
    }),
    now: () => 0,
  });
  return createBackgroundDispatcher(
    () => tasks,
    () => agentDir,
    () => 0,
  );
}

const ctx = { sessionManager: { getSessionId: () => "parent" } } as unknown as ExtensionContext;

describe("taskIds to cancel", () => {
  it("refuses a path as a taskId without reading the record it points to", () => {
    const agentDir = join(root, "agent");
    mkdirSync(join(agentDir, "subagent-sessions"), { recursive: true });
    plantRecordOutside(agentDir);
    const dispatcher = backgroundDispatcher(agentDir);
    expect(() => dispatcher.cancel({ action: "cancel", taskId: "../../project" }, ctx)).toThrow(
      /^"\.\.\/\.\.\/project" is not a taskId this tool handed out\. Pass exactly the taskId of a dispatch receipt .*Nothing was cancelled\.$/,
    );
    expect(readRecord(agentDir, "../../project")).toBeUndefined();
    expect(() => taskDir(agentDir, "../../project")).toThrow('not a task id: "../../project"');
  });

  it("echoes a 10 KB taskId cut short", () => {
    const dispatcher = backgroundDispatcher(join(root, "agent"));
    const huge = "a".repeat(10_000);
    let message = "";
    try {
      dispatcher.cancel({ action: "cancel", taskId: huge }, ctx);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain(`"${"a".repeat(ID_ECHO_MAX - 1)}…" is not a taskId`);
    expect(message.length).toBeLessThan(400);
  });
});

describe("ids the person types", () => {
  it("never matches or echoes whole what cannot start a task id", () => {
    const id = newTaskId();
    expect(resolveTaskPrefix("../..", [{ taskId: id }])).toEqual({ kind: "unknown", prefix: "../.." });
    expect(resolveTaskPrefix(`${id.slice(0, 8)}/x`, [{ taskId: id }]).kind).toBe("unknown");
    expect(resolveTaskPrefix(id.slice(0, 8), [{ taskId: id }]).kind).toBe("found");
    const huge = "f".repeat(10_000);
    for (const notice of [noTaskRecord(huge), prefixTooShort(huge), noRunningTaskMatches(huge, "subagent-cancel")]) {
      expect(notice.length).toBeLessThan(200);
      expect(notice).toContain(`${"f".repeat(ID_ECHO_MAX - 1)}…`);
    }
  });

  it("idForMessage keeps an id whole, cuts a long one and drops control characters", () => {
    const id = newTaskId();
    expect(idForMessage(id)).toBe(id);
    expect(idForMessage("a\u001b]0;owned\u0007b")).toBe("a ]0;owned b");
  });
});

describe("sessionId", () => {
  const agents: AgentDefinition[] = [{ name: "coder", description: "c", body: "", source: "user", filePath: "/c.md" }];
  it("refuses a blank sessionId with the rules message instead of starting a fresh session", () => {
    for (const blank of ["", "   "]) {
      const result = validateDispatch({ agent: "coder", task: "t", sessionId: blank }, agents);
      expect(result).toEqual({
        ok: false,
        message: `"" is not a sessionId this tool handed out. Omit sessionId to start a fresh session (an id is generated for you), or pass exactly the taskId from an earlier subagent receipt or the id from a "[subagent session: <id>]" line to resume that session.`,
      });
    }
    expect(validateDispatch({ agent: "coder", task: "t" }, agents).ok).toBe(true);
  });
});

describe("action", () => {
  it("refuses an action other than dispatch or cancel in the tool itself", async () => {
    const saved = { ...process.env };
    process.env.PI_CODING_AGENT_DIR = join(root, "agent");
    delete process.env.PI_SUBAGENT_DEPTH;
    try {
      let execute: ((...args: unknown[]) => Promise<unknown>) | undefined;
      const pi = {
        registerTool: (tool: { execute: typeof execute }) => (execute = tool.execute),
        on: () => {},
      } as unknown as ExtensionAPI;
      registerSubagentTool(pi, { appMode: "print" });
      const toolCtx = {
        cwd: root,
        hasUI: false,
        ui: { notify: () => {} },
        sessionManager: { getSessionId: () => "p" },
      };
      const params = { action: "delete", agent: "explore", task: "x" } as unknown as SubagentParams;
      await expect(execute!("t1", params, undefined, undefined, toolCtx)).rejects.toThrow(
        'Unknown action "delete": use action "dispatch" (the default, starts a subagent), "cancel" (stops a running background task), "message" (sends text to one) or "merge" (merges a worktree task\'s branch). Nothing was done.',
      );
    } finally {
      process.env = saved;
    }
  });
});
