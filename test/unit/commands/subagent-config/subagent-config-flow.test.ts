/**
 * The /subagent-config flow end to end at the unit level: scripted dialogs (the person's choices) over the
 * real store on a temp dir (real agent files, real subagent-isolation.json files, the real process layer).
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runSubagentConfigFlow, PROCESS_WRITE_NOTE, TYPE_MODEL_ENTRY } from "../../../../src/commands/config-editor.ts";
import { getProcessOverrides, resetProcessOverridesForTests, setProcessOverride } from "../../../../src/config/load.ts";
import {
  bodyEdit,
  choose,
  chooseExactly,
  confirmAnswer,
  createWorld,
  escInput,
  escSelect,
  HELPER_TEXT,
  ScriptedDialogs,
  type Step,
  type,
  WORKER_TEXT,
  type World,
} from "../../pi/commands/subagent-config-fixtures.ts";

let world: World | undefined;
beforeEach(() => resetProcessOverridesForTests());
afterEach(() => {
  world?.remove();
  world = undefined;
  resetProcessOverridesForTests();
});

const MODELS = ["fake/a", "fake/b"];
const PICKER = "Configure subagents: pick an agent";
const WORKER_FIELDS = "Configure worker (project)";
const WORKER_ACTIONS = "worker: model & thinking";

async function run(
  w: World,
  steps: Step[],
  args = "",
  inheritedModel?: string,
  pi?: { inheritedThinking?: string; registryModels?: string[] },
): Promise<ScriptedDialogs> {
  const dialogs = new ScriptedDialogs(steps);
  await runSubagentConfigFlow(dialogs, w.store(inheritedModel, pi), args);
  expect(dialogs.remaining, "every scripted step was used").toBe(0);
  return dialogs;
}

/** Runs the steps and checks that not one file changed and the process layer stayed empty. */
async function runWritingNothing(w: World, steps: Step[], args = ""): Promise<ScriptedDialogs> {
  const before = w.files();
  const dialogs = await run(w, steps, args);
  expect(w.files()).toEqual(before);
  expect(getProcessOverrides()).toEqual({});
  return dialogs;
}

const titleStarts = (dialogs: ScriptedDialogs) =>
  dialogs.titles.map((title) => title.split("\n")[0]!.replace(/: \/.*$/, ""));

describe("agent picker", () => {
  it("lists each agent with its source and effective model (thinking), then the $models entry last", async () => {
    world = createWorld({ projectConfig: { worker: { model: "fake/a" } } });
    const dialogs = await runWritingNothing(world, [escSelect]);
    expect(dialogs.calls[0]!.title).toBe(PICKER);
    expect(dialogs.selectOptions(0)).toEqual([
      "helper (builtin) — inherits the main agent's model · thinking pi's default",
      "worker (project) — fake/a · thinking medium",
      "Manage available model list ($models)",
    ]);
  });

  it("shows the (process) badge and the [saved: ...] fragment for an agent with a process override", async () => {
    world = createWorld({ projectConfig: { worker: { model: "fake/a", thinking: "high" } } });
    setProcessOverride("worker", { model: "fake/b" });
    const dialogs = await run(world, [escSelect]);
    // The process entry shadows the project entry wholesale: its unset thinking falls to the frontmatter.
    expect(dialogs.selectOptions(0)[1]).toBe(
      "worker (project) — fake/b · thinking medium (process) [saved: fake/a (project) · thinking high (project)]",
    );
  });

  it("with zero agents degrades to the $models entry, which still works", async () => {
    world = createWorld({ project: false });
    const dialogs = new ScriptedDialogs([choose("Manage available model list"), escSelect, escSelect]);
    const store = world.store();
    const empty = { ...store, load: () => ({ ...store.load(), agents: [] }) };
    await runSubagentConfigFlow(dialogs, empty, "");
    expect(dialogs.calls[0]!.title).toBe("Configure subagents (no agents found: only the model list can be managed)");
    expect(dialogs.selectOptions(0)).toEqual(["Manage available model list ($models)"]);
    expect(dialogs.calls[1]!.title.split("\n")[0]).toBe("Available models ($models)");
  });

  it("/subagent-config <name> jumps to the field select; Esc there leaves the command", async () => {
    world = createWorld();
    const dialogs = await runWritingNothing(world, [escSelect], "worker");
    expect(dialogs.calls).toHaveLength(1);
    expect(dialogs.calls[0]!.title).toBe(`${WORKER_FIELDS}: ${world.workerFile}`);
  });

  it("an unknown name is an error notice listing the agents, with no dialog", async () => {
    world = createWorld();
    const dialogs = await runWritingNothing(world, [], "nobody");
    expect(dialogs.calls).toHaveLength(0);
    expect(dialogs.notices).toEqual([
      {
        message: 'Unknown agent "nobody". Known agents: helper, worker. Usage: /subagent-config [agent-name]',
        level: "error",
      },
    ]);
  });
});

