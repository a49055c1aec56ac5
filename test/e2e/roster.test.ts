/**
 * The roster end to end: the real pi 0.73.1 in print mode, with the package installed the way a person installs
 * it (`pi install <repo>`), a builtin, a user and a project agent (the project one shadowing a user one of
 * the same name) and one malformed file. The system prompt the model receives must end with the exact roster
 * block, the malformed file must be named on stderr, and pi must answer normally. Inside a subagent
 * (PI_SUBAGENT_DEPTH=1) there is no roster at all.
 */
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FakeModel, fakeDirective } from "../harness/fake-model.ts";
import { createPiEnv, REPO_ROOT, runPi, type PiEnv } from "../harness/pi-env.ts";
import { killProcessesWithMarker, waitForNoProcesses } from "../harness/processes.ts";

/** The built-in agents, in roster order (sorted by name, between "coder" and "writer"). */
const BUILTINS = ["explore", "general-purpose", "planner", "reviewer"];

/** A builtin's description, read from its file with a plain regex (not with the code under test). */
function builtinDescription(name: string): string {
  const text = readFileSync(join(REPO_ROOT, "agents", `${name}.md`), "utf8");
  const match = /^description: (.+)$/m.exec(text);
  if (!match?.[1]) throw new Error(`no one-line description in agents/${name}.md`);
  return match[1];
}

function agent(name: string, description: string, body: string): string {
  return `---\nname: ${name}\ndescription: ${description}\ntools: read, grep\n---\n\n${body}\n`;
}

describe("roster injection with the installed package (print mode)", () => {
  let fake: FakeModel;
  let env: PiEnv;
  let brokenFile: string;

  beforeAll(async () => {
    fake = await new FakeModel().start();
    env = createPiEnv({ baseUrl: fake.baseUrl });
    env.writeAgentDirFile(
      "agents/coder.md",
      agent("coder", "User-level coder, should be shadowed", "You code (user)."),
    );
    env.writeAgentDirFile("agents/writer.md", agent("writer", "Writes docs and READMEs", "You write."));
    env.writeWorkFile(".pi/agents/coder.md", agent("coder", "Writes and refactors code", "You code (project)."));
    brokenFile = env.writeWorkFile(".pi/agents/broken.md", "You are an agent that forgot its frontmatter.\n");

    const install = await runPi(["install", REPO_ROOT], { env: env.env, cwd: env.workDir, timeoutMs: 90_000 });
    expect(install.code, install.stderr).toBe(0);
    const settings = JSON.parse(readFileSync(join(env.agentDir, "settings.json"), "utf8")) as { packages?: string[] };
    expect(settings.packages?.map((entry) => resolve(env.agentDir, entry))).toEqual([REPO_ROOT]);
  });

  afterAll(async () => {
    killProcessesWithMarker(env.marker);
    await fake.stop();
    env.cleanup();
  });

  it("ends the main system prompt with the exact roster, warns about the malformed file, and answers", {
    tags: ["contract"],
  }, async () => {
    const prompt = `Which subagents exist? ${fakeDirective({ text: "Roster seen, answering normally." })}`;
    const run = await runPi(["-p", "--no-session", prompt], { env: env.env, cwd: env.workDir, timeoutMs: 90_000 });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.trim()).toBe("Roster seen, answering normally.");

    const request = await fake.waitForRequest(
      (req) => req.lastText.startsWith("Which subagents exist?"),
      10_000,
      "the main prompt",
    );
    const lines = [
      `- coder \u2014 Writes and refactors code (project)`,
      ...BUILTINS.map((name) => `- ${name} \u2014 ${builtinDescription(name)} (builtin)`),
      `- writer \u2014 Writes docs and READMEs (user)`,
    ];
    const roster = [
      "## Available Subagents",
      "",
      "Delegate tasks to these specialized subagents via the `subagent` tool:",
      "",
      ...lines,
    ].join("\n");
    expect(request.system.endsWith(`\n\n${roster}`)).toBe(true);
    // pi's own prompt is still in front.
    expect(request.system.length).toBeGreaterThan(roster.length + 200);
    expect(request.system).not.toContain("should be shadowed");

    const warning = `pi-subagent-dispatch: skipped agent file ${brokenFile}: no frontmatter (the file must start with a --- line)`;
    expect(run.stderr.split("\n").filter((line) => line === warning)).toHaveLength(1);
    expect(await waitForNoProcesses(env.marker)).toEqual([]);
  });

  it("adds no roster (and no warning) inside a subagent: PI_SUBAGENT_DEPTH=1", async () => {
    const prompt = `Child turn ${fakeDirective({ text: "Child answer." })}`;
    const run = await runPi(["-p", "--no-session", prompt], {
      env: env.env,
      cwd: env.workDir,
      timeoutMs: 90_000,
      extraEnv: { PI_SUBAGENT_DEPTH: "1" },
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.trim()).toBe("Child answer.");
    const request = await fake.waitForRequest(
      (req) => req.lastText.startsWith("Child turn"),
      10_000,
      "the child prompt",
    );
    expect(request.system).not.toContain("## Available Subagents");
    expect(request.system).not.toContain("\u2014 Writes and refactors code");
    expect(run.stderr).not.toContain("pi-subagent-dispatch: skipped agent file");
    expect(await waitForNoProcesses(env.marker)).toEqual([]);
  });
});

describe("the roster remembered across starts", () => {
  let fake: FakeModel;
  let env: PiEnv;

  beforeAll(async () => {
    fake = await new FakeModel().start();
    env = createPiEnv({ baseUrl: fake.baseUrl });
    env.writeAgentDirFile("agents/writer.md", agent("writer", "Writes docs and READMEs", "You write."));
  });

  afterAll(async () => {
    killProcessesWithMarker(env.marker);
    await fake.stop();
    env.cleanup();
  });

  async function rosterLineOfWriter(tag: string): Promise<string | undefined> {
    const run = await runPi(["-e", REPO_ROOT, "-p", "--no-session", `${tag} ${fakeDirective({ text: "ok" })}`], {
      env: env.env,
      cwd: env.workDir,
      timeoutMs: 90_000,
    });
    expect(run.code, run.stderr).toBe(0);
    const request = await fake.waitForRequest((req) => req.lastText.startsWith(tag), 10_000, tag);
    expect(request.system).toContain("## Available Subagents");
    return request.system.split("\n").find((line) => line.startsWith("- writer "));
  }

  it("serves an unchanged roster from <agent dir>/subagent-roster-cache.json, and builds it afresh once an agent file changes", async () => {
    expect(await rosterLineOfWriter("First start.")).toBe("- writer \u2014 Writes docs and READMEs (user)");
    const cacheFile = join(env.agentDir, "subagent-roster-cache.json");
    const cached = JSON.parse(readFileSync(cacheFile, "utf8")) as { entries: Array<{ block: string }> };
    expect(cached.entries).toHaveLength(1);
    expect(cached.entries[0]!.block).toContain("- writer \u2014 Writes docs and READMEs (user)");

    expect(await rosterLineOfWriter("Second start.")).toBe("- writer \u2014 Writes docs and READMEs (user)");

    env.writeAgentDirFile("agents/writer.md", agent("writer", "Writes changelogs only", "You write."));
    expect(await rosterLineOfWriter("After the edit.")).toBe("- writer \u2014 Writes changelogs only (user)");
    expect(await waitForNoProcesses(env.marker)).toEqual([]);
  });
});
