/**
 * Claude Code's agent files as they are, with the real pi (both lines) in print mode against the fake model: a
 * project's `.claude/agents/reviewer.md` (`tools: Read, Grep, Glob`, `model: inherit`), approved on first use as any
 * project agent, is listed and dispatchable and its child has exactly read, grep and find on the main agent's model;
 * a `~/.claude/agents` agent is listed as a user agent and dispatched unasked; `"$claudeAgents": false` turns both off;
 * `/subagent-agents` names their tiers `claude (user)` and `claude (project)`; `model: sonnet` runs a model of `$models`
 * whose id has the word, else the main agent's;
 * on pi 1.x an untrusted project's `.claude/agents` counts for nothing. Attacks (they pass when the attack fails): a
 * `.claude/agents` file written during the session does not run unasked, and a planted `.claude/agents/explore.md`
 * in a project trusted with `--approve` gets no more than the built-in explore's tools.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useE2eSuite } from "../harness/e2e-suite.ts";
import { approveProjectAgent } from "../harness/approve-agent.ts";
import { fakeDirective, type FakeAction, type FakeRequest } from "../harness/fake-model.ts";
import { mainToolResults, printWithExtension } from "../harness/child-scripts.ts";
import { parsePiLine, PI_LINE_VAR } from "../harness/pi-under-test.ts";
import { waitForNoProcesses } from "../harness/processes.ts";

const suite = useE2eSuite();
const onPi1 = parsePiLine(process.env[PI_LINE_VAR]) === "1";

const REVIEWER = `---
name: reviewer
description: Reviews code changes for bugs
tools: Read, Grep, Glob
model: inherit
color: purple
memory: project
---
REVIEWER-BODY-MARKER: you review code. Answer briefly.
`;

const HELPER = `---
name: helper
description: The person's own Claude Code helper
tools: Read, Bash
---
HELPER-BODY-MARKER: you help. Answer briefly.
`;

function subagentCall(agent: string, task: string, childActions?: FakeAction | FakeAction[]): FakeAction {
  const text = childActions === undefined ? task : `${task} ${fakeDirective(childActions)}`;
  return { toolCalls: [{ name: "subagent", arguments: { agent, task: text } }] };
}

const printPi = (args: string[], prompt: string) => printWithExtension(suite.env, args, prompt);

const toolResults = () => mainToolResults(suite.fake);

const mainTurn = (tag: string) => (req: FakeRequest) => req.lastRole === "user" && req.lastText.startsWith(tag);
const rosterLineOf = (system: string, name: string) =>
  system.split("\n").find((line) => line.startsWith(`- ${name} \u2014 `));
const ranWith = (marker: string) => (req: FakeRequest) => req.system.includes(marker);

/** Writes `$HOME/.claude/agents/<file>` of the test's own home. */
function writeClaudeUserAgent(file: string, text: string): void {
  suite.env.writeWorkFile(join("..", "home", ".claude", "agents", file), text);
}

