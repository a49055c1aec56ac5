/**
 * /subagent-config in the real pi 0.73.1: the TUI under tmux (the model & thinking walk to the project file and
 * to the process memory, a dispatch that uses what was written, /reload dropping the process value, the body
 * in an external editor, Esc walking back without writing), print mode (a warning, nothing else) and RPC
 * mode (the dialogs go to the client).
 *
 * @module-tag contract
 */
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isWorkerRequest, useE2eSuite, WORKER_BODY, workerAgentFile } from "../harness/e2e-suite.ts";
import { fakeDirective, type FakeRequest } from "../harness/fake-model.ts";
import { EXTENSION_ENTRY, FAKE_MODEL, FAKE_REASONER, runPi, type PiEnv } from "../harness/pi-env.ts";
import { waitForNoProcesses } from "../harness/processes.ts";
import { PiRpc, type RpcEvent } from "../harness/rpc.ts";
import { skipTuiTests, TmuxPi } from "../harness/tmux.ts";

const WORKER_AGENT = workerAgentFile("tools: read, bash");
const MODELS = [`fake/${FAKE_MODEL}`, `fake/${FAKE_REASONER}`];
const PROCESS_NOTE = "written to this process (memory only — no file written; disappears when the process exits)";
const MANAGE_ENTRY = "Manage available model list ($models)";
const TYPE_MODEL_ENTRY = "type a model (provider/model-id)…";

const suite = useE2eSuite();

function newEnv(): PiEnv {
  const env = suite.newEnv({ workerFrontmatter: "tools: read, bash" });
  env.writeAgentDirFile("subagent-isolation.json", `${JSON.stringify({ $models: MODELS }, null, 2)}\n`);
  return env;
}

const projectConfigFile = () => join(suite.env.workDir, ".pi", "subagent-isolation.json");

/** The text of a select option line (without the `→ ` cursor and the indentation). */
function optionText(line: string): string {
  return line.replace(/^\s*(?:→\s)?\s*/, "").trimEnd();
}

const CURSOR_LINE = /^ → /;
/** An option's first line (a long option wraps onto lines indented by one space only). */
const OPTION_LINE = /^ (?:→ | {2})\S/;

/** The options of the select on screen (the non-blank lines around the cursor), and the cursor's index. */
function selectOnScreen(screen: string): { options: string[]; cursor: number } | undefined {
  const lines = screen.split("\n");
  const at = lines.findIndex((line) => CURSOR_LINE.test(line));
  if (at < 0) return undefined;
  let start = at;
  while (start > 0 && lines[start - 1]!.trim() !== "") start--;
  let end = at;
  while (end + 1 < lines.length && lines[end + 1]!.trim() !== "") end++;
  const options: string[] = [];
  let cursor = -1;
  for (const line of lines.slice(start, end + 1)) {
    if (OPTION_LINE.test(line)) {
      if (CURSOR_LINE.test(line)) cursor = options.length;
      options.push(optionText(line));
    } else if (options.length > 0) {
      options[options.length - 1] += ` ${line.trim()}`;
    }
  }
  return { options, cursor };
}

/** Whitespace-insensitive screen text: wrapped lines read as one. */
const flat = (text: string) => text.replace(/\s+/g, " ");

async function waitForFlatText(session: TmuxPi, text: string, timeoutMs = 30_000): Promise<string> {
  return session.waitForScreen((screen) => flat(screen).includes(flat(text)), timeoutMs, JSON.stringify(text));
}

/**
 * Moves the select's cursor to the option that satisfies `wanted` and presses Enter. The options are read
 * from the screen, so the test does not depend on how many agents (built-in ones included) are listed.
 */
