/**
 * Authority flows down, never up, with the real pi (both lines) against the fake model: the tool ceiling (a
 * read-only session's child gets no bash, edit or write, and the result says what was cut; a call's `verify` is refused
 * without bash; an extension that
 * narrows the session with `setActiveTools` narrows the next child), pi 1.x project trust (`--no-approve`: no
 * project agent listed or runnable and no project config applied; `--approve`: the child sees the project's skill
 * and config), and trust on first use in the TUI (asked once per version of a project agent's file).
 *
 * Tagged `contract` where pi's side is what is proved (its active tools read, `setActiveTools`, trust, the TUI's
 * dialog); how the ceiling narrows an agent's list, leaves a full session alone or bounds a grandchild is our own
 * logic, proved once, on pi 1.x.
 */
import { appendFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isWorkerRequest, useE2eSuite } from "../harness/e2e-suite.ts";
import { CALL_VERIFY_NEEDS_BASH } from "../../src/authority/tool-ceiling.ts";
import { fakeDirective } from "../harness/fake-model.ts";
import {
  childAsked,
  mainToolResults,
  printWithExtension,
  scriptedTask,
  subagentCall,
} from "../harness/child-scripts.ts";
import { EXTENSION_ENTRY, FAKE_REASONER, REPO_ROOT, runPi } from "../harness/pi-env.ts";
import { parsePiLine, PI_LINE_VAR } from "../harness/pi-under-test.ts";
import { waitForNoProcesses } from "../harness/processes.ts";
import { skipTuiTests } from "../harness/tmux.ts";

const suite = useE2eSuite();
const onPi1 = parsePiLine(process.env[PI_LINE_VAR]) === "1";
const LOCKDOWN = join(REPO_ROOT, "test", "e2e", "fixtures", "lockdown-tool.ts");

const printPi = (args: string[], prompt: string) => printWithExtension(suite.env, args, prompt);

const toolResults = () => mainToolResults(suite.fake);

