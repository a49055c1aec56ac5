import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import { describe, expect, it } from "vitest";
import subagentDispatch from "../../../extension.ts";
import {
  registerLazily,
  emptyRegistrations,
  recordingApi,
  type LazyManifest,
  type LoadTiming,
} from "../../../src/start/lazy-extension.ts";
import { subagentManifest, registerMainPi, startsSubagentCall } from "../../../src/start/main-pi.ts";
import { subagentParameters } from "../../../src/tool/schema.ts";
import { register } from "../../../src/pi/runtime.ts";
import * as toolPart from "../../../src/pi/runtime-tool.ts";
import { drawPart } from "../../../src/pi/ui/draw-part.ts";

type Fn = (...args: unknown[]) => unknown;

const MANIFEST = subagentManifest(subagentParameters);

/** A fake pi that keeps what is registered with it. */
function fakePi() {
  const on = new Map<string, Fn[]>();
  const tools = new Map<string, Record<string, unknown>>();
  const commands = new Map<string, { description?: string; handler: Fn; getArgumentCompletions?: Fn }>();
  const renderers = new Map<string, Fn>();
  const sent: unknown[] = [];
  const pi = {
    on: (event: string, handler: Fn) => on.set(event, [...(on.get(event) ?? []), handler]),
    registerTool: (tool: Record<string, unknown>) => tools.set(tool.name as string, tool),
    registerCommand: (name: string, options: { description?: string; handler: Fn }) => commands.set(name, options),
    registerMessageRenderer: (type: string, renderer: Fn) => renderers.set(type, renderer),
    sendMessage: (message: unknown) => sent.push(message),
  };
  return { pi: pi as unknown as ExtensionAPI, on, tools, commands, renderers, sent };
}

describe("the light entry's manifest", () => {
  it("names exactly the tools, commands, events and renderers the runtime registers, with the same texts", () => {
    const recorded = emptyRegistrations();
    register(recordingApi(fakePi().pi, recorded));

    expect(MANIFEST.tools.map((tool) => tool.name).sort()).toEqual([...recorded.tools.keys()].sort());
    for (const tool of MANIFEST.tools) {
      const real = recorded.tools.get(tool.name)!;
      expect({ ...tool }).toEqual({
        name: real.name,
        label: real.label,
        description: real.description,
        promptSnippet: real.promptSnippet,
        promptGuidelines: real.promptGuidelines,
        parameters: real.parameters,
      });
    }
    expect(MANIFEST.commands.map((c) => `${c.name}: ${c.description}`).sort()).toEqual(
      [...recorded.commands].map(([name, options]) => `${name}: ${options.description}`).sort(),
    );
    expect([...MANIFEST.events].sort()).toEqual([...recorded.handlers.keys()].sort());
    expect([...MANIFEST.messageRenderers].sort()).toEqual([...recorded.messageRenderers.keys()].sort());
  });

  it("the draw part holds the very renderers the whole runtime registers, for every tool and message renderer", () => {
    const whole = emptyRegistrations();
    register(recordingApi(fakePi().pi, whole));
    expect(Object.keys(drawPart.toolRenderers)).toEqual(MANIFEST.tools.map((tool) => tool.name));
    for (const [name, renderers] of Object.entries(drawPart.toolRenderers)) {
      expect(renderers.renderCall).toBe(whole.tools.get(name)!.renderCall);
      expect(renderers.renderResult).toBe(whole.tools.get(name)!.renderResult);
    }
    expect(Object.keys(drawPart.messageRenderers)).toEqual([...MANIFEST.messageRenderers]);
    for (const [type, renderer] of Object.entries(drawPart.messageRenderers))
      expect(renderer).toBe(whole.messageRenderers.get(type));
  });

  it("the tool part registers the same tool as the whole runtime, its error flag hook and the fan-out count", () => {
    const whole = emptyRegistrations();
    register(recordingApi(fakePi().pi, whole));
    const part = emptyRegistrations();
    toolPart.register(recordingApi(fakePi().pi, part));
    expect([...part.tools.keys()]).toEqual(["subagent"]);
    const { execute: _a, renderCall: _b, renderResult: _c, ...partTool } = part.tools.get("subagent")!;
    const { execute: _d, renderCall: _e, renderResult: _f, ...wholeTool } = whole.tools.get("subagent")!;
    expect(partTool).toEqual(wholeTool);
    expect([...part.handlers.keys()].sort()).toEqual(["agent_start", "tool_result"]);
    expect(part.commands.size).toBe(0);
  });

  it("registers everything with pi at once without loading the runtime", async () => {
    const saved = process.env.PI_SUBAGENT_DEPTH;
    delete process.env.PI_SUBAGENT_DEPTH;
    const fake = fakePi();
    try {
      await subagentDispatch(fake.pi);
    } finally {
      if (saved === undefined) delete process.env.PI_SUBAGENT_DEPTH;
      else process.env.PI_SUBAGENT_DEPTH = saved;
    }
    expect([...fake.tools.keys()]).toEqual(["subagent"]);
    expect([...fake.commands.keys()].sort()).toEqual([
      "subagent-agents",
      "subagent-answer",
      "subagent-cancel",
      "subagent-cancel-all",
      "subagent-config",
      "subagent-message",
      "subagent-result",
      "subagent-trace",
      "subagent-usage",
      "subagent-watch",
      "subagent-worktrees",
    ]);
    // message_update: without the TUI (as here), a streamed subagent call starts loading the tool's part early.
    expect([...fake.on.keys()].sort()).toEqual([
      "agent_end",
      "agent_settled",
      "agent_start",
      "before_agent_start",
      "context",
      "message_end",
      "message_start",
      "message_update",
      "session_shutdown",
      "session_start",
      "tool_result",
    ]);
    expect([...fake.renderers.keys()]).toEqual(["subagent-result"]);
  });
});

