import type { ExtensionAPI, ExtensionContext } from "@mariozechner/pi-coding-agent";
import { describe, expect, it } from "vitest";
import type { BackgroundTasks } from "../../../../src/tasks/background-tasks.ts";
import type { BackgroundHandle } from "../../../../src/pi/runtime.ts";
import { registerUi } from "../../../../src/pi/ui/progress.ts";
import { renderResultCard, renderSubagentCall, renderSubagentResult } from "../../../../src/pi/ui/cards.ts";
import { runningTask } from "./helpers.ts";

type Handler = (event: unknown, ctx: ExtensionContext) => unknown;

function setUp() {
  const renderers = new Map<string, unknown>();
  const handlers = new Map<string, Handler[]>();
  const pi = {
    registerMessageRenderer: (type: string, renderer: unknown) => renderers.set(type, renderer),
    on: (event: string, handler: Handler) => handlers.set(event, [...(handlers.get(event) ?? []), handler]),
  } as unknown as ExtensionAPI;
  let created: ((tasks: BackgroundTasks) => void) | undefined;
  const background = {
    onCreated: (listener: (tasks: BackgroundTasks) => void) => (created = listener),
  } as unknown as BackgroundHandle;
  const handle = registerUi(pi, background);
  const fire = (event: string, ctx: ExtensionContext) =>
    handlers.get(event)?.forEach((handler) => handler({ type: event }, ctx));
  return { renderers, handlers, handle, fire, created: () => created };
}

describe("registerUi", () => {
  it("registers the result card for subagent-result messages and hands out the tool row renderers", () => {
    const { renderers, handle, handlers } = setUp();
    expect(renderers.get("subagent-result")).toBe(renderResultCard);
    expect(handle.toolRenderers).toEqual({ renderCall: renderSubagentCall, renderResult: renderSubagentResult });
    expect([...handlers.keys()].sort()).toEqual(["agent_start", "session_shutdown", "session_start"]);
  });

  it("draws nothing outside the interactive TUI, even with tasks running (this test process is not a TTY)", () => {
    const { fire, created } = setUp();
    const calls: string[] = [];
    const ctx = {
      hasUI: true,
      ui: {
        setWidget: () => calls.push("widget"),
        setStatus: () => calls.push("status"),
        theme: { fg: (_c: string, t: string) => t, bold: (t: string) => t },
      },
    } as unknown as ExtensionContext;
    fire("session_start", ctx);
    const task = runningTask();
    const tasks = {
      snapshot: () => [task],
      counts: () => ({ running: 1, queued: 0, done: 0 }),
      onChange: () => () => {},
    };
    created()?.(tasks as unknown as BackgroundTasks);
    expect(calls).toEqual([]);
    fire("session_shutdown", ctx);
  });
});