describe("the tool ceiling (print mode)", () => {
  it("gives general-purpose no bash, edit or write in a read-only session, and says so in the result", {
    tags: ["contract"],
  }, async () => {
    suite.newEnv();
    const prompt = `Delegate. ${fakeDirective([subagentCall({ agent: "general-purpose", task: scriptedTask("Look around. GP-READONLY", { text: "GP-DONE" }) })])}`;
    const run = await printPi(["--tools", "read,grep,find,ls,subagent"], prompt);
    expect(run.code, run.stderr).toBe(0);
    const child = await suite.fake.waitForRequest(childAsked("GP-READONLY"), 30_000, "the general-purpose child");
    expect(child.tools).toEqual(expect.arrayContaining(["read", "grep", "find", "ls"]));
    for (const tool of ["bash", "edit", "write"]) expect(child.tools).not.toContain(tool);
    const result = toolResults().find((text) => text.includes("GP-DONE"));
    expect(result).toContain("[subagent tools not granted: bash, edit, write (the main session has read-only tools)]");
    expect(await waitForNoProcesses(suite.env.marker)).toEqual([]);
  });

  it("cuts a listed tool the session lacks from an agent's own list", async () => {
    suite.newEnv({ workerFrontmatter: "tools: read, bash" });
    const prompt = `Delegate. ${fakeDirective([subagentCall({ agent: "worker", task: scriptedTask("List. WORKER-CUT", { text: "WORKER-CUT-DONE" }) })])}`;
    const run = await printPi(["--tools", "read,edit,subagent"], prompt);
    expect(run.code, run.stderr).toBe(0);
    const child = await suite.fake.waitForRequest(
      (req) => isWorkerRequest(req) && req.lastText.includes("WORKER-CUT"),
      30_000,
      "the worker child",
    );
    expect(child.tools).toEqual(["read"]);
    expect(toolResults().find((text) => text.includes("WORKER-CUT-DONE"))).toContain(
      "[subagent tools not granted: bash (not active in the main session)]",
    );
  });

  it("leaves an unrestricted session's child its bash, edit and write", async () => {
    suite.newEnv();
    const prompt = `Delegate. ${fakeDirective([subagentCall({ agent: "general-purpose", task: scriptedTask("Work. GP-FULL", { text: "GP-FULL-DONE" }) })])}`;
    const run = await printPi([], prompt);
    expect(run.code, run.stderr).toBe(0);
    const child = await suite.fake.waitForRequest(childAsked("GP-FULL"), 30_000, "the general-purpose child");
    expect(child.tools).toEqual(expect.arrayContaining(["read", "bash", "edit", "write"]));
    expect(toolResults().find((text) => text.includes("GP-FULL-DONE"))).not.toContain("tools not granted");
  });

  it("refuses a call's verify in a session without bash, starting no child, and runs it in one with bash", async () => {
    suite.newEnv();
    const call = (tag: string) =>
      `Delegate. ${fakeDirective([subagentCall({ agent: "worker", task: scriptedTask(`Work. ${tag}`, { text: `${tag}-DONE` }), verify: "true" })])}`;
    const refused = await printPi(["--tools", "read,edit,subagent"], call("VERIFY-NO-BASH"));
    expect(refused.code, refused.stderr).toBe(0);
    expect(toolResults().some((text) => text.includes(CALL_VERIFY_NEEDS_BASH))).toBe(true);
    expect(suite.fake.requests.filter(childAsked("VERIFY-NO-BASH"))).toEqual([]);
    const allowed = await printPi([], call("VERIFY-BASH"));
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(toolResults().find((text) => text.includes("VERIFY-BASH-DONE"))).toContain(
      "[subagent verify: passed (round 1 of 2)]",
    );
    expect(await waitForNoProcesses(suite.env.marker)).toEqual([]);
  });

  it("bounds a grandchild by its child: a read-only child's general-purpose grandchild gets no bash, edit or write", async () => {
    suite.newEnv({ workerFrontmatter: "tools: read, grep" });
    const grandTask = scriptedTask("Leaf. GRAND-BOUNDED", { text: "GRAND-BOUNDED-DONE" });
    const childTask = scriptedTask("Middle. CHILD-READONLY", [
      subagentCall({ agent: "general-purpose", task: grandTask }),
      { text: "MIDDLE-DONE" },
    ]);
    const prompt = `Delegate. ${fakeDirective([subagentCall({ agent: "worker", task: childTask })])}`;
    const run = await runPi(["-e", EXTENSION_ENTRY, "-p", prompt], {
      env: suite.env.env,
      cwd: suite.env.workDir,
      timeoutMs: 90_000,
      extraEnv: { PI_SUBAGENT_MAX_DEPTH: "2" },
    });
    expect(run.code, run.stderr).toBe(0);
    const child = await suite.fake.waitForRequest(
      (req) => isWorkerRequest(req) && req.lastText.includes("CHILD-READONLY"),
      30_000,
      "the child",
    );
    expect(child.tools.sort()).toEqual(["grep", "read", "subagent"]);
    const grandchild = await suite.fake.waitForRequest(
      (req) => req.lastText.startsWith("Task: Leaf. GRAND-BOUNDED"),
      30_000,
      "the grandchild",
    );
    expect(grandchild.tools.sort()).toEqual(["grep", "read"]);
    // The child's model was told what its own dispatch could not grant.
    const childSaw = suite.fake.requests.find(
      (req) => isWorkerRequest(req) && req.lastRole === "tool" && req.lastText.includes("GRAND-BOUNDED-DONE"),
    );
    expect(childSaw?.lastText).toContain(
      "[subagent tools not granted: bash, edit, write (the main session has read-only tools)]",
    );
    expect(await waitForNoProcesses(suite.env.marker)).toEqual([]);
  });

  it("follows the session's tools at the moment of dispatch: after an extension's setActiveTools, the next child is narrowed too", {
    tags: ["contract"],
  }, async () => {
    suite.newEnv();
    const before = subagentCall({
      agent: "general-purpose",
      task: scriptedTask("First. GP-BEFORE", { text: "BEFORE-DONE" }),
    });
    const after = subagentCall({
      agent: "general-purpose",
      task: scriptedTask("Second. GP-AFTER", { text: "AFTER-DONE" }),
    });
    const prompt = `Delegate twice. ${fakeDirective([before, { toolCalls: [{ name: "lockdown", arguments: {} }] }, after, { text: "all done" }])}`;
    const run = await printPi(["-e", LOCKDOWN], prompt);
    expect(run.code, run.stderr).toBe(0);
    const first = await suite.fake.waitForRequest(childAsked("GP-BEFORE"), 30_000, "the first child");
    const second = await suite.fake.waitForRequest(childAsked("GP-AFTER"), 30_000, "the second child");
    expect(first.tools).toContain("bash");
    expect(second.tools).not.toContain("bash");
    expect(second.tools).not.toContain("edit");
    expect(second.tools).not.toContain("lockdown");
    expect(toolResults().find((text) => text.includes("AFTER-DONE"))).toContain(
      "tools not granted: bash, edit, write, lockdown (the main session has read-only tools)",
    );
  });
});

const SKILL = "---\nname: proj-skill\ndescription: PROJECT-SKILL-MARKER the project's own skill\n---\nUse it.\n";

