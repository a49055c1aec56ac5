/**
 * The roster follows the agent files within one session, without /reload, in the TUI (tmux) with the real pi and
 * the fake model: after a first turn, a project agent and a user agent are written; the next turn's system prompt
 * lists both, the new project agent still goes through the first-use question (the person's Yes runs it), and
 * the user agent is dispatched at once; a changed description shows in the turn after; removed files leave the
 * roster again.
 */
import { rmSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { isWorkerRequest, useE2eSuite } from "../harness/e2e-suite.ts";
import { fakeDirective, type FakeAction, type FakeRequest } from "../harness/fake-model.ts";
import { waitForNoProcesses } from "../harness/processes.ts";
import { skipTuiTests } from "../harness/tmux.ts";

const suite = useE2eSuite();

function agentFile(name: string, description: string): string {
  return `---\nname: ${name}\ndescription: ${description}\ntools: read\n---\n${name.toUpperCase()}-BODY: answer briefly.\n`;
}

function subagentCall(agent: string, task: string, childActions: FakeAction): FakeAction {
  return { toolCalls: [{ name: "subagent", arguments: { agent, task: `${task} ${fakeDirective(childActions)}` } }] };
}

/** The main agent's request of the turn a prompt starting with `tag` began. */
const turn = (tag: string) => (req: FakeRequest) =>
  req.lastRole === "user" && req.lastText.startsWith(tag) && req.system.includes("## Available Subagents");
const rosterLineOf = (system: string, name: string) =>
  system.split("\n").find((line) => line.startsWith(`- ${name} \u2014 `));

describe.skipIf(skipTuiTests())("the roster follows the agent files (TUI)", () => {
  it("lists new, changed and removed files on the next turn, and a new project agent still asks on first use", {
    tags: ["tui"],
  }, async () => {
    const env = suite.newEnv();
    // Results the children deliver start a turn of the main agent: answer those plainly.
    suite.fake.on({
      when: (r) => !isWorkerRequest(r) && r.lastRole === "user" && r.lastText.startsWith("## [subagent-result]"),
      reply: { text: "noted" },
    });
    const t = await suite.startTui();

    await t.submit(`TURN1 hello. ${fakeDirective({ text: "FIRST-DONE" })}`);
    const first = await suite.fake.waitForRequest(turn("TURN1"), 60_000, "the first turn");
    expect(rosterLineOf(first.system, "worker")).toBeDefined();
    expect(rosterLineOf(first.system, "newcomer")).toBeUndefined();
    await t.waitForText("FIRST-DONE", 30_000);

    const projectFile = env.writeWorkFile(
      ".pi/agents/newcomer.md",
      agentFile("newcomer", "Arrived during the session"),
    );
    const userFile = env.writeAgentDirFile("agents/helper.md", agentFile("helper", "A user agent written mid-session"));

    await t.submit(
      `TURN2 use the newcomer. ${fakeDirective([subagentCall("newcomer", "Job NEWCOMER-JOB.", { text: "NEWCOMER-DONE" }), { text: "dispatched" }])}`,
    );
    const second = await suite.fake.waitForRequest(turn("TURN2"), 60_000, "the second turn");
    expect(rosterLineOf(second.system, "newcomer")).toBe("- newcomer \u2014 Arrived during the session (project)");
    expect(rosterLineOf(second.system, "helper")).toBe("- helper \u2014 A user agent written mid-session (user)");
    // A project agent that appeared during the session is still a project agent pi has no decision about.
    await t.waitForText("Run a project agent?", 60_000);
    expect((await t.screen()).replace(/\s+/g, "")).toContain(projectFile.replace(/\s+/g, ""));
    await t.press("Enter"); // Yes
    await suite.fake.waitForRequest(
      (r) => r.system.includes("NEWCOMER-BODY") && r.lastText.includes("NEWCOMER-JOB"),
      60_000,
      "the newcomer child",
    );
    await suite.fake.waitForRequest(
      (r) => r.lastText.startsWith("## [subagent-result] newcomer succeeded") && r.lastText.includes("NEWCOMER-DONE"),
      60_000,
      "its result",
    );

    writeFileSync(userFile, agentFile("helper", "Its description changed"));
    await t.submit(
      `TURN3 use the helper. ${fakeDirective([subagentCall("helper", "Job HELPER-JOB.", { text: "HELPER-DONE" }), { text: "dispatched" }])}`,
    );
    const third = await suite.fake.waitForRequest(turn("TURN3"), 60_000, "the third turn");
    expect(rosterLineOf(third.system, "helper")).toBe("- helper \u2014 Its description changed (user)");
    await suite.fake.waitForRequest(
      (r) => r.system.includes("HELPER-BODY") && r.lastText.includes("HELPER-JOB"),
      60_000,
      "the helper child",
    );
    await suite.fake.waitForRequest(
      (r) => r.lastText.startsWith("## [subagent-result] helper succeeded") && r.lastText.includes("HELPER-DONE"),
      60_000,
      "its result",
    );

    rmSync(projectFile);
    rmSync(userFile);
    await t.submit(`TURN4 who is left? ${fakeDirective({ text: "FOURTH-DONE" })}`);
    const fourth = await suite.fake.waitForRequest(turn("TURN4"), 60_000, "the fourth turn");
    expect(rosterLineOf(fourth.system, "newcomer")).toBeUndefined();
    expect(rosterLineOf(fourth.system, "helper")).toBeUndefined();
    expect(rosterLineOf(fourth.system, "worker")).toBeDefined();
    await t.waitForText("FOURTH-DONE", 30_000);
    expect(await t.quit()).toBe(0);
    await t.dispose();
    expect(await waitForNoProcesses(env.marker)).toEqual([]);
  });
});
