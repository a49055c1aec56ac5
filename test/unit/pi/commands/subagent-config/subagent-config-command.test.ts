/**
 * The pi-facing side of /subagent-config: the command with a fake `ctx` (no UI, the TUI's ctx.ui with the
 * prefilled input running as a real component, RPC's editor dialogs), argument completion, registration,
 * the prefilled input itself, and the external editor hand-over.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { ExtensionUIContext } from "@mariozechner/pi-coding-agent";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  editBodyInTui,
  runSubagentConfigCommand,
  PrefilledInputComponent,
} from "../../../../../src/pi/commands/config-command.ts";
import {
  editorCommand,
  runEditorOnText,
  runEditorOutsideTui,
  splitCommand,
} from "../../../../../src/commands/config-store.ts";
import { NON_TUI_WARNING } from "../../../../../src/commands/config-editor.ts";
import {
  agentNameCompletions,
  COMMAND_NAME,
  registerSubagentConfigCommand,
} from "../../../../../src/pi/commands/commands.ts";
import { resetProcessOverridesForTests } from "../../../../../src/config/load.ts";
import { createWorld, WORKER_TEXT, type World } from "../subagent-config-fixtures.ts";

let world: World | undefined;
beforeEach(() => resetProcessOverridesForTests());
afterEach(() => {
  world?.remove();
  world = undefined;
});

const plainTheme = { fg: (_color: string, text: string) => text };
/** A rendered line without ANSI styling (pi-tui's Input draws its cursor in inverse video) and trailing blanks. */
const plain = (line: string) => line.replace(/\x1b\[[0-9;]*m/g, "").trimEnd();
type Component = { render(width: number): string[]; handleInput?(data: string): void };

/** A fake ctx.ui that records every call; select answers come from a list, custom dialogs are driven by `onCustom`. */
function fakeUI(options: {
  selects?: Array<(options: string[], title: string) => string | undefined>;
  onCustom?: (component: Component, done: (value: unknown) => void) => void;
  editorAnswers?: Array<string | undefined>;
}) {
  const calls: Array<{ method: string; args: unknown[] }> = [];
  const selects = [...(options.selects ?? [])];
  const editorAnswers = [...(options.editorAnswers ?? [])];
  const notices: Array<{ message: string; type: string | undefined }> = [];
  const tui = {
    stop: () => calls.push({ method: "tui.stop", args: [] }),
    start: () => calls.push({ method: "tui.start", args: [] }),
    requestRender: (force?: boolean) => calls.push({ method: "tui.requestRender", args: [force] }),
  };
  const ui = {
    select: async (title: string, opts: string[]) => {
      calls.push({ method: "select", args: [title, opts] });
      const answer = selects.shift();
      if (!answer) throw new Error(`unscripted select: ${title}`);
      return answer(opts, title);
    },
    confirm: async (...args: unknown[]) => {
      calls.push({ method: "confirm", args });
      return false;
    },
    input: async (...args: unknown[]) => {
      calls.push({ method: "input", args });
      return undefined;
    },
    editor: async (...args: unknown[]) => {
      calls.push({ method: "editor", args });
      return editorAnswers.shift();
    },
    notify: (message: string, type?: string) => {
      calls.push({ method: "notify", args: [message, type] });
      notices.push({ message, type });
    },
    custom: (
      factory: (tui: unknown, theme: unknown, keybindings: unknown, done: (value: unknown) => void) => unknown,
    ) =>
      new Promise((resolve) => {
        calls.push({ method: "custom", args: [] });
        let finished = false;
        const done = (value: unknown) => {
          finished = true;
          resolve(value);
        };
        const component = factory(tui, plainTheme, {}, done) as Component;
        if (!finished) options.onCustom?.(component, done);
      }),
  };
  return { ui: ui as unknown as ExtensionUIContext, calls, notices };
}

const pickStarting = (prefix: string) => (opts: string[]) => opts.find((o) => o.startsWith(prefix));
const escape = () => undefined;

describe("outside the TUI", () => {
  it("warns with the usage (notify and stderr), opens no dialog and writes nothing", async () => {
    world = createWorld();
    const before = world.files();
    const { ui, calls } = fakeUI({});
    const stderr: string[] = [];
    await runSubagentConfigCommand(
      "worker",
      { hasUI: false, ui, cwd: world.cwd, model: undefined },
      { writeStderr: (text) => stderr.push(text) },
    );
    expect(calls).toEqual([{ method: "notify", args: [NON_TUI_WARNING, "warning"] }]);
    expect(stderr).toEqual([`pi-subagent-dispatch: ${NON_TUI_WARNING}\n`]);
    expect(NON_TUI_WARNING).toBe(
      "/subagent-config is interactive and needs pi's TUI; nothing was shown or changed. Run it in an interactive pi session (not with -p or --mode json). Usage: /subagent-config [agent-name]",
    );
    expect(world.files()).toEqual(before);
  });
});

describe("in the TUI", () => {
  it("edits the description in the prefilled input (ctx.ui.custom + pi-tui Input): typed text goes after the value", async () => {
    world = createWorld();
    const rendered: string[][] = [];
    const { ui, calls, notices } = fakeUI({
      selects: [pickStarting("description"), escape],
      onCustom: (component) => {
        rendered.push(component.render(60).map(plain));
        for (const key of [" and more", "\r"]) component.handleInput?.(key);
      },
    });
    await runSubagentConfigCommand(
      "worker",
      { hasUI: true, ui, cwd: world.cwd, model: undefined },
      { appMode: "interactive", paths: { agentDir: world.agentDir, home: world.home, builtinDir: world.builtinDir } },
    );
    expect(rendered[0]).toContain("> A test worker");
    expect(rendered[0]!.some((line) => line.includes("worker: description (one line)"))).toBe(true);
    expect(world.read(world.workerFile)).toBe(
      WORKER_TEXT.replace("description: A test worker", "description: A test worker and more"),
    );
    expect(notices[0]!.message).toContain("The main agent's subagent roster shows it from its next turn.");
    expect(calls.filter((c) => c.method === "input" || c.method === "editor")).toEqual([]);
  });

  it("Esc in the prefilled input goes back to the field select and writes nothing", async () => {
    world = createWorld();
    const before = world.files();
    const { ui, calls } = fakeUI({
      selects: [pickStarting("tools"), escape],
      onCustom: (component) => component.handleInput?.("\x1b"),
    });
    await runSubagentConfigCommand(
      "worker",
      { hasUI: true, ui, cwd: world.cwd, model: undefined },
      { appMode: "interactive", paths: { agentDir: world.agentDir, home: world.home, builtinDir: world.builtinDir } },
    );
    expect(calls.map((c) => c.method)).toEqual(["select", "custom", "select"]);
    expect(world.files()).toEqual(before);
  });

  it("offers the main agent's model as the free-text prefill when nothing sets one", async () => {
    world = createWorld({ worker: "---\nname: worker\ndescription: d\n---\nBody.\n" });
    let prefill = "";
    const { ui } = fakeUI({
      selects: [pickStarting("model & thinking"), pickStarting("edit"), escape, escape],
      onCustom: (component, done) => {
        prefill =
          component
            .render(80)
            .map(plain)
            .find((line) => line.startsWith("> ")) ?? "";
        done(undefined);
      },
    });
    await runSubagentConfigCommand(
      "worker",
      { hasUI: true, ui, cwd: world.cwd, model: { provider: "prov", id: "main-model" } as never },
      { appMode: "interactive", paths: { agentDir: world.agentDir, home: world.home, builtinDir: world.builtinDir } },
    );
    expect(prefill).toBe("> prov/main-model");
  });
});

describe("in RPC mode", () => {
  it("sends prefilled values through the client's editor dialog; custom is never used", async () => {
    world = createWorld();
    const { ui, calls, notices } = fakeUI({
      selects: [pickStarting("tools"), pickStarting("body"), escape],
      editorAnswers: ["read, grep\n", "New body from the client."],
    });
    await runSubagentConfigCommand(
      "worker",
      { hasUI: true, ui, cwd: world.cwd, model: undefined },
      { appMode: "rpc", paths: { agentDir: world.agentDir, home: world.home, builtinDir: world.builtinDir } },
    );
    const editors = calls.filter((c) => c.method === "editor").map((c) => c.args);
    expect(editors).toEqual([
      ["worker: tools (comma-separated; leave empty to remove the tools key)", "read, bash"],
      ["worker: body (the agent's system prompt)", "You are the worker.\nSecond line."],
    ]);
    expect(calls.some((c) => c.method === "custom")).toBe(false);
    expect(notices.map((n) => n.type)).toEqual(["info", "info"]);
    expect(world.read(world.workerFile)).toBe(
      "---\nname: worker\ndescription: A test worker\ntools: read, grep\nthinking: medium\n---\n\nNew body from the client.\n",
    );
  });
});

describe("registration and argument completion", () => {
  it("registers /subagent-config with a description, a handler and completions", () => {
    const registered: Array<{ name: string; options: Record<string, unknown> }> = [];
    registerSubagentConfigCommand({
      registerCommand: (name, options) =>
        registered.push({ name, options: options as unknown as Record<string, unknown> }),
    });
    expect(registered).toHaveLength(1);
    expect(registered[0]!.name).toBe(COMMAND_NAME);
    expect(COMMAND_NAME).toBe("subagent-config");
    expect(typeof registered[0]!.options.handler).toBe("function");
    expect(typeof registered[0]!.options.getArgumentCompletions).toBe("function");
  });

  it("completes agent names by prefix; a name typed in full gets no list", () => {
    world = createWorld();
    world.tree.write("work/.pi/agents/worker-two.md", "---\nname: worker-two\ndescription: Second\n---\nBody.\n");
    const paths = { agentDir: world.agentDir, home: world.home, builtinDir: world.builtinDir };
    expect(agentNameCompletions("", world.cwd, paths)?.map((item) => item.value)).toEqual([
      "helper",
      "worker",
      "worker-two",
    ]);
    expect(agentNameCompletions("wo", world.cwd, paths)).toEqual([
      { value: "worker", label: "worker", description: "(project) A test worker" },
      { value: "worker-two", label: "worker-two", description: "(project) Second" },
    ]);
    expect(agentNameCompletions("worker", world.cwd, paths)?.map((item) => item.value)).toEqual([
      "worker",
      "worker-two",
    ]);
    expect(agentNameCompletions("helper", world.cwd, paths)).toBeNull();
    expect(agentNameCompletions("zzz", world.cwd, paths)).toBeNull();
  });
});

describe("the prefilled input", () => {
  function open(value: string) {
    const results: Array<string | undefined> = [];
    const component = new PrefilledInputComponent(
      "Title",
      value,
      plainTheme,
      (v) => results.push(v),
      () => results.push(undefined),
    );
    return { component, results };
  }

  it("Enter submits the value as it stands (unchanged when untouched)", () => {
    const { component, results } = open("keep me");
    component.handleInput("\r");
    expect(results).toEqual(["keep me"]);
  });

  it("the cursor starts after the value; editing keys work", () => {
    const { component, results } = open("abc");
    component.handleInput("\x7f"); // Backspace
    component.handleInput("Z");
    component.handleInput("\r");
    expect(results).toEqual(["abZ"]);
    expect(component.getValue()).toBe("abZ");
  });

  it("Esc cancels", () => {
    const { component, results } = open("abc");
    component.handleInput("x");
    component.handleInput("\x1b");
    expect(results).toEqual([undefined]);
  });

  it("keeps a value with a tab byte for byte", () => {
    const { component, results } = open("a\tb");
    component.handleInput("\r");
    expect(results).toEqual(["a\tb"]);
  });

  it("renders a framed dialog with the title, the value and the key hints", () => {
    const { component } = open("value");
    const lines = component.render(40).map(plain);
    expect(lines[0]).toBe("─".repeat(40));
    expect(lines).toContain(" Title");
    expect(lines.some((line) => line.startsWith("> value"))).toBe(true);
    expect(lines).toContain(" enter submit  esc cancel");
  });
});

describe("the external editor", () => {
  it("$EDITOR, then $VISUAL, then vi; arguments are kept", () => {
    expect(editorCommand({ EDITOR: "nano", VISUAL: "code --wait" })).toBe("nano");
    expect(editorCommand({ EDITOR: "  ", VISUAL: "code --wait" })).toBe("code --wait");
    expect(editorCommand({})).toBe("vi");
    expect(splitCommand("code  --wait -n")).toEqual(["code", "--wait", "-n"]);
  });

  it("runs the editor on a private temp file named after the agent, reads it back and removes it", () => {
    world = createWorld();
    const log = join(world.tree.root, "seen.txt");
    const script = world.tree.write(
      "editor.sh",
      `#!/bin/sh\necho "$1" > "${log}"\ncat "$1" >> "${log}"\nprintf 'edited\\n' > "$1"\n`,
    );
    const outcome = runEditorOnText("coder", "old body", { EDITOR: `sh ${script}` });
    expect(outcome).toEqual({ kind: "edited", text: "edited\n" });
    const [path, content] = readFileSync(log, "utf8").split("\n");
    expect(path).toMatch(/pi-subagent-body-[^/]+\/coder\.md$/);
    expect(content).toBe("old body");
    expect(existsSync(path!)).toBe(false);
  });

  it("tells a non-zero exit and a failed launch apart", () => {
    world = createWorld();
    const failing = world.tree.write("fail.sh", "#!/bin/sh\nexit 3\n");
    expect(runEditorOnText("coder", "x", { EDITOR: `sh ${failing}` })).toEqual({
      kind: "exit-code",
      command: `sh ${failing}`,
      code: 3,
      signal: null,
    });
    const missing = runEditorOnText("coder", "x", { EDITOR: "/nonexistent/editor-binary" });
    expect(missing.kind).toBe("launch-failed");
    expect(missing).toMatchObject({ command: "/nonexistent/editor-binary", reason: expect.stringContaining("ENOENT") });
  });

  it("stops the TUI, runs the editor, starts the TUI and forces a full redraw, even when the editor throws", () => {
    const order: string[] = [];
    const tui = {
      stop: () => order.push("stop"),
      start: () => order.push("start"),
      requestRender: (force?: boolean) => order.push(`render:${force}`),
    };
    expect(runEditorOutsideTui(tui, () => (order.push("edit"), { kind: "cancelled" }))).toEqual({ kind: "cancelled" });
    expect(order).toEqual(["stop", "edit", "start", "render:true"]);
    order.length = 0;
    expect(() =>
      runEditorOutsideTui(tui, () => {
        throw new Error("boom");
      }),
    ).toThrow("boom");
    expect(order).toEqual(["stop", "start", "render:true"]);
  });

  it("inside ctx.ui.custom: the editor runs with the TUI stopped and the dialog resolves with the outcome", async () => {
    world = createWorld();
    const script = world.tree.write("editor.sh", "#!/bin/sh\nprintf 'from the editor\\n' > \"$1\"\n");
    const { ui, calls } = fakeUI({});
    const outcome = await editBodyInTui(ui, "coder", "before", { EDITOR: `sh ${script}` });
    expect(outcome).toEqual({ kind: "edited", text: "from the editor\n" });
    expect(calls.map((c) => c.method)).toEqual(["custom", "tui.stop", "tui.start", "tui.requestRender"]);
  });
});