async function pick(session: TmuxPi, wanted: (option: string) => boolean, what: string): Promise<void> {
  const screen = await session.waitForScreen(
    (text) => selectOnScreen(text)?.options.some(wanted) === true,
    30_000,
    `the option ${what}`,
  );
  const select = selectOnScreen(screen)!;
  const target = select.options.findIndex(wanted);
  const key = target > select.cursor ? "Down" : "Up";
  for (let i = 0; i < Math.abs(target - select.cursor); i++) await session.press(key);
  await session.waitForScreen(
    (text) => {
      const now = selectOnScreen(text);
      return now !== undefined && wanted(now.options[now.cursor] ?? "");
    },
    10_000,
    `the cursor on ${what}`,
  );
  await session.press("Enter");
}

const startsWith = (prefix: string) => (option: string) => option.startsWith(prefix);
const exactly = (text: string) => (option: string) => option === text || option === `${text} (current)`;

/** Opens /subagent-config, picks the worker and walks model & thinking to the given values. */
async function setWorkerModel(session: TmuxPi, model: string, thinking: string, target: string): Promise<void> {
  await session.submit("/subagent-config");
  await session.waitForText(MANAGE_ENTRY, 30_000);
  await pick(session, startsWith("worker (project) — "), "worker");
  await session.waitForText("Configure worker (project)");
  await pick(session, startsWith("model & thinking — "), "model & thinking");
  await session.waitForText("clear model & thinking (reset to frontmatter)");
  await pick(session, startsWith("edit model & thinking — "), "edit model & thinking");
  await session.waitForText("worker: model (from $models");
  await pick(session, exactly(model), model);
  await session.waitForText("worker: thinking level");
  await pick(session, exactly(thinking), thinking);
  await session.waitForText("worker: write model & thinking to");
  await pick(session, exactly(target), target);
}

/** Leaves the command from the field select: Esc to the picker, Esc out. */
async function leaveFromFieldSelect(session: TmuxPi): Promise<void> {
  await session.press("Escape");
  await session.waitForText(MANAGE_ENTRY);
  await session.press("Escape");
  await session.waitForNoText(MANAGE_ENTRY);
}

/**
 * Makes the main agent call the subagent tool for the worker and waits until the main agent has answered the
 * worker's result (as the tool result, or as the later [subagent-result]) on screen, so pi is idle again.
 * Resolves the child's request at the model.
 */
async function dispatchWorker(session: TmuxPi, tag: string): Promise<FakeRequest> {
  const since = suite.fake.requests.length;
  const seen = `PARENT-SAW-${tag}`;
  suite.fake.on({
    name: `main agent reads the result ${tag}`,
    // The delegating prompt names the child's answer too (inside its directive); the result is anything later.
    when: (req) =>
      !isWorkerRequest(req) && req.lastText.includes(`CHILD-DONE-${tag}`) && !req.lastText.includes(`Delegate ${tag}.`),
    reply: { text: seen },
    times: 1,
  });
  const task = `Report ${tag}. ${fakeDirective({ text: `CHILD-DONE-${tag}` })}`;
  await session.submit(
    `Delegate ${tag}. ${fakeDirective([{ toolCalls: [{ name: "subagent", arguments: { agent: "worker", task } }] }])}`,
  );
  const child = await suite.fake.waitForRequest(
    (req) => req.seq > since && isWorkerRequest(req),
    90_000,
    `the worker's request (${tag})`,
  );
  await session.waitForScreen(
    (screen) => screen.split("\n").some((line) => line.trim() === seen),
    90_000,
    `the main agent's answer ${seen}`,
  );
  return child;
}