// Each pi gets the tests of its own trust model (pi 0.73.1 has none), so neither pass counts skipped tests.
if (!onPi1) {
  describe("pi 0.73.1: no trust system (print mode)", { tags: ["contract"] }, () => {
    it("runs a project agent the person approved before with the project's config (pi has no decision to follow)", async () => {
      suite.newEnv();
      suite.env.writeWorkFile(
        ".pi/subagent-isolation.json",
        JSON.stringify({ worker: { model: `fake/${FAKE_REASONER}` } }),
      );
      const prompt = `Delegate. ${fakeDirective([subagentCall({ agent: "worker", task: scriptedTask("Work. OLD-PI-WORKER", { text: "OLD-PI-DONE" }) })])}`;
      const run = await printPi([], prompt);
      expect(run.code, run.stderr).toBe(0);
      const child = await suite.fake.waitForRequest(
        (req) => isWorkerRequest(req) && req.lastText.includes("OLD-PI-WORKER"),
        30_000,
        "the worker child",
      );
      expect(child.model).toBe(FAKE_REASONER);
      expect(toolResults().find((text) => text.includes("OLD-PI-DONE"))).toBeDefined();
    });

    it('refuses it where nobody can be asked under the user-level "$projectAgents": "ask-or-refuse"', async () => {
      suite.newEnv({ workerUnapproved: true });
      suite.env.writeAgentDirFile("subagent-isolation.json", JSON.stringify({ $projectAgents: "ask-or-refuse" }));
      const prompt = `Delegate. ${fakeDirective([subagentCall({ agent: "worker", task: "Should never run. REFUSED-WORKER" })])}`;
      const run = await printPi([], prompt);
      expect(run.code, run.stderr).toBe(0);
      expect(toolResults().find((text) => text.includes('The project agent "worker"'))).toContain(
        "runs only after the person approves it in the interactive TUI",
      );
      expect(suite.fake.requests.some((req) => isWorkerRequest(req))).toBe(false);
    });
  });
}

if (onPi1)
  describe("pi 1.x project trust (print mode)", { tags: ["contract"] }, () => {
    it("--no-approve: no project agent in the roster or runnable, and no project config applied", async () => {
      suite.newEnv();
      suite.env.writeWorkFile(".pi/skills/proj-skill/SKILL.md", SKILL);
      suite.env.writeWorkFile(
        ".pi/subagent-isolation.json",
        JSON.stringify({ explore: { model: `fake/${FAKE_REASONER}` } }),
      );
      const prompt = `Delegate both. ${fakeDirective([
        {
          toolCalls: [
            { name: "subagent", arguments: { agent: "worker", task: "Should never run. NOAPPROVE-WORKER" } },
            {
              name: "subagent",
              arguments: { agent: "explore", task: scriptedTask("Look. NOAPPROVE-EXPLORE", { text: "EXPLORE-DONE" }) },
            },
          ],
        },
      ])}`;
      const run = await printPi(["--no-approve"], prompt);
      expect(run.code, run.stderr).toBe(0);
      const main = suite.fake.requests.find((req) => req.lastText.startsWith("Delegate both."));
      expect(main?.system).toContain("## Available Subagents");
      expect(main?.system).not.toContain("- worker ");
      const refusal = toolResults().find((text) => text.startsWith('Unknown agent "worker"'));
      expect(refusal).toContain("not available because this project is not trusted in this session");
      expect(refusal).toContain("--approve");
      expect(
        suite.fake.requests.some(
          (req) => req.lastText.includes("NOAPPROVE-WORKER") && req.lastText.startsWith("Task: "),
        ),
      ).toBe(false);
      const explore = await suite.fake.waitForRequest(childAsked("NOAPPROVE-EXPLORE"), 30_000, "the explore child");
      expect(explore.model).toBe("fake-model");
      // The child was told the same decision: the project's skill is not in its prompt either.
      expect(explore.system).not.toContain("PROJECT-SKILL-MARKER");
      // One notice for the process's session, naming both files, though the roster and the tool each met them.
      const notices = run.stderr
        .split("\n")
        .filter((line) => line.includes("this project is not trusted, so its subagent files are not used"));
      expect(notices, run.stderr).toHaveLength(1);
      expect(notices[0]).toContain(".pi/agents/");
      expect(notices[0]).toContain(".pi/subagent-isolation.json");
      expect(await waitForNoProcesses(suite.env.marker)).toEqual([]);
    });

    it("--approve: the project's agent runs with the project's config, and the child sees the project's skill", async () => {
      suite.newEnv();
      suite.env.writeWorkFile(".pi/skills/proj-skill/SKILL.md", SKILL);
      suite.env.writeWorkFile(
        ".pi/subagent-isolation.json",
        JSON.stringify({ worker: { model: `fake/${FAKE_REASONER}` } }),
      );
      const prompt = `Delegate. ${fakeDirective([subagentCall({ agent: "worker", task: scriptedTask("Work. APPROVE-WORKER", { text: "APPROVED-DONE" }) })])}`;
      const run = await printPi(["--approve"], prompt);
      expect(run.code, run.stderr).toBe(0);
      const child = await suite.fake.waitForRequest(
        (req) => isWorkerRequest(req) && req.lastText.includes("APPROVE-WORKER"),
        30_000,
        "the worker child",
      );
      expect(child.model).toBe(FAKE_REASONER);
      expect(child.system).toContain("PROJECT-SKILL-MARKER");
      expect(toolResults().find((text) => text.includes("APPROVED-DONE"))).toBeDefined();
    });

    it("without a flag, a project with guarded files is untrusted in print mode (pi cannot ask): its agents do not run", async () => {
      suite.newEnv();
      suite.env.writeWorkFile(".pi/skills/proj-skill/SKILL.md", SKILL);
      const prompt = `Delegate. ${fakeDirective([subagentCall({ agent: "worker", task: "Should never run. UNASKED-WORKER" })])}`;
      const run = await printPi([], prompt);
      expect(run.code, run.stderr).toBe(0);
      expect(toolResults().find((text) => text.startsWith('Unknown agent "worker"'))).toContain("not trusted");
    });
  });