/** Runs the entry with `env` set over the process's nesting variables, then puts them back. */
async function runEntryWith(env: Record<string, string>, pi: ExtensionAPI): Promise<void> {
  const names = ["PI_SUBAGENT_DEPTH", "PI_SUBAGENT_MAX_DEPTH", "PI_SUBAGENT_SANDBOX", "PI_SUBAGENT_PARENT"];
  const saved = names.map((name) => [name, process.env[name]] as const);
  for (const name of names) delete process.env[name];
  Object.assign(process.env, env);
  try {
    await subagentDispatch(pi);
  } finally {
    for (const [name, value] of saved) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
}

describe("the entry in a subagent at the depth limit", () => {
  const atLimit: Array<Record<string, string>> = [
    { PI_SUBAGENT_DEPTH: "1" },
    { PI_SUBAGENT_DEPTH: "2", PI_SUBAGENT_MAX_DEPTH: "2" },
    { PI_SUBAGENT_DEPTH: "1", PI_SUBAGENT_SANDBOX: "read-only" },
  ];
  it.each(atLimit)(
    "registers nothing with pi: no tool (so no snippet or guidelines), command, event or renderer (%o)",
    async (env) => {
      const fake = fakePi();
      await runEntryWith(env, fake.pi);
      expect(fake.tools.size).toBe(0);
      expect(fake.commands.size).toBe(0);
      expect(fake.renderers.size).toBe(0);
      // No roster, no runtime events (the watch on its parent needs a parent identity, absent here).
      expect(fake.on.size).toBe(0);
    },
  );
});

describe("the entry in a sandboxed subagent below the depth limit", () => {
  it("registers only the subagent tool, with the main agent's texts and parameters, refusing every call with the sandbox's message", async () => {
    const fake = fakePi();
    await runEntryWith(
      { PI_SUBAGENT_DEPTH: "1", PI_SUBAGENT_MAX_DEPTH: "2", PI_SUBAGENT_SANDBOX: "workspace-write" },
      fake.pi,
    );
    expect([...fake.tools.keys()]).toEqual(["subagent"]);
    expect(fake.commands.size).toBe(0);
    expect(fake.renderers.size).toBe(0);
    expect(fake.on.size).toBe(0);
    const { execute, ...shown } = fake.tools.get("subagent")!;
    const { parameters, ...texts } = MANIFEST.tools[0]!;
    expect(shown).toEqual({ ...texts, parameters });
    const saved = process.env.PI_SUBAGENT_SANDBOX;
    process.env.PI_SUBAGENT_SANDBOX = "workspace-write";
    try {
      for (const params of [
        { agent: "explore", task: "x" },
        { action: "cancel", taskId: "abc" },
        { action: "message", taskId: "abc", message: "hi" },
      ]) {
        await expect((execute as Fn)("call", params, undefined, undefined, {})).rejects.toThrow(
          "Subagent tool is blocked: nested subagents cannot start from a sandboxed subagent (this one runs with sandbox: workspace-write), so finish the task with your own tools.",
        );
      }
    } finally {
      if (saved === undefined) delete process.env.PI_SUBAGENT_SANDBOX;
      else process.env.PI_SUBAGENT_SANDBOX = saved;
    }
  });
});

describe("registerLazily", () => {
  const manifest: LazyManifest = {
    tools: [{ name: "t", label: "T", description: "d", parameters: {} as never }],
    commands: [{ name: "c", description: "cd" }],
    events: ["session_start", "message_end", "session_shutdown"],
    // The test's context says when: { timing: "now" | "soon" } (absent: not at all).
    loadOn: { session_start: (_event: unknown, ctx: { timing?: LoadTiming }) => ctx.timing },
    replayOnLoad: ["session_start"],
    messageRenderers: ["m"],
  };

  function setUp(options: { failFirst?: boolean } = {}) {
    const fake = fakePi();
    let imports = 0;
    const calls: string[] = [];
    const lazy = registerLazily(fake.pi, manifest, async () => {
      imports++;
      if (options.failFirst && imports === 1) throw new Error("load failed");
      return {
        register(api: ExtensionAPI) {
          api.registerTool({
            name: "t",
            label: "T",
            description: "d",
            parameters: {} as never,
            execute: async (id: string) => ({ content: [{ type: "text", text: `ran ${id}` }], details: undefined }),
          });
          api.registerCommand("c", {
            description: "cd",
            handler: async (args) => void calls.push(`c ${args}`),
            getArgumentCompletions: (p) => [{ value: `${p}!`, label: p }],
          });
          api.on(
            "session_start",
            (_event, ctx) => void calls.push(`session_start ${(ctx as { id?: string }).id ?? ""}`.trim()),
          );
          api.on("message_end", () => ({ seen: true }) as never);
          api.registerMessageRenderer("m", () => ({ render: () => ["card"], invalidate: () => {} }));
          api.sendMessage({ customType: "x", content: "hi", display: true });
        },
      };
    });
    return { fake, lazy, calls, imports: () => imports };
  }

  it("loads nothing until first use, then once, and forwards to what the runtime registered", async () => {
    const { fake, lazy, calls, imports } = setUp();
    expect(imports()).toBe(0);
    // Before loading: events that do not load are ignored, renderers fall back to pi's default.
    expect(await fake.on.get("message_end")![0]!({}, {})).toBeUndefined();
    expect(fake.renderers.get("m")!({}, {}, {})).toBeUndefined();
    expect(imports()).toBe(0);

    const result = (await (fake.tools.get("t")!.execute as Fn)("call-1")) as { content: Array<{ text: string }> };
    expect(result.content[0]!.text).toBe("ran call-1");
    await fake.commands.get("c")!.handler("now", {});
    expect(await fake.commands.get("c")!.getArgumentCompletions!("ab")).toEqual([{ value: "ab!", label: "ab" }]);
    expect(await fake.on.get("message_end")![0]!({}, {})).toEqual({ seen: true });
    expect((fake.renderers.get("m")!({}, {}, {}) as { render(): string[] }).render()).toEqual(["card"]);
    expect(calls).toEqual(["c now"]);
    expect(imports()).toBe(1);
    expect(lazy.loaded()).toBeDefined();
    // The runtime's other calls reach pi itself.
    expect(fake.sent).toHaveLength(1);
  });

  it("loads on an event whose loadOn says now, before the event returns, and the runtime hears it once", async () => {
    const { fake, calls, imports } = setUp();
    await fake.on.get("session_start")![0]!({}, { timing: "now", id: "s1" });
    expect(imports()).toBe(1);
    expect(calls).toEqual(["session_start s1"]);
  });

  it("loads on an event whose loadOn says soon without keeping pi waiting; the runtime then hears the event", async () => {
    const { fake, lazy, calls, imports } = setUp();
    await fake.on.get("session_start")![0]!({}, { timing: "soon", id: "s1" });
    expect(imports()).toBe(0);
    expect(lazy.loaded()).toBeUndefined();
    await new Promise((resolve) => setImmediate(resolve));
    // The load started by itself, right after the event.
    expect(imports()).toBe(1);
    await lazy.load();
    expect(imports()).toBe(1);
    expect(calls).toEqual(["session_start s1"]);
  });

  it("hands the latest kept session_start to a runtime loaded later (a tool call), and forgets it at session_shutdown", async () => {
    const { fake, calls } = setUp();
    await fake.on.get("session_start")![0]!({}, { id: "s1" });
    await fake.on.get("session_start")![0]!({}, { id: "s2" });
    await (fake.tools.get("t")!.execute as Fn)("a");
    expect(calls).toEqual(["session_start s2"]);

    const second = setUp();
    await second.fake.on.get("session_start")![0]!({}, { id: "s1" });
    await second.fake.on.get("session_shutdown")![0]!({}, {});
    await (second.fake.tools.get("t")!.execute as Fn)("a");
    expect(second.calls).toEqual([]);
  });

  it("tries again after a failed load", async () => {
    const { fake, imports } = setUp({ failFirst: true });
    await expect((fake.tools.get("t")!.execute as Fn)("a")).rejects.toThrow("load failed");
    const result = (await (fake.tools.get("t")!.execute as Fn)("b")) as { content: Array<{ text: string }> };
    expect(result.content[0]!.text).toBe("ran b");
    expect(imports()).toBe(2);
  });
});

describe("the main pi without the TUI", () => {
  it("starts loading the tool's part when the model's stream opens a subagent call, once, and the call uses that load", async () => {
    const fake = fakePi();
    const loads: string[] = [];
    let release: () => void = () => undefined;
    const loaded = new Promise<void>((resolve) => (release = resolve));
    registerMainPi(fake.pi, subagentParameters, {
      all: async () => {
        loads.push("all");
        return { register: () => undefined };
      },
      toolOnly: async () => {
        loads.push("tool");
        await loaded;
        return toolPart;
      },
    });
    const update = fake.on.get("message_update")![0]!;
    const streamed = (assistantMessageEvent: Record<string, unknown>) =>
      update({ type: "message_update", assistantMessageEvent }, {});
    const partial = {
      content: [
        { type: "text", text: "Let me delegate." },
        { type: "toolCall", name: "read" },
        { type: "toolCall", name: "subagent" },
      ],
    };
    streamed({ type: "text_delta", contentIndex: 0, delta: "Let me", partial });
    streamed({ type: "toolcall_start", contentIndex: 1, partial });
    expect(loads).toEqual([]);
    streamed({ type: "toolcall_start", contentIndex: 2, partial });
    streamed({ type: "toolcall_delta", contentIndex: 2, delta: "{", partial });
    streamed({ type: "toolcall_start", contentIndex: 2, partial });
    expect(loads).toEqual(["tool"]);
    release();
    await expect(
      (fake.tools.get("subagent")!.execute as Fn)("call", { action: "frobnicate" }, undefined, undefined, {}),
    ).rejects.toThrow(/Unknown action "frobnicate"/);
    expect(loads).toEqual(["tool"]);
  });

  it("tells a subagent call's start from every other streamed event", () => {
    const partial = {
      content: [{ type: "toolCall", name: "subagent" }, { type: "toolCall", name: "bash" }, { type: "text" }],
    };
    expect(startsSubagentCall({ type: "toolcall_start", contentIndex: 0, partial })).toBe(true);
    expect(startsSubagentCall({ type: "toolcall_start", contentIndex: 1, partial })).toBe(false);
    expect(startsSubagentCall({ type: "toolcall_start", contentIndex: 2, partial })).toBe(false);
    expect(startsSubagentCall({ type: "toolcall_start", contentIndex: 5, partial })).toBe(false);
    expect(startsSubagentCall({ type: "toolcall_end", contentIndex: 0, partial })).toBe(false);
    expect(startsSubagentCall({ type: "start" })).toBe(false);
  });
});

describe("registerLazily with a tool part", () => {
  const manifest: LazyManifest = {
    tools: [{ name: "t", label: "T", description: "d", parameters: {} as never }],
    commands: [{ name: "c", description: "cd" }],
    events: ["tool_result", "session_start"],
    replayOnLoad: ["session_start"],
    messageRenderers: [],
  };
  const runtime =
    (label: string, loads: string[], sessions: string[] = []) =>
    async () => {
      loads.push(label);
      return {
        register(api: ExtensionAPI) {
          api.on("session_start", (_event, ctx) => void sessions.push(`${label} ${(ctx as { id?: string }).id}`));
          api.registerTool({
            name: "t",
            label: "T",
            description: "d",
            parameters: {} as never,
            execute: async () => ({ content: [{ type: "text", text: `${label} ran` }], details: undefined }),
          });
          if (label === "all") api.registerCommand("c", { description: "cd", handler: async () => undefined });
          api.on("tool_result", () => ({ from: label }) as never);
        },
      };
    };

  it("a tool call loads only the tool part; a command loads the whole runtime, which then takes the events", async () => {
    const fake = fakePi();
    const loads: string[] = [];
    registerLazily(fake.pi, manifest, { all: runtime("all", loads), toolOnly: runtime("tool", loads) });
    const run = async () =>
      ((await (fake.tools.get("t")!.execute as Fn)("x")) as { content: Array<{ text: string }> }).content[0]!.text;
    expect(await run()).toBe("tool ran");
    expect(await run()).toBe("tool ran");
    expect(loads).toEqual(["tool"]);
    expect(await fake.on.get("tool_result")![0]!({}, {})).toEqual({ from: "tool" });
    await fake.commands.get("c")!.handler("", {});
    expect(loads).toEqual(["tool", "all"]);
    expect(await fake.on.get("tool_result")![0]!({}, {})).toEqual({ from: "all" });
    expect(await run()).toBe("all ran");
    expect(loads).toEqual(["tool", "all"]);
  });

  it("each part loaded later learns the current session: the tool part, then the whole runtime after a new session", async () => {
    const fake = fakePi();
    const loads: string[] = [];
    const sessions: string[] = [];
    registerLazily(fake.pi, manifest, {
      all: runtime("all", loads, sessions),
      toolOnly: runtime("tool", loads, sessions),
    });
    await fake.on.get("session_start")![0]!({}, { id: "s1" });
    await (fake.tools.get("t")!.execute as Fn)("x");
    expect(sessions).toEqual(["tool s1"]);
    // A new session while only the tool part is loaded: the part hears it, and the whole runtime loaded later too.
    await fake.on.get("session_start")![0]!({}, { id: "s2" });
    await fake.commands.get("c")!.handler("", {});
    expect(sessions).toEqual(["tool s1", "tool s2", "all s2"]);
  });

  it("with a draw part, an event that loads now waits for the renderers only; the whole runtime follows and hears it", async () => {
    const fake = fakePi();
    const loads: string[] = [];
    const sessions: string[] = [];
    const drawn = {
      toolRenderers: {
        t: {
          renderCall: () => ({ render: () => ["drawn call"], invalidate: () => {} }),
          renderResult: () => ({ render: () => ["drawn result"], invalidate: () => {} }),
        },
      },
      messageRenderers: { m: () => ({ render: () => ["drawn card"], invalidate: () => {} }) },
    };
    const whole = runtime("all", loads, sessions);
    const lazy = registerLazily(
      fake.pi,
      { ...manifest, loadOn: { session_start: () => "now" }, messageRenderers: ["m"] },
      {
        all: async () => {
          const part = await whole();
          return {
            register(api: ExtensionAPI) {
              part.register(api);
              api.registerMessageRenderer("m", () => ({ render: () => ["whole card"], invalidate: () => {} }));
            },
          };
        },
        draw: async () => {
          loads.push("draw");
          return drawn;
        },
      },
    );
    const rendered = (component: unknown) => (component as { render(width: number): string[] }).render(80);
    // Before anything is loaded: pi's default (nothing of ours).
    expect(rendered((fake.tools.get("t")!.renderCall as Fn)({}, {}, {}))).toEqual([]);

    await fake.on.get("session_start")![0]!({}, { id: "s1" });
    expect(loads).toEqual(["draw"]);
    expect(lazy.loaded()).toBeUndefined();
    expect(rendered((fake.tools.get("t")!.renderCall as Fn)({}, {}, {}))).toEqual(["drawn call"]);
    expect(rendered((fake.tools.get("t")!.renderResult as Fn)({}, {}, {}, {}))).toEqual(["drawn result"]);
    expect(rendered(fake.renderers.get("m")!({}, {}, {}))).toEqual(["drawn card"]);

    // Right after pi's start-up the whole runtime loads by itself and hears the session it missed.
    await new Promise((resolve) => setImmediate(resolve));
    await lazy.load();
    expect(loads).toEqual(["draw", "all"]);
    expect(sessions).toEqual(["all s1"]);
    expect(rendered(fake.renderers.get("m")!({}, {}, {}))).toEqual(["whole card"]);
    expect(await fake.on.get("tool_result")![0]!({}, {})).toEqual({ from: "all" });
  });

  it("a tool call while the draw part is still loading waits for it before loading the whole runtime (never both at once)", async () => {
    const fake = fakePi();
    const loads: string[] = [];
    let finishDraw: () => void = () => undefined;
    const drawGate = new Promise<void>((resolve) => (finishDraw = resolve));
    registerLazily(
      fake.pi,
      { ...manifest, loadOn: { session_start: () => "now" } },
      {
        all: runtime("all", loads),
        draw: async () => {
          loads.push("draw started");
          await drawGate;
          loads.push("draw done");
          return { toolRenderers: {}, messageRenderers: {} };
        },
      },
    );
    const started = fake.on.get("session_start")![0]!({}, { id: "s1" });
    const call = (fake.tools.get("t")!.execute as Fn)("x") as Promise<{ content: Array<{ text: string }> }>;
    await new Promise((resolve) => setImmediate(resolve));
    expect(loads).toEqual(["draw started"]);
    finishDraw();
    await started;
    expect((await call).content[0]!.text).toBe("all ran");
    expect(loads).toEqual(["draw started", "draw done", "all"]);
  });

  it("when the draw part fails to load, the event waits for the whole runtime, as without one", async () => {
    const fake = fakePi();
    const loads: string[] = [];
    const sessions: string[] = [];
    registerLazily(
      fake.pi,
      { ...manifest, loadOn: { session_start: () => "now" } },
      {
        all: runtime("all", loads, sessions),
        draw: async () => {
          loads.push("draw");
          throw new Error("draw part missing");
        },
      },
    );
    await fake.on.get("session_start")![0]!({}, { id: "s1" });
    expect(loads).toEqual(["draw", "all"]);
    expect(sessions).toEqual(["all s1"]);
  });

  it("without a tool part, a tool call loads the whole runtime", async () => {
    const fake = fakePi();
    const loads: string[] = [];
    registerLazily(fake.pi, manifest, { all: runtime("all", loads) });
    await (fake.tools.get("t")!.execute as Fn)("x");
    expect(loads).toEqual(["all"]);
  });
});