describe("field select", () => {
  it("offers the seven fields, each with its current value", async () => {
    world = createWorld({ userConfig: { worker: { model: "fake/u" } } });
    const dialogs = await run(world, [escSelect], "worker");
    expect(dialogs.selectOptions(0)).toEqual([
      "description — A test worker",
      "tools — read, bash",
      "skills — not set",
      "body — You are the worker. (2 lines)",
      "model & thinking — fake/u (user) · thinking medium (frontmatter)",
      "budget — not set",
      "sandbox — off (default)",
    ]);
  });

  it("appends the [saved: ...] fragment to model & thinking when a process override exists", async () => {
    world = createWorld();
    setProcessOverride("worker", { model: "fake/p", thinking: "low" });
    const dialogs = await run(world, [choose("model & thinking"), escSelect, escSelect], "worker");
    expect(dialogs.selectOptions(0)[4]).toBe(
      "model & thinking — fake/p (process) · thinking low (process) [saved: inherits the main agent's model · thinking medium (frontmatter)]",
    );
    expect(dialogs.selectOptions(1)).toEqual([
      "edit model & thinking — fake/p (process) · thinking low (process) [saved: inherits the main agent's model · thinking medium (frontmatter)]",
      "clear model & thinking (reset to frontmatter)",
    ]);
  });
});