describe.skipIf(skipTuiTests())("trust on first use of a project agent (TUI)", () => {
  it("asks once with the agent's name and file, remembers Yes, asks again for a changed file, and No refuses", {
    tags: ["contract", "tui"],
  }, async () => {
    const env = suite.newEnv({ workerUnapproved: true });
    const workerFile = join(env.workDir, ".pi", "agents", "worker.md");
    // Results the child delivers start a turn of the parent: answer those plainly.
    suite.fake.on({
      when: (r) => !isWorkerRequest(r) && r.lastRole === "user" && r.lastText.startsWith("## [subagent-result]"),
      reply: { text: "noted" },
    });
    const t = await suite.startTui();
    const dispatch = (tag: string) =>
      t.submit(
        `Go ${tag}. ${fakeDirective([subagentCall({ agent: "worker", task: scriptedTask(`Job ${tag}.`, { text: `${tag}-DONE` }) }), { text: "dispatched" }])}`,
      );

    await dispatch("TOFU1");
    await t.waitForScreen(
      (question) =>
        question.includes("Run a project agent?") &&
        question.includes('the subagent "worker"') &&
        question.replace(/\s+/g, "").includes(workerFile.replace(/\s+/g, "")),
      60_000,
      "the question naming the agent and its file",
    );
    await t.press("Enter"); // Yes, the first option
    await suite.fake.waitForRequest(
      (r) => isWorkerRequest(r) && r.lastText.includes("TOFU1"),
      60_000,
      "the approved child",
    );
    await suite.fake.waitForRequest(
      (r) => r.lastText.startsWith("## [subagent-result] worker succeeded") && r.lastText.includes("TOFU1-DONE"),
      60_000,
      "its result",
    );

    // Unchanged file: no question, the child just runs.
    await t.waitForNoText("Run a project agent?", 30_000);
    await dispatch("TOFU2");
    await suite.fake.waitForRequest(
      (r) => isWorkerRequest(r) && r.lastText.includes("TOFU2"),
      60_000,
      "the second child, unasked",
    );
    expect(await t.screen()).not.toContain("Run a project agent?");
    await suite.fake.waitForRequest(
      (r) => r.lastText.startsWith("## [subagent-result] worker succeeded") && r.lastText.includes("TOFU2-DONE"),
      60_000,
      "its result",
    );
    expect(readFileSync(join(env.agentDir, "subagent-trusted-agents.json"), "utf8")).toContain(workerFile);

    // A changed file asks again; No refuses with a message the model can act on.
    appendFileSync(workerFile, "One more instruction.\n");
    await dispatch("TOFU3");
    await t.waitForText("Run a project agent?", 60_000);
    await t.press("Down");
    await t.press("Enter");
    const refused = await suite.fake.waitForRequest(
      (r) => r.lastRole === "tool" && r.lastText.includes('The person declined to run the project agent "worker"'),
      60_000,
      "the refusal",
    );
    expect(refused.lastText).toContain("Do not retry it");
    expect(suite.fake.requests.some((r) => isWorkerRequest(r) && r.lastText.includes("TOFU3"))).toBe(false);
  });
});