describe.skipIf(skipTuiTests())("/subagent-config in the TUI", () => {
  it("writes model & thinking to the project file, a dispatch uses them, a process override wins until /reload", {
    tags: ["tui"],
  }, async () => {
    newEnv();
    const tui = await suite.startTui();

    // Nothing sets the worker's model or thinking: the first screen says what it inherits.
    await tui.submit("/subagent-config");
    await waitForFlatText(tui, `worker (project) — inherits fake/${FAKE_MODEL} · thinking off`);
    await tui.press("Escape");
    await tui.waitForNoText(MANAGE_ENTRY);

    // Project file: fake-reasoner at high.
    await setWorkerModel(tui, `fake/${FAKE_REASONER}`, "high", "project");
    const projectNotice = `worker: model fake/${FAKE_REASONER}, thinking high; written to project (${projectConfigFile()}). Takes effect on the next dispatch.`;
    await waitForFlatText(tui, projectNotice);
    // Back at the field select, with the annotation recomputed.
    await waitForFlatText(tui, `model & thinking — fake/${FAKE_REASONER} (project) · thinking high (project)`);
    expect(JSON.parse(readFileSync(projectConfigFile(), "utf8"))).toEqual({
      worker: { model: `fake/${FAKE_REASONER}`, thinking: "high" },
    });
    await leaveFromFieldSelect(tui);

    const first = await dispatchWorker(tui, "one");
    expect(first.model).toBe(FAKE_REASONER);
    expect(first.reasoningEffort).toBe("high");

    // The same walk to this process: low thinking, memory only.
    const projectFileBefore = readFileSync(projectConfigFile(), "utf8");
    await setWorkerModel(tui, `fake/${FAKE_REASONER}`, "low", "this process");
    await waitForFlatText(tui, PROCESS_NOTE);
    await waitForFlatText(
      tui,
      `model & thinking — fake/${FAKE_REASONER} (process) · thinking low (process) [saved: fake/${FAKE_REASONER} (project) · thinking high (project)]`,
    );
    await tui.press("Escape");
    await waitForFlatText(
      tui,
      `worker (project) — fake/${FAKE_REASONER} · thinking low (process) [saved: fake/${FAKE_REASONER} (project) · thinking high (project)]`,
    );
    await tui.press("Escape");
    await tui.waitForNoText(MANAGE_ENTRY);
    expect(readFileSync(projectConfigFile(), "utf8")).toBe(projectFileBefore);

    const second = await dispatchWorker(tui, "two");
    expect(second.model).toBe(FAKE_REASONER);
    expect(second.reasoningEffort).toBe("low");

    // /reload starts the extension afresh: the process layer is gone, the project value governs again.
    await tui.submit("/reload");
    await tui.waitForScreen((screen) => /reloaded/i.test(screen), 30_000, "the reload to finish");
    await tui.submit("/subagent-config");
    const picker = await tui.waitForText(MANAGE_ENTRY, 30_000);
    const workerLine = selectOnScreen(picker)?.options.find((line) => line.startsWith("worker (project)"));
    expect(workerLine).toBe(`worker (project) — fake/${FAKE_REASONER} · thinking high`);
    await tui.press("Escape");
    await tui.waitForNoText(MANAGE_ENTRY);

    expect(await tui.quit()).toBe(0);
    await tui.dispose();
    expect(await waitForNoProcesses(suite.env.marker)).toEqual([]);
  });

  it("without $models, the model is picked from pi's model registry (free text still offered)", {
    tags: ["tui"],
  }, async () => {
    suite.newEnv({ workerFrontmatter: "tools: read, bash" });
    const tui = await suite.startTui();
    await tui.submit("/subagent-config worker");
    await pick(tui, startsWith("model & thinking — "), "model & thinking");
    await pick(tui, startsWith("edit model & thinking — "), "edit model & thinking");
    const screen = await tui.waitForText("worker: model (the models pi can use now)", 30_000);
    const options = selectOnScreen(screen)?.options ?? [];
    // The main agent's model is what the worker runs with now; the last option asks for any model.
    expect(options).toContain(`fake/${FAKE_MODEL} (current)`);
    expect(options).toContain(`fake/${FAKE_REASONER}`);
    expect(options[options.length - 1]).toBe(TYPE_MODEL_ENTRY);
    await pick(tui, exactly(`fake/${FAKE_REASONER}`), "the reasoner");
    await tui.waitForText("worker: thinking level");
    await pick(tui, exactly("high"), "high");
    await tui.waitForText("worker: write model & thinking to");
    await pick(tui, exactly("this process"), "this process");
    await waitForFlatText(tui, PROCESS_NOTE);
    await waitForFlatText(tui, `model & thinking — fake/${FAKE_REASONER} (process) · thinking high (process)`);
    await tui.press("Escape");
    await tui.waitForNoText("Configure worker (project)");
    expect(await tui.quit()).toBe(0);
    await tui.dispose();
    expect(await waitForNoProcesses(suite.env.marker)).toEqual([]);
  });

  it("edits the body in $EDITOR with the TUI handed over and back, and Esc at every level writes nothing", {
    tags: ["tui"],
  }, async () => {
    newEnv();
    const script = join(suite.env.root, "edit-body.sh");
    writeFileSync(script, `#!/bin/sh\nprintf 'EDITED-BODY-MARKER: a new system prompt.\\n' > "$1"\n`);
    chmodSync(script, 0o755);
    const tui = await suite.startTui({ extraEnv: { EDITOR: `sh ${script}`, VISUAL: "" } });
    const agentFile = join(suite.env.workDir, ".pi", "agents", "worker.md");
    const userConfig = join(suite.env.agentDir, "subagent-isolation.json");
    const userConfigBefore = readFileSync(userConfig, "utf8");

    // Esc from each level of the model & thinking sub-flow, then out: nothing on disk changes.
    await tui.submit("/subagent-config worker");
    await pick(tui, startsWith("model & thinking — "), "model & thinking");
    await pick(tui, startsWith("edit model & thinking — "), "edit model & thinking");
    await pick(tui, exactly(`fake/${FAKE_REASONER}`), "a model");
    await tui.waitForText("worker: thinking level");
    await tui.press("Escape");
    await tui.waitForText("clear model & thinking (reset to frontmatter)");
    await tui.press("Escape");
    await tui.waitForText("Configure worker (project)");
    // Opened on one agent: Esc at the field select leaves the command.
    await tui.press("Escape");
    await tui.waitForNoText("Configure worker (project)");
    expect(existsSync(projectConfigFile())).toBe(false);
    expect(readFileSync(userConfig, "utf8")).toBe(userConfigBefore);
    expect(readFileSync(agentFile, "utf8")).toBe(WORKER_AGENT);

    // The body goes through the external editor; the TUI comes back with the new annotation.
    await tui.submit("/subagent-config worker");
    await pick(tui, startsWith("body — "), "body");
    await waitForFlatText(tui, `worker: body saved to ${agentFile}. Takes effect on the next dispatch.`);
    await waitForFlatText(tui, "body — EDITED-BODY-MARKER: a new system prompt. (1 line)");
    // The frontmatter is kept byte for byte; only the body after it is replaced.
    expect(readFileSync(agentFile, "utf8")).toBe(
      WORKER_AGENT.replace(`${WORKER_BODY}\n`, "EDITED-BODY-MARKER: a new system prompt.\n"),
    );
    await tui.press("Escape");
    await tui.waitForNoText("Configure worker (project)");

    expect(await tui.quit()).toBe(0);
    await tui.dispose();
    expect(await waitForNoProcesses(suite.env.marker)).toEqual([]);
  });
});