describe("Esc walks back exactly one level and writes nothing", () => {
  beforeEach(() => {
    world = createWorld({ userConfig: { $models: MODELS } });
  });

  it("picker → exit", async () => {
    const dialogs = await runWritingNothing(world!, [escSelect]);
    expect(titleStarts(dialogs)).toEqual([PICKER]);
  });

  it("field select → picker", async () => {
    const dialogs = await runWritingNothing(world!, [choose("worker"), escSelect, escSelect]);
    expect(titleStarts(dialogs)).toEqual([PICKER, WORKER_FIELDS, PICKER]);
  });

  it("description, tools and skills inputs → field select", async () => {
    const dialogs = await runWritingNothing(
      world!,
      [choose("description"), escInput, choose("tools"), escInput, choose("skills"), escInput, escSelect],
      "worker",
    );
    expect(titleStarts(dialogs)).toEqual([
      WORKER_FIELDS,
      "worker: description (one line)",
      WORKER_FIELDS,
      "worker: tools (comma-separated; leave empty to remove the tools key)",
      WORKER_FIELDS,
      "worker: skills (comma-separated; leave empty to remove the skills key)",
      WORKER_FIELDS,
    ]);
    // The inputs opened with the current values.
    expect(dialogs.calls[1]!.value).toBe("A test worker");
    expect(dialogs.calls[3]!.value).toBe("read, bash");
    expect(dialogs.calls[5]!.value).toBe("");
  });

  it("body cancel → field select", async () => {
    const dialogs = await runWritingNothing(
      world!,
      [choose("body"), bodyEdit({ kind: "cancelled" }), escSelect],
      "worker",
    );
    expect(titleStarts(dialogs)).toEqual([WORKER_FIELDS, "worker", WORKER_FIELDS]);
    expect(dialogs.calls[1]!.value).toBe("You are the worker.\nSecond line.");
    expect(dialogs.notices).toEqual([]);
  });

  it("model & thinking: the action layer → field select", async () => {
    const dialogs = await runWritingNothing(world!, [choose("model & thinking"), escSelect, escSelect], "worker");
    expect(titleStarts(dialogs)).toEqual([WORKER_FIELDS, WORKER_ACTIONS, WORKER_FIELDS]);
  });

  it("model value, thinking and write target → the action layer (values dropped)", async () => {
    const dialogs = await runWritingNothing(
      world!,
      [
        choose("model & thinking"),
        choose("edit model & thinking"),
        escSelect, // model value
        choose("edit model & thinking"),
        chooseExactly("fake/b"),
        escSelect, // thinking
        choose("edit model & thinking"),
        chooseExactly("fake/b"),
        chooseExactly("high"),
        escSelect, // write target
        choose("clear model & thinking"),
        escSelect, // clear's write target
        escSelect, // action layer
        escSelect, // field select
      ],
      "worker",
    );
    expect(titleStarts(dialogs)).toEqual([
      WORKER_FIELDS,
      WORKER_ACTIONS,
      "worker: model (from $models, user list)",
      WORKER_ACTIONS,
      "worker: model (from $models, user list)",
      "worker: thinking level (not set: no thinking key in the entry)",
      WORKER_ACTIONS,
      "worker: model (from $models, user list)",
      "worker: thinking level (not set: no thinking key in the entry)",
      "worker: write model & thinking to",
      WORKER_ACTIONS,
      "worker: clear model & thinking in",
      WORKER_ACTIONS,
      WORKER_FIELDS,
    ]);
  });

  it("a free-text model input → the action layer", async () => {
    world!.remove();
    world = createWorld();
    const dialogs = await runWritingNothing(
      world,
      [choose("model & thinking"), choose("edit model & thinking"), escInput, escSelect, escSelect],
      "worker",
    );
    expect(titleStarts(dialogs)).toEqual([
      WORKER_FIELDS,
      WORKER_ACTIONS,
      "worker: model (provider/model-id)",
      WORKER_ACTIONS,
      WORKER_FIELDS,
    ]);
  });

  it("the built-in copy offer → field select", async () => {
    const dialogs = await runWritingNothing(
      world!,
      [choose("description"), escSelect, choose("body"), escSelect, escSelect],
      "helper",
    );
    expect(titleStarts(dialogs)[1]).toBe(
      "helper is a built-in agent (part of the package) and is not edited in place. Copy it to (the copy then shadows the built-in):",
    );
    expect(dialogs.selectOptions(1)).toEqual([
      `user agents folder (${join(world!.agentDir, "agents")})`,
      `project agents folder (${join(world!.projectPi, "agents")})`,
    ]);
    expect(titleStarts(dialogs)).toHaveLength(5);
  });

  it("$models manager: each step → manager, manager → picker", async () => {
    const dialogs = await runWritingNothing(world!, [
      choose("Manage available model list"),
      choose("add a model"),
      escInput,
      choose("add a model"),
      type("fake/c"),
      escSelect, // add target
      choose("remove a model"),
      escSelect, // which model
      choose("remove a model"),
      chooseExactly("fake/a"),
      escSelect, // remove target
      choose("remove a model"),
      chooseExactly("fake/a"),
      chooseExactly("user"),
      confirmAnswer(false),
      escSelect, // manager
      escSelect, // picker
    ]);
    const manager = "Available models ($models), from the user file";
    expect(titleStarts(dialogs).map((title) => title.replace(/ \(\/.*$/, ""))).toEqual([
      PICKER,
      manager,
      "Model to add to $models (provider/model-id)",
      manager,
      "Model to add to $models (provider/model-id)",
      "Add fake/c to $models in",
      manager,
      "Model to remove from $models",
      manager,
      "Model to remove from $models",
      "Remove fake/a from $models in",
      manager,
      "Model to remove from $models",
      "Remove fake/a from $models in",
      "Remove a model from $models",
      manager,
      PICKER,
    ]);
  });
});

describe("model & thinking", () => {
  it("writes both fields in one patch to the project file, then shows recomputed annotations", async () => {
    world = createWorld({ userConfig: { $models: MODELS } });
    const dialogs = await run(world, [
      choose("worker"),
      choose("model & thinking"),
      choose("edit model & thinking"),
      chooseExactly("fake/b"),
      chooseExactly("high"),
      chooseExactly("project"),
      escSelect, // back at the field select
      escSelect, // picker
    ]);
    expect(JSON.parse(world.read(world.projectConfig))).toEqual({ worker: { model: "fake/b", thinking: "high" } });
    expect(dialogs.notices).toEqual([
      {
        message: `worker: model fake/b, thinking high; written to project (${world.projectConfig}). Takes effect on the next dispatch.`,
        level: "info",
      },
    ]);
    // The options offered on the way, and the annotations after the write.
    expect(dialogs.selectOptions(3)).toEqual(["fake/a", "fake/b", TYPE_MODEL_ENTRY]);
    expect(dialogs.selectOptions(4)).toEqual([
      "off",
      "minimal",
      "low",
      "medium (current)",
      "high",
      "xhigh",
      "max",
      "not set",
    ]);
    expect(dialogs.selectOptions(5)).toEqual(["this process", "user", "project"]);
    expect(dialogs.selectOptions(6)[4]).toBe("model & thinking — fake/b (project) · thinking high (project)");
    expect(dialogs.selectOptions(7)[1]).toBe("worker (project) — fake/b · thinking high");
    expect(getProcessOverrides()).toEqual({});
  });

  it("says what an agent with nothing set inherits: the main agent's model and pi's default thinking", async () => {
    world = createWorld({});
    const dialogs = await run(
      world,
      [choose("helper"), choose("model & thinking"), escSelect, escSelect, escSelect],
      "",
      "fake/fake-model",
      { inheritedThinking: "off" },
    );
    expect(dialogs.selectOptions(0)).toContain("helper (builtin) — inherits fake/fake-model · thinking off");
    expect(dialogs.selectOptions(1)[4]).toBe("model & thinking — inherits fake/fake-model · thinking off");
    expect(dialogs.selectOptions(2)[0]).toBe("edit model & thinking — inherits fake/fake-model · thinking off");
  });

  it("without $models, picks the model from pi's registry, the inherited one marked current, free text still possible", async () => {
    world = createWorld({});
    const registryModels = ["fake/fake-model", "fake/fake-reasoner"];
    const dialogs = await run(
      world,
      [
        choose("model & thinking"),
        choose("edit"),
        chooseExactly("fake/fake-reasoner"),
        chooseExactly("low"),
        chooseExactly("user"),
        escSelect,
      ],
      "worker",
      "fake/fake-model",
      { registryModels },
    );
    expect(dialogs.titles[2]).toBe("worker: model (the models pi can use now)");
    expect(dialogs.selectOptions(2)).toEqual(["fake/fake-model (current)", "fake/fake-reasoner", TYPE_MODEL_ENTRY]);
    expect(JSON.parse(world.read(world.userConfig))).toEqual({
      worker: { model: "fake/fake-reasoner", thinking: "low" },
    });

    // The last entry asks for any provider/model-id, prefilled with what the agent runs with now.
    resetProcessOverridesForTests();
    const typed = await run(
      world,
      [
        choose("model & thinking"),
        choose("edit"),
        chooseExactly(TYPE_MODEL_ENTRY),
        type("other/model-x"),
        chooseExactly("high"),
        chooseExactly("this process"),
        escSelect,
      ],
      "worker",
      "fake/fake-model",
      { registryModels },
    );
    expect(typed.titles[3]).toBe("worker: model (provider/model-id)");
    expect(getProcessOverrides()).toEqual({ worker: { model: "other/model-x", thinking: "high" } });
  });

  it("marks the governing layer (current) and the current model in the $models select", async () => {
    world = createWorld({ userConfig: { $models: MODELS, worker: { model: "fake/a" } } });
    const dialogs = await run(
      world,
      [
        choose("model & thinking"),
        choose("edit"),
        chooseExactly("fake/a"),
        chooseExactly("not set"),
        escSelect,
        escSelect,
        escSelect,
      ],
      "worker",
    );
    expect(dialogs.selectOptions(2)).toEqual(["fake/a (current)", "fake/b", TYPE_MODEL_ENTRY]);
    expect(dialogs.selectOptions(3)).toEqual([
      "off",
      "minimal",
      "low",
      "medium (current)",
      "high",
      "xhigh",
      "max",
      "not set",
    ]);
    expect(dialogs.selectOptions(4)).toEqual(["this process", "user (current)", "project"]);
  });

  it("`not set` thinking writes the entry without a thinking key, and marks unset as current", async () => {
    world = createWorld({
      worker: "---\nname: worker\ndescription: d\n---\nBody.\n",
      projectConfig: { worker: { model: "fake/x", thinking: "low", note: "kept" } },
    });
    const dialogs = await run(
      world,
      [
        choose("model & thinking"),
        choose("edit"),
        type("fake/y"),
        chooseExactly("not set"),
        chooseExactly("project"),
        escSelect,
      ],
      "worker",
    );
    expect(JSON.parse(world.read(world.projectConfig))).toEqual({ worker: { model: "fake/y", note: "kept" } });
    expect(dialogs.notices[0]!.message).toBe(
      `worker: model fake/y, thinking not set; written to project (${world.projectConfig}). Takes effect on the next dispatch.`,
    );
  });

  it("free text: prefilled with the effective model, or the inherited one; an empty model is refused", async () => {
    world = createWorld({ userConfig: { worker: { model: "fake/u" } } });
    const dialogs = await run(
      world,
      [choose("model & thinking"), choose("edit"), type("   "), escSelect, escSelect],
      "worker",
      "main/current",
    );
    expect(dialogs.calls[2]!.value).toBe("fake/u");
    expect(dialogs.notices).toEqual([
      { message: "worker: the model cannot be empty (provider/model-id); nothing written.", level: "error" },
    ]);
    world.remove();

    world = createWorld();
    const second = await run(
      world,
      [choose("model & thinking"), choose("edit"), escInput, escSelect, escSelect],
      "worker",
      "main/current",
    );
    expect(second.calls[2]!.value).toBe("main/current");
  });

  it("this process: memory only, the (process) badge and [saved: ...] appear, no file is written", async () => {
    world = createWorld({
      userConfig: { $models: MODELS },
      projectConfig: { worker: { model: "fake/a", thinking: "high" } },
    });
    const before = world.files();
    const dialogs = await run(world, [
      choose("worker"),
      choose("model & thinking"),
      choose("edit"),
      chooseExactly("fake/b"),
      chooseExactly("low"),
      chooseExactly("this process"),
      escSelect,
      escSelect,
    ]);
    expect(dialogs.selectOptions(5)).toEqual(["this process", "user", "project (current)"]);
    expect(getProcessOverrides()).toEqual({ worker: { model: "fake/b", thinking: "low" } });
    expect(world.files()).toEqual(before);
    expect(dialogs.notices[0]).toEqual({
      message: `worker: model fake/b, thinking low; ${PROCESS_WRITE_NOTE}. Takes effect on the next dispatch.`,
      level: "info",
    });
    expect(dialogs.selectOptions(6)[4]).toBe(
      "model & thinking — fake/b (process) · thinking low (process) [saved: fake/a (project) · thinking high (project)]",
    );
    expect(dialogs.selectOptions(7)[1]).toBe(
      "worker (project) — fake/b · thinking low (process) [saved: fake/a (project) · thinking high (project)]",
    );
  });

  it("says so when a higher layer keeps governing after the write", async () => {
    world = createWorld({ projectConfig: { worker: { model: "fake/p" } } });
    const dialogs = await run(
      world,
      [
        choose("model & thinking"),
        choose("edit"),
        type("fake/u"),
        chooseExactly("high"),
        chooseExactly("user"),
        escSelect,
      ],
      "worker",
    );
    expect(JSON.parse(world.read(world.userConfig))).toEqual({ worker: { model: "fake/u", thinking: "high" } });
    expect(dialogs.notices[0]!.message).toBe(
      `worker: model fake/u, thinking high; written to user (${world.userConfig}). Takes effect on the next dispatch. Note: the project entry takes precedence over user, so dispatch still uses fake/p (project) · thinking medium (frontmatter).`,
    );
  });

  it("writing the values already there writes nothing and says so", async () => {
    world = createWorld({ projectConfig: { worker: { model: "fake/p", thinking: "low" } } });
    const before = world.files();
    const dialogs = await run(
      world,
      [
        choose("model & thinking"),
        choose("edit"),
        type("fake/p"),
        chooseExactly("low"),
        chooseExactly("project"),
        escSelect,
      ],
      "worker",
    );
    expect(world.files()).toEqual(before);
    expect(dialogs.notices[0]!.message).toBe(
      `worker: model fake/p, thinking low already in project (${world.projectConfig}); nothing written.`,
    );
  });

  it("clear removes the whole entry and names each field's fallback with its source", async () => {
    world = createWorld({
      userConfig: { worker: { model: "fake/u" } },
      projectConfig: { $schema: "x", worker: { model: "fake/p", thinking: "high" } },
    });
    const dialogs = await run(
      world,
      [choose("model & thinking"), choose("clear"), chooseExactly("project"), escSelect],
      "worker",
    );
    expect(JSON.parse(world.read(world.projectConfig))).toEqual({ $schema: "x" });
    expect(dialogs.selectOptions(2)).toEqual(["this process", "user", "project (current)"]);
    // Whole-key merge: the user entry governs now; its unset thinking falls to the frontmatter, not to the project.
    expect(dialogs.notices[0]!.message).toBe(
      `worker: model & thinking cleared in project (${world.projectConfig}). Now: model fake/u (user), thinking medium (frontmatter). Takes effect on the next dispatch.`,
    );
  });

  it("clear with nothing left claims the frontmatter, and a missing entry is a no-op that creates no file", async () => {
    world = createWorld({ worker: "---\nname: worker\ndescription: d\n---\nBody.\n" });
    setProcessOverride("worker", { model: "fake/m", thinking: "max" });
    const first = await run(
      world,
      [choose("model & thinking"), choose("clear"), chooseExactly("this process"), escSelect],
      "worker",
    );
    expect(getProcessOverrides()).toEqual({});
    expect(first.notices[0]!.message).toBe(
      "worker: model & thinking cleared in this process (memory only; no file written). Now: model not set (frontmatter has none; the main agent's model is inherited), thinking not set (frontmatter has none). Takes effect on the next dispatch.",
    );
    const before = world.files();
    const second = await run(
      world,
      [choose("model & thinking"), choose("clear"), chooseExactly("project"), escSelect],
      "worker",
    );
    expect(world.files()).toEqual(before);
    expect(existsSync(world.projectConfig)).toBe(false);
    expect(second.notices[0]!.message).toBe(
      `worker: no model & thinking entry in project (${world.projectConfig}); nothing changed. In effect: model not set (frontmatter has none; the main agent's model is inherited), thinking not set (frontmatter has none).`,
    );
  });

  it("a target file that is not valid JSON is refused, untouched, and the flow goes back to the action layer", async () => {
    world = createWorld();
    world.tree.write("work/.pi/subagent-isolation.json", "{ broken");
    const dialogs = await run(
      world,
      [
        choose("model & thinking"),
        choose("edit"),
        type("fake/x"),
        chooseExactly("high"),
        chooseExactly("project"),
        escSelect,
        escSelect,
      ],
      "worker",
    );
    expect(world.read(world.projectConfig)).toBe("{ broken");
    expect(dialogs.notices[0]!.level).toBe("error");
    expect(dialogs.notices[0]!.message).toMatch(/^Not saved:/);
    expect(titleStarts(dialogs).slice(-2)).toEqual([WORKER_ACTIONS, WORKER_FIELDS]);
  });
});

describe("agent file fields", () => {
  it("description: prefilled, written line by line, asks for /reload; empty and unchanged write nothing", async () => {
    world = createWorld();
    const dialogs = await run(
      world,
      [
        choose("description"),
        type("  "),
        choose("description"),
        type("A test worker"),
        choose("description"),
        type("Writes: tests # fast"),
        escSelect,
      ],
      "worker",
    );
    expect(dialogs.notices).toEqual([
      { message: "worker: the description cannot be empty; nothing written.", level: "error" },
      { message: "worker: description unchanged; nothing written.", level: "info" },
      {
        message: `worker: description saved to ${world.workerFile}. The main agent's subagent roster shows it from its next turn.`,
        level: "info",
      },
    ]);
    expect(world.read(world.workerFile)).toBe(
      WORKER_TEXT.replace("description: A test worker", 'description: "Writes: tests # fast"'),
    );
    expect(dialogs.lastSelectOptions()[0]).toBe("description — Writes: tests # fast");
  });

  it("tools: a comma-separated list is written; empty input deletes the key", async () => {
    world = createWorld();
    const dialogs = await run(
      world,
      [choose("tools"), type("read, grep,, read ,find"), choose("tools"), type(""), escSelect],
      "worker",
    );
    expect(dialogs.notices.map((n) => n.message)).toEqual([
      `worker: tools set to read, grep, find in ${world.workerFile}. Takes effect on the next dispatch.`,
      `worker: tools key removed from ${world.workerFile} (pi's default tools apply). Takes effect on the next dispatch.`,
    ]);
    expect(world.read(world.workerFile)).toBe(WORKER_TEXT.replace("tools: read, bash\n", ""));
    expect(dialogs.calls[3]!.value).toBe("read, grep, find");
  });

  it("skills: set, then empty input deletes the key (and an empty input with no key is unchanged)", async () => {
    world = createWorld();
    const dialogs = await run(
      world,
      [choose("skills"), type(""), choose("skills"), type("./skills/a"), choose("skills"), type(" "), escSelect],
      "worker",
    );
    expect(dialogs.notices.map((n) => n.message)).toEqual([
      "worker: skills unchanged; nothing written.",
      `worker: skills set to ./skills/a in ${world.workerFile}. Takes effect on the next dispatch.`,
      `worker: skills key removed from ${world.workerFile} (the global skills apply). Takes effect on the next dispatch.`,
    ]);
    expect(world.read(world.workerFile)).toBe(WORKER_TEXT);
  });

  it("a multi-line value is refused with the core's hint; the file stays byte-identical", async () => {
    const text = "---\nname: worker\ndescription: d\ntools:\n  - read\n  - bash\n---\nBody.\n";
    world = createWorld({ worker: text });
    const dialogs = await run(world, [choose("tools"), type("read"), escSelect], "worker");
    expect(world.read(world.workerFile)).toBe(text);
    expect(dialogs.notices[0]!.level).toBe("error");
    expect(dialogs.notices[0]!.message).toContain("spans several lines");
  });

  it("body notices: unchanged, empty, launch failure, exit code, signal, saved", async () => {
    world = createWorld();
    const dialogs = await run(
      world,
      [
        choose("body"),
        bodyEdit({ kind: "edited", text: "You are the worker.\r\nSecond line.\r\n\r\n" }),
        choose("body"),
        bodyEdit({ kind: "edited", text: " \n\t\n" }),
        choose("body"),
        bodyEdit({ kind: "launch-failed", command: "nano", reason: "ENOENT: spawn nano ENOENT" }),
        choose("body"),
        bodyEdit({ kind: "exit-code", command: "vim", code: 1, signal: null }),
        choose("body"),
        bodyEdit({ kind: "exit-code", command: "vim", code: null, signal: "SIGTERM" }),
        choose("body"),
        bodyEdit({ kind: "edited", text: "A new prompt.\n" }),
        escSelect,
      ],
      "worker",
    );
    expect(dialogs.notices).toEqual([
      { message: "worker: body unchanged; nothing written.", level: "info" },
      {
        message: "worker: the edited body is empty (whitespace only); nothing written. An agent needs a system prompt.",
        level: "warning",
      },
      {
        message:
          'worker: could not start the editor "nano" (ENOENT: spawn nano ENOENT); nothing written. Set $EDITOR (or $VISUAL) to an editor that runs here.',
        level: "error",
      },
      { message: 'worker: the editor "vim" exited with code 1; nothing written.', level: "error" },
      { message: 'worker: the editor "vim" was ended by signal SIGTERM; nothing written.', level: "error" },
      { message: `worker: body saved to ${world.workerFile}. Takes effect on the next dispatch.`, level: "info" },
    ]);
    expect(world.read(world.workerFile)).toBe(
      "---\nname: worker\ndescription: A test worker\ntools: read, bash\nthinking: medium\n---\n\nA new prompt.\n",
    );
    expect(dialogs.lastSelectOptions()[3]).toBe("body — A new prompt. (1 line)");
  });
});

describe("built-in agents are copied, not edited in place", () => {
  it("copies to the project agents folder with the edit applied; the copy shadows the built-in", async () => {
    world = createWorld();
    const dialogs = await run(world, [
      choose("helper"),
      choose("tools"),
      choose("project agents folder"),
      type("read"),
      escSelect,
      escSelect,
    ]);
    const copy = join(world.projectPi, "agents", "helper.md");
    expect(world.read(copy)).toBe(
      HELPER_TEXT.replace("description: A built-in helper\n", "description: A built-in helper\ntools: read\n"),
    );
    expect(world.read(world.helperFile)).toBe(HELPER_TEXT);
    expect(dialogs.notices).toEqual([
      {
        message: `Copied the built-in agent helper to ${copy}; the copy now shadows the built-in. helper: tools set to read in ${copy}. Takes effect on the next dispatch.`,
        level: "info",
      },
    ]);
    // The field select now edits the copy; the picker lists it as a project agent.
    expect(dialogs.calls[4]!.title).toBe(`Configure helper (project): ${copy}`);
    expect(dialogs.lastSelectOptions()[0]).toBe(
      "helper (project) — inherits the main agent's model · thinking pi's default",
    );
  });

  it("copies to the user agents folder; the body edit lands in the copy", async () => {
    world = createWorld();
    const dialogs = await run(
      world,
      [choose("body"), choose("user agents folder"), bodyEdit({ kind: "edited", text: "You help a lot." }), escSelect],
      "helper",
    );
    const copy = join(world.agentDir, "agents", "helper.md");
    expect(world.read(copy)).toBe("---\nname: helper\ndescription: A built-in helper\n---\n\nYou help a lot.\n");
    expect(dialogs.calls[2]!.value).toBe("You help.");
    expect(dialogs.notices[0]!.message).toBe(
      `Copied the built-in agent helper to ${copy}; the copy now shadows the built-in. helper: body saved to ${copy}. Takes effect on the next dispatch.`,
    );
    expect(dialogs.calls[3]!.title).toBe(`Configure helper (user): ${copy}`);
  });

  it("without a project .pi, the project agents folder is .pi/agents in the working directory", async () => {
    world = createWorld({ project: false });
    await run(
      world,
      [choose("description"), choose("project agents folder"), type("Renamed helper"), escSelect],
      "helper",
    );
    expect(world.read(join(world.cwd, ".pi", "agents", "helper.md"))).toContain("description: Renamed helper\n");
  });

  it("an unchanged edit copies nothing; model & thinking never needs a copy", async () => {
    world = createWorld();
    const before = world.files();
    await run(
      world,
      [choose("description"), choose("user agents folder"), type("A built-in helper"), escSelect],
      "helper",
    );
    expect(world.files()).toEqual(before);
    await run(
      world,
      [
        choose("model & thinking"),
        choose("edit"),
        type("fake/h"),
        chooseExactly("low"),
        chooseExactly("user"),
        escSelect,
      ],
      "helper",
    );
    expect(JSON.parse(world.read(world.userConfig))).toEqual({ helper: { model: "fake/h", thinking: "low" } });
    expect(existsSync(join(world.agentDir, "agents", "helper.md"))).toBe(false);
  });

  it("refuses to overwrite an existing file at the copy's path", async () => {
    world = createWorld();
    world.tree.write("home/.pi/agent/agents/helper.md", "not an agent file\n");
    const dialogs = await run(
      world,
      [choose("description"), choose("user agents folder"), type("New"), escSelect],
      "helper",
    );
    expect(world.read(join(world.agentDir, "agents", "helper.md"))).toBe("not an agent file\n");
    expect(dialogs.notices[0]!.level).toBe("error");
    expect(dialogs.notices[0]!.message).toContain("already exists");
  });
});

describe("$models manager", () => {
  it("shows the list with its source, adds (idempotently) and removes with confirmation", async () => {
    world = createWorld({ userConfig: { $models: MODELS, worker: "fake/legacy" } });
    const dialogs = await run(world, [
      choose("Manage available model list"),
      choose("add a model"),
      type(" fake/c "),
      chooseExactly("user"),
      choose("add a model"),
      type("fake/c"),
      chooseExactly("user"),
      choose("remove a model"),
      chooseExactly("fake/a"),
      chooseExactly("user"),
      confirmAnswer(true),
      escSelect,
      escSelect,
    ]);
    expect(dialogs.calls[1]!.title).toBe(
      `Available models ($models), from the user file (${world.userConfig}):\n  fake/a\n  fake/b`,
    );
    expect(dialogs.selectOptions(2)).toEqual(["user (current)", "project"]);
    expect(dialogs.notices.map((n) => n.message)).toEqual([
      `Added fake/c to $models in user (${world.userConfig}).`,
      `fake/c is already in $models in user (${world.userConfig}); nothing written.`,
      `Removed fake/a from $models in user (${world.userConfig}).`,
    ]);
    const confirm = dialogs.calls.find((call) => call.kind === "confirm");
    expect(confirm?.message).toBe(`Remove fake/a from $models in user (${world.userConfig})?`);
    // Other keys survive; the manager's title follows each write.
    expect(JSON.parse(world.read(world.userConfig))).toEqual({ $models: ["fake/b", "fake/c"], worker: "fake/legacy" });
    expect(dialogs.calls[dialogs.calls.length - 2]!.title).toBe(
      `Available models ($models), from the user file (${world.userConfig}):\n  fake/b\n  fake/c`,
    );
  });

  it("removing the last model from the project keeps an empty list that shadows the user list", async () => {
    world = createWorld({ userConfig: { $models: MODELS }, projectConfig: { $models: ["fake/only"] } });
    const dialogs = await run(world, [
      choose("Manage available model list"),
      choose("remove a model"),
      chooseExactly("fake/only"),
      chooseExactly("project"),
      confirmAnswer(true),
      choose("remove a model"),
      escSelect, // manager
      escSelect, // picker
    ]);
    expect(JSON.parse(world.read(world.projectConfig))).toEqual({ $models: [] });
    expect(dialogs.notices.map((n) => n.message)).toEqual([
      `Removed fake/only from $models in project (${world.projectConfig}).`,
      "The $models list is empty; there is nothing to remove.",
    ]);
    expect(dialogs.calls[dialogs.calls.length - 2]!.title).toBe(
      "Available models ($models)\nThe list is empty (an empty $models in the project file).",
    );
  });

  it("notes when the edited user list is shadowed by the project list; an empty model is refused", async () => {
    world = createWorld({ projectConfig: { $models: ["fake/p"] } });
    const dialogs = await run(world, [
      choose("Manage available model list"),
      choose("add a model"),
      type(""),
      choose("add a model"),
      type("fake/u"),
      chooseExactly("user"),
      escSelect,
      escSelect,
    ]);
    expect(dialogs.notices.map((n) => n.message)).toEqual([
      "The model cannot be empty (provider/model-id); nothing written.",
      `Added fake/u to $models in user (${world.userConfig}). Note: the project $models list shadows the user list, so the list in force is unchanged.`,
    ]);
    expect(JSON.parse(world.read(world.userConfig))).toEqual({ $models: ["fake/u"] });
  });

  it("removing a model the target file does not have writes nothing", async () => {
    world = createWorld({ userConfig: { $models: MODELS } });
    const before = world.files();
    const dialogs = await run(world, [
      choose("Manage available model list"),
      choose("remove a model"),
      chooseExactly("fake/a"),
      chooseExactly("project"),
      confirmAnswer(true),
      escSelect,
      escSelect,
    ]);
    expect(world.files()).toEqual(before);
    expect(dialogs.notices[0]!.message).toBe(
      `fake/a is not in $models in project (${world.projectConfig}); nothing written.`,
    );
  });
});

describe("budget", () => {
  it("shows each limit with its source, writes one to the chosen file keeping the entry's other fields, and clears it", async () => {
    world = createWorld({ projectConfig: { worker: { model: "fake/a" } } });
    const dialogs = await run(
      world,
      [choose("budget"), choose("maxTurns"), type("8"), choose("project"), escSelect],
      "worker",
    );
    expect(dialogs.selectOptions(1)).toEqual(["maxTurns — not set", "maxTokens — not set", "maxCost — not set"]);
    expect(JSON.parse(world.read(world.projectConfig))).toEqual({ worker: { model: "fake/a", maxTurns: 8 } });
    expect(dialogs.notices.at(-1)!.message).toBe(`worker: maxTurns 8 saved to ${world.projectConfig}.`);

    const again = await run(
      world,
      [choose("budget"), choose("maxTurns"), type(""), choose("project"), escSelect],
      "worker",
    );
    expect(again.selectOptions(0).at(-2)).toBe("budget — maxTurns 8 (project)");
    expect(again.selectOptions(1)[0]).toBe("maxTurns — 8 (project)");
    expect(JSON.parse(world.read(world.projectConfig))).toEqual({ worker: { model: "fake/a" } });
  });

  it("refuses a malformed value before anything is written, and goes back to the limits", async () => {
    world = createWorld();
    const dialogs = await runWritingNothing(
      world,
      [choose("budget"), choose("maxCost"), type("-3"), escSelect, escSelect],
      "worker",
    );
    expect(dialogs.notices[0]!.message).toBe(
      'worker: maxCost must be a number greater than 0 (got "-3"); nothing written.',
    );
  });

  it("a process-only budget keeps the in-memory entry alive without model or thinking", async () => {
    world = createWorld();
    await run(world, [choose("budget"), choose("maxCost"), type("0.5"), choose("this process"), escSelect], "worker");
    expect(getProcessOverrides()["worker"]).toEqual({ maxCost: 0.5 });
  });
});

describe("sandbox", () => {
  it("writes a level to the user file, keeping the entry's other fields, and clears it back to the default", async () => {
    world = createWorld({ userConfig: { worker: { model: "fake/u" } } });
    const dialogs = await run(world, [choose("sandbox"), choose("read-only"), choose("user"), escSelect], "worker");
    expect(dialogs.selectOptions(1)).toEqual([
      "off (current)",
      "workspace-write",
      "read-only",
      'clear — the entry\'s sandbox goes; the frontmatter or "$sandbox" applies',
    ]);
    expect(dialogs.selectOptions(2)).toEqual(["user", "project"]);
    expect(JSON.parse(world.read(world.userConfig))).toEqual({ worker: { model: "fake/u", sandbox: "read-only" } });
    expect(dialogs.notices.at(-1)!.message).toBe(
      `worker: sandbox read-only saved to ${world.userConfig}. It runs with sandbox read-only.`,
    );

    const again = await run(world, [choose("sandbox"), choose("clear"), choose("user"), escSelect], "worker");
    expect(again.selectOptions(0).at(-1)).toBe("sandbox — read-only (user)");
    expect(JSON.parse(world.read(world.userConfig))).toEqual({ worker: { model: "fake/u" } });
  });

  it("says so when a project entry cannot loosen the person's sandbox", async () => {
    world = createWorld({ userConfig: { worker: { sandbox: "read-only" } } });
    const dialogs = await run(world, [choose("sandbox"), choose("off"), choose("project"), escSelect], "worker");
    expect(JSON.parse(world.read(world.projectConfig))).toEqual({ worker: { sandbox: "off" } });
    expect(dialogs.notices.at(-1)!.message).toBe(
      `worker: sandbox off saved to ${world.projectConfig}. It still runs with sandbox read-only: only your own settings can loosen a sandbox.`,
    );
  });
});