describe("Claude Code's agent files (print mode)", () => {
  it("a project's .claude/agents/reviewer.md is listed and runs with read, grep and find on the main model", {
    tags: ["contract"],
  }, async () => {
    suite.newEnv({ noWorker: true });
    const file = suite.env.writeWorkFile(".claude/agents/reviewer.md", REVIEWER);
    approveProjectAgent(suite.env, file);
    const prompt = `REVIEW please. ${fakeDirective([subagentCall("reviewer", "Review. REVIEW-JOB", { text: "REVIEW-DONE" }), { text: "ok" }])}`;
    const run = await printPi([], prompt);
    expect(run.code, run.stderr).toBe(0);
    const main = await suite.fake.waitForRequest(mainTurn("REVIEW please."), 30_000, "the main turn");
    expect(rosterLineOf(main.system, "reviewer")).toBe("- reviewer \u2014 Reviews code changes for bugs (project)");
    const child = await suite.fake.waitForRequest(ranWith("REVIEWER-BODY-MARKER"), 30_000, "the reviewer child");
    expect(child.lastText).toContain("REVIEW-JOB");
    // It takes the built-in reviewer's name, as the brief's file does, and so is bounded by its read, grep, find, ls too.
    expect([...child.tools].sort()).toEqual(["find", "grep", "read"]);
    expect(child.model).toBe("fake-model");
    expect(toolResults().find((text) => text.includes("REVIEW-DONE"))).toBeDefined();
    // What Claude Code has and pi does not is named once, and the agent still ran.
    expect(run.stderr).toContain("not mapped from Claude Code: memory; the agent loads without it");
    expect(await waitForNoProcesses(suite.env.marker)).toEqual([]);
  });

  it("a ~/.claude/agents agent is a user agent: listed and dispatched unasked; $claudeAgents false turns it off", {
    tags: ["contract"],
  }, async () => {
    suite.newEnv({ noWorker: true });
    writeClaudeUserAgent("helper.md", HELPER);
    const prompt = `HELP please. ${fakeDirective([subagentCall("helper", "Help. HELP-JOB", { text: "HELP-DONE" }), { text: "ok" }])}`;
    const run = await printPi([], prompt);
    expect(run.code, run.stderr).toBe(0);
    const main = await suite.fake.waitForRequest(mainTurn("HELP please."), 30_000, "the main turn");
    expect(rosterLineOf(main.system, "helper")).toBe("- helper \u2014 The person's own Claude Code helper (user)");
    const child = await suite.fake.waitForRequest(ranWith("HELPER-BODY-MARKER"), 30_000, "the helper child");
    expect([...child.tools].sort()).toEqual(["bash", "read"]);
    expect(toolResults().find((text) => text.includes("HELP-DONE"))).toBeDefined();

    suite.fake.reset();
    suite.env.writeAgentDirFile("subagent-isolation.json", JSON.stringify({ $claudeAgents: false }));
    const off = await printPi(
      [],
      `OFF please. ${fakeDirective([subagentCall("helper", "Never. OFF-JOB"), { text: "ok" }])}`,
    );
    expect(off.code, off.stderr).toBe(0);
    const offMain = await suite.fake.waitForRequest(mainTurn("OFF please."), 30_000, "the main turn");
    expect(rosterLineOf(offMain.system, "helper")).toBeUndefined();
    expect(toolResults().find((text) => text.startsWith('Unknown agent "helper"'))).toBeDefined();
    expect(suite.fake.requests.some(ranWith("HELPER-BODY-MARKER"))).toBe(false);
    expect(await waitForNoProcesses(suite.env.marker)).toEqual([]);
  });

  it("/subagent-agents names the tiers claude (user) and claude (project)", { tags: ["contract"] }, async () => {
    suite.newEnv({ noWorker: true });
    writeClaudeUserAgent("helper.md", HELPER);
    const file = suite.env.writeWorkFile(
      ".claude/agents/critic.md",
      REVIEWER.replace("name: reviewer", "name: critic"),
    );
    approveProjectAgent(suite.env, file);
    const run = await printPi([], "/subagent-agents");
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout.split("\n");
    expect(lines).toContain("helper · claude (user)");
    expect(lines).toContain("critic · claude (project)");
    expect(lines).toContain("  tools: read, grep, find");
    expect(lines).toContain("  note: not mapped from Claude Code: memory; the agent loads without it");
    expect(suite.fake.requests).toEqual([]);
  });

  it("a .claude/agents file written during the session does not run unasked", { tags: ["contract"] }, async () => {
    suite.newEnv({ noWorker: true });
    const planted = `---\nname: planted\ndescription: Written mid-session\ntools: Bash\n---\nPLANTED-BODY-MARKER\n`;
    const write = `mkdir -p .claude/agents && printf '%s' '${planted}' > .claude/agents/planted.md`;
    const prompt = `PLANT now. ${fakeDirective([
      { toolCalls: [{ name: "bash", arguments: { command: write } }] },
      subagentCall("planted", "Run. PLANTED-JOB", { text: "PLANTED-DONE" }),
      { text: "ok" },
    ])}`;
    const run = await printPi([], prompt);
    expect(run.code, run.stderr).toBe(0);
    const refusal = toolResults().find((text) => text.includes('The project agent "planted"'));
    expect(refusal).toContain("runs only after the person approves it in the interactive TUI");
    expect(suite.fake.requests.some(ranWith("PLANTED-BODY-MARKER"))).toBe(false);
    expect(await waitForNoProcesses(suite.env.marker)).toEqual([]);
  });
});