describe("/subagent-config outside the TUI", () => {
  it("print mode: only the usage warning, no dialog, no write, no model call", async () => {
    newEnv();
    const result = await runPi(["-e", EXTENSION_ENTRY, "-p", "/subagent-config worker"], {
      env: suite.env.env,
      cwd: suite.env.workDir,
      timeoutMs: 60_000,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(
      "/subagent-config is interactive and needs pi's TUI; nothing was shown or changed.",
    );
    expect(result.stderr).toContain("Usage: /subagent-config [agent-name]");
    expect(suite.fake.requests).toHaveLength(0);
    expect(existsSync(projectConfigFile())).toBe(false);
    expect(readFileSync(join(suite.env.workDir, ".pi", "agents", "worker.md"), "utf8")).toBe(WORKER_AGENT);
    expect(await waitForNoProcesses(suite.env.marker)).toEqual([]);
  });

  it("RPC mode: the dialogs go to the client, and the chosen values are written", async () => {
    newEnv();
    const rpc = PiRpc.start(["-e", EXTENSION_ENTRY], { env: suite.env.env, cwd: suite.env.workDir });
    try {
      const answered = new Set<string>();
      const nextRequest = async (method: string, what: string): Promise<RpcEvent> => {
        const event = await rpc.waitForEvent(
          (e) => e.type === "extension_ui_request" && e.method === method && !answered.has(String(e.id)),
          60_000,
          what,
        );
        answered.add(String(event.id));
        return event;
      };
      const answerSelect = async (what: string, choose: (option: string) => boolean): Promise<RpcEvent> => {
        const request = await nextRequest("select", what);
        const options = request.options as string[];
        const value = options.find(choose);
        expect(value, `${what}: ${options.join(" | ")}`).toBeDefined();
        rpc.send({ type: "extension_ui_response", id: request.id, value });
        return request;
      };

      rpc.send({ type: "prompt", message: "/subagent-config worker" });
      const fields = await answerSelect("the field select", startsWith("model & thinking — "));
      expect(fields.title).toContain("Configure worker (project)");
      expect(fields.options).toEqual([
        "description — A test worker agent",
        "tools — read, bash",
        "skills — not set",
        `body — ${WORKER_BODY} (1 line)`,
        `model & thinking — inherits fake/${FAKE_MODEL} · thinking off`,
        "budget — not set",
        "sandbox — off (default)",
      ]);
      await answerSelect("the action layer", startsWith("edit model & thinking — "));
      const models = await answerSelect("the model select", exactly(`fake/${FAKE_MODEL}`));
      expect(models.options).toEqual([...MODELS, TYPE_MODEL_ENTRY]);
      const levels = await answerSelect("the thinking select", exactly("medium"));
      expect(levels.options).toEqual(["off", "minimal", "low", "medium", "high", "xhigh", "max", "not set (current)"]);
      await answerSelect("the write target", exactly("project"));
      const notice = await nextRequest("notify", "the notice");
      expect(notice.message).toBe(
        `worker: model fake/${FAKE_MODEL}, thinking medium; written to project (${projectConfigFile()}). Takes effect on the next dispatch.`,
      );
      expect(JSON.parse(readFileSync(projectConfigFile(), "utf8"))).toEqual({
        worker: { model: `fake/${FAKE_MODEL}`, thinking: "medium" },
      });

      // The description goes through the client's editor, prefilled.
      await answerSelect("the field select again", startsWith("description — "));
      const editor = await nextRequest("editor", "the description editor");
      expect(editor.prefill).toBe("A test worker agent");
      rpc.send({ type: "extension_ui_response", id: editor.id, value: "A renamed worker\n" });
      const saved = await nextRequest("notify", "the description notice");
      expect(saved.message).toContain("The main agent's subagent roster shows it from its next turn.");
      expect(readFileSync(join(suite.env.workDir, ".pi", "agents", "worker.md"), "utf8")).toContain(
        "description: A renamed worker\n",
      );

      // Esc (cancelled) at the field select leaves the command.
      const last = await nextRequest("select", "the field select after the description");
      rpc.send({ type: "extension_ui_response", id: last.id, cancelled: true });
      await rpc.waitForEvent(
        (e) => e.type === "response" && e.command === "prompt",
        30_000,
        "the prompt command to finish",
      );
    } finally {
      await rpc.stop();
    }
    expect(await waitForNoProcesses(suite.env.marker)).toEqual([]);
  });
});
