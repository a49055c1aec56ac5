/**
 * /subagent-agents with the real pi (both pis) and the fake model: a built-in, a user agent shadowing a built-in,
 * a project agent with a user-file model and a malformed project file. `pi -p "/subagent-agents"` prints the
 * report on stdout (nothing on stderr, no model call), JSON mode one `subagent_agents` line, and the TUI shows
 * the same lines in a full-screen view that scrolls to the files left out and closes with Escape. A person's
 * `"$projectAgents": "never"` (and, on pi 1.x, `--no-approve`) leaves the project's files out, named with the reason.
 *
 * @module-tag contract
 */
import { describe, expect, it } from "vitest";
import { useE2eSuite } from "../harness/e2e-suite.ts";
import { EXTENSION_ENTRY, parseJsonLines, runPi } from "../harness/pi-env.ts";
import { waitForNoProcesses } from "../harness/processes.ts";
import { skipTuiTests } from "../harness/tmux.ts";
import { PI, REPO_ROOT } from "../harness/pi-env.ts";

const suite = useE2eSuite();

const USER_REVIEWER =
  "---\nname: reviewer\ndescription: The person's own reviewer\ntools: read, bash\nthinking: high\n---\nReview.\n";

/** The set-up every test here shares; returns the two files it wrote. */
function withAgents(): { reviewer: string; broken: string; worker: string } {
  const env = suite.newEnv();
  const reviewer = env.writeAgentDirFile("agents/reviewer.md", USER_REVIEWER);
  const broken = env.writeWorkFile(".pi/agents/broken.md", "An agent that forgot its frontmatter.\n");
  env.writeAgentDirFile(
    "subagent-isolation.json",
    `${JSON.stringify({ worker: { model: "fake/fake-reasoner", thinking: "low" } })}\n`,
  );
  return { reviewer, broken, worker: `${env.workDir}/.pi/agents/worker.md` };
}

function pi(args: string[]) {
  return runPi(["-e", EXTENSION_ENTRY, ...args], { env: suite.env.env, cwd: suite.env.workDir, timeoutMs: 60_000 });
}

/** A block of the report: the agent's header line and the lines indented under it. */
function blockOf(lines: string[], header: string): string[] {
  const start = lines.indexOf(header);
  expect(start, `no "${header}" in:\n${lines.join("\n")}`).toBeGreaterThanOrEqual(0);
  const end = lines.indexOf("", start);
  return lines.slice(start, end === -1 ? undefined : end);
}