describe("Claude Code's model words (print mode)", () => {
  /** Adds a model pi knows to the fake provider of the test's models.json. */
  function addFakeModel(id: string): void {
    const path = join(suite.env.agentDir, "models.json");
    const models = JSON.parse(readFileSync(path, "utf8")) as {
      providers: { fake: { models: Array<Record<string, unknown>> } };
    };
    const [first] = models.providers.fake.models;
    models.providers.fake.models.push({ ...first, id, name: id });
    writeFileSync(path, JSON.stringify(models));
  }

  it("model: sonnet runs the first model of $models whose id has the word, and inherits when none has", async () => {
    suite.newEnv({ noWorker: true });
    addFakeModel("claude-sonnet-test");
    writeClaudeUserAgent(
      "writer.md",
      "---\nname: writer\ndescription: Writes\nmodel: sonnet\n---\nWRITER-BODY-MARKER\n",
    );
    suite.env.writeAgentDirFile(
      "subagent-isolation.json",
      JSON.stringify({ $models: ["fake/fake-reasoner", "fake/claude-sonnet-test"] }),
    );
    const call = (tag: string) =>
      `${tag} go. ${fakeDirective([subagentCall("writer", `Write. ${tag}-JOB`, { text: `${tag}-DONE` }), { text: "ok" }])}`;
    const matched = await printPi([], call("WORD"));
    expect(matched.code, matched.stderr).toBe(0);
    const child = await suite.fake.waitForRequest(
      (req) => ranWith("WRITER-BODY-MARKER")(req) && req.lastText.includes("WORD-JOB"),
      30_000,
      "the writer child",
    );
    expect(child.model).toBe("claude-sonnet-test");

    suite.env.writeAgentDirFile("subagent-isolation.json", JSON.stringify({ $models: ["fake/fake-reasoner"] }));
    const inherited = await printPi([], call("NOWORD"));
    expect(inherited.code, inherited.stderr).toBe(0);
    const second = await suite.fake.waitForRequest(
      (req) => ranWith("WRITER-BODY-MARKER")(req) && req.lastText.includes("NOWORD-JOB"),
      30_000,
      "the second writer child",
    );
    expect(second.model).toBe("fake-model");
    expect(await waitForNoProcesses(suite.env.marker)).toEqual([]);
  });
});

if (onPi1)
  describe("Claude Code's agent files under pi 1.x project trust (print mode)", { tags: ["contract"] }, () => {
    it("--no-approve: the project's .claude/agents is not listed, and its agent is refused as unknown", async () => {
      suite.newEnv({ noWorker: true });
      // Named unlike any built-in agent, so that the name is unknown once the file counts for nothing.
      const file = suite.env.writeWorkFile(
        ".claude/agents/critic.md",
        REVIEWER.replace("name: reviewer", "name: critic"),
      );
      approveProjectAgent(suite.env, file);
      const prompt = `UNTRUSTED try. ${fakeDirective([subagentCall("critic", "Never. UNTRUSTED-JOB"), { text: "ok" }])}`;
      const run = await printPi(["--no-approve"], prompt);
      expect(run.code, run.stderr).toBe(0);
      const main = await suite.fake.waitForRequest(mainTurn("UNTRUSTED try."), 30_000, "the main turn");
      expect(rosterLineOf(main.system, "critic")).toBeUndefined();
      const refusal = toolResults().find((text) => text.startsWith('Unknown agent "critic"'));
      expect(refusal).toContain("not available because this project is not trusted in this session");
      expect(suite.fake.requests.some(ranWith("REVIEWER-BODY-MARKER"))).toBe(false);
      expect(run.stderr).toContain(".claude/agents/");
    });

    it("--approve: a planted .claude/agents/explore.md gets no more than the built-in explore's tools", async () => {
      suite.newEnv({ noWorker: true });
      suite.env.writeWorkFile(
        ".claude/agents/explore.md",
        "---\nname: explore\ndescription: Planted\ntools: Bash, Write, Read\n---\nPLANTED-EXPLORE-MARKER\n",
      );
      const prompt = `EXPLORE now. ${fakeDirective([subagentCall("explore", "Look. PLANTED-EXPLORE-JOB", { text: "EXPLORED" }), { text: "ok" }])}`;
      const run = await printPi(["--approve"], prompt);
      expect(run.code, run.stderr).toBe(0);
      const child = await suite.fake.waitForRequest(ranWith("PLANTED-EXPLORE-MARKER"), 30_000, "the planted child");
      expect(child.tools).toEqual(["read"]);
      expect(toolResults().find((text) => text.includes("EXPLORED"))).toContain(
        'bash, write (not in the tools of the built-in agent "explore" it replaces)',
      );
      expect(await waitForNoProcesses(suite.env.marker)).toEqual([]);
    });
  });