describe("/subagent-agents outside the TUI", () => {
  it("prints every dispatchable agent with its tier, sources, tools, sandbox and isolation, the shadowed built-in and the bad file", async () => {
    const files = withAgents();
    const run = await pi(["-p", "/subagent-agents"]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toBe("");
    const lines = run.stdout.split("\n");
    expect(lines[0]).toBe("Subagents the main agent can dispatch: 5");
    expect(blockOf(lines, "explore · built-in")).toEqual([
      "explore · built-in",
      expect.stringMatching(/^ {2}Read-only and fast\./),
      "  model: fake/fake-model (inherited from the main agent) · thinking: pi's default",
      "  tools: read, grep, find, ls",
      "  sandbox: off (default) · isolation: none · context: fresh",
      `  file: ${REPO_ROOT}/agents/explore.md`,
    ]);
    expect(blockOf(lines, "reviewer · user, shadows built-in")).toEqual([
      "reviewer · user, shadows built-in",
      "  The person's own reviewer",
      "  model: fake/fake-model (inherited from the main agent) · thinking: high (frontmatter)",
      "  tools: read, bash",
      "  sandbox: off (default) · isolation: none · context: fresh",
      `  file: ${files.reviewer}`,
    ]);
    expect(blockOf(lines, "worker · project")).toEqual([
      "worker · project",
      "  A test worker agent",
      "  model: fake/fake-reasoner (user subagent-isolation.json) · thinking: low (user subagent-isolation.json)",
      "  tools: read, bash, edit, write (pi's defaults: the agent lists none)",
      "  sandbox: off (default) · isolation: none · context: fresh",
      "  trust: approved by you on first use",
      `  file: ${files.worker}`,
    ]);
    expect(lines).toContain(
      `- reviewer · built-in · ${REPO_ROOT}/agents/reviewer.md · shadowed by user ${files.reviewer}`,
    );
    expect(lines).toContain(`- ${files.broken} · project: no frontmatter (the file must start with a --- line)`);
    // A command: the model was never called.
    expect(suite.fake.requests).toHaveLength(0);

    const json = await pi(["--mode", "json", "-p", "/subagent-agents"]);
    expect(json.code, json.stderr).toBe(0);
    const line = parseJsonLines(json.stdout).find((event) => event.type === "subagent_agents") as {
      agents: Array<{ name: string; tier: string }>;
      shadowed: unknown[];
      leftOut: unknown[];
    };
    expect(line.agents.map((agent) => `${agent.name}:${agent.tier}`)).toEqual([
      "explore:builtin",
      "general-purpose:builtin",
      "planner:builtin",
      "reviewer:user",
      "worker:project",
    ]);
    expect(line.shadowed).toEqual([
      {
        name: "reviewer",
        tier: "builtin",
        filePath: `${REPO_ROOT}/agents/reviewer.md`,
        shadowedBy: { tier: "user", filePath: files.reviewer },
      },
    ]);
    expect(line.leftOut).toEqual([
      { filePath: files.broken, tier: "project", reason: "no frontmatter (the file must start with a --- line)" },
    ]);
    expect(await waitForNoProcesses(suite.env.marker)).toEqual([]);
  });

  it('names the project\'s files left out by the person\'s "$projectAgents": "never", and lists the rest', async () => {
    const files = withAgents();
    suite.env.writeAgentDirFile("subagent-isolation.json", `${JSON.stringify({ $projectAgents: "never" })}\n`);
    const run = await pi(["-p", "/subagent-agents"]);
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout.split("\n");
    expect(lines[0]).toBe("Subagents the main agent can dispatch: 4");
    expect(lines).not.toContain("worker · project");
    const reason = 'project: project agents are turned off ("$projectAgents": "never" in your subagent-isolation.json)';
    expect(lines).toContain(`- ${files.broken} · ${reason}`);
    expect(lines).toContain(`- ${files.worker} · ${reason}`);
  });
});

// pi 0.73.1 has no trust system: only the pi 1 pass has this test, so neither pass counts a skipped one.
if (PI.line === "1")
  describe("/subagent-agents in a project pi 1.x does not trust", () => {
    it("--no-approve: the project's files are named as left out, with how to trust the project", async () => {
      const files = withAgents();
      const run = await pi(["--no-approve", "-p", "/subagent-agents"]);
      expect(run.code, run.stderr).toBe(0);
      const lines = run.stdout.split("\n");
      expect(lines[0]).toBe("Subagents the main agent can dispatch: 4");
      const reason =
        "project: this project is not trusted in this session; to use them, trust the project: start pi with --approve, or run /trust";
      expect(lines).toContain(`- ${files.broken} · ${reason}`);
      expect(lines).toContain(`- ${files.worker} · ${reason}`);
    });
  });

describe.skipIf(skipTuiTests())("/subagent-agents in the TUI", () => {
  it("opens a full-screen view of the same report, scrolls to the files left out, and closes with Escape", {
    tags: ["tui"],
  }, async () => {
    const files = withAgents();
    const t = await suite.startTui();
    await t.submit("/subagent-agents");
    await t.waitForAll(
      [
        "Subagents the main agent can dispatch: 5",
        "explore · built-in",
        "reviewer · user, shadows built-in",
        "model: fake/fake-model (inherited from the main agent) · thinking: high (frontmatter)",
      ],
      30_000,
    );
    // The end of the report: the view scrolls there with G.
    await t.press("G");
    await t.waitForScreen(
      (end) =>
        end.includes("Left out:") &&
        end.includes("worker · project") &&
        end.replace(/\s+/g, " ").includes(`${files.broken} · project: no frontmatter`),
      10_000,
      "the report's end: the files left out",
    );
    await t.press("Escape");
    await t.waitForNoText("Subagents the main agent can dispatch", 10_000);
    expect(suite.fake.requests).toHaveLength(0);
    expect(await t.quit()).toBe(0);
    await t.dispose();
    expect(await waitForNoProcesses(suite.env.marker)).toEqual([]);
  });
});
