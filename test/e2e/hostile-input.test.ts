/**
 * Issue 14 end to end, with the real pi and the fake model: files a cloned repository plants among its agents,
 * a 5 MB answer, a task that tries to retitle the terminal, and a path passed as a taskId.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { isWorkerRequest, useE2eSuite } from "../harness/e2e-suite.ts";
import { fakeDirective, messageText, type FakeAction } from "../harness/fake-model.ts";
import { EXTENSION_ENTRY, runPi } from "../harness/pi-env.ts";
import { waitForNoProcesses } from "../harness/processes.ts";
import { skipTuiTests } from "../harness/tmux.ts";

const suite = useE2eSuite();
const WAIT_MS = 60_000;

function printPi(prompt: string, extraEnv: NodeJS.ProcessEnv = {}) {
  return runPi(["-e", EXTENSION_ENTRY, "-p", prompt], {
    env: suite.env.env,
    cwd: suite.env.workDir,
    extraEnv,
    timeoutMs: 120_000,
  });
}

function delegatingPrompt(args: Record<string, unknown>, then: FakeAction[] = []): string {
  return `Please delegate. ${fakeDirective([{ toolCalls: [{ name: "subagent", arguments: args }] }, ...then])}`;
}

describe("planted agent files", () => {
  it("a link to /dev/zero and a FIFO among the project agents: pi -p answers at once, with a warning naming each", async () => {
    const env = suite.newEnv();
    const agents = join(env.workDir, ".pi", "agents");
    symlinkSync("/dev/zero", join(agents, "zero.md"));
    execFileSync("mkfifo", [join(agents, "fifo.md")]);
    // The same for the project's config file.
    symlinkSync("/dev/zero", join(env.workDir, ".pi", "subagent-isolation.json"));

    const started = Date.now();
    const result = await printPi(
      delegatingPrompt({ agent: "worker", task: `Say hi. ${fakeDirective({ text: "CHILD-HI" })}` }),
    );
    const elapsed = Date.now() - started;
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("CHILD-HI");
    expect(result.stderr).toContain(
      `pi-subagent-dispatch: skipped agent file ${join(agents, "fifo.md")}: it is a FIFO (named pipe), not a regular file`,
    );
    expect(result.stderr).toContain(
      `pi-subagent-dispatch: skipped agent file ${join(agents, "zero.md")}: it is a character device, not a regular file`,
    );
    expect(result.stderr).toContain(`subagent-isolation.json: it is a character device, not a regular file; ignored`);
    // Before, the FIFO hung pi for minutes and /dev/zero grew it to gigabytes; a slow shared machine needs far less.
    expect(elapsed).toBeLessThan(90_000);
    expect(await waitForNoProcesses(env.marker)).toEqual([]);
  });
});

describe("a 5 MB answer", () => {
  it("reaches the main agent cut to the limit, with the path and size of the whole text, which is saved in full", async () => {
    const env = suite.newEnv();
    const answer = `HUGE-BEGIN ${"lorem ipsum ".repeat(440_000)}HUGE-END`;
    suite.fake.on({ when: isWorkerRequest, reply: { text: answer, chunkChars: 1024 * 1024 }, times: 1 });
    const result = await printPi(
      delegatingPrompt({ agent: "worker", task: "Write everything." }, [{ text: "PARENT-DONE" }]),
    );
    expect(result.code, result.stderr).toBe(0);

    // The parent's second request carries the tool result: cut, with the note.
    const parentFollowUp = suite.fake.requests.find((req) => !isWorkerRequest(req) && req.lastRole === "tool");
    expect(parentFollowUp, "the parent's request after the tool result").toBeDefined();
    const toolText = messageText(parentFollowUp!.messages.at(-1));
    expect(toolText.length).toBeLessThan(52_000);
    expect(toolText.slice(0, 100)).toMatch(/^HUGE-BEGIN lorem ipsum/);
    expect(toolText).not.toContain("HUGE-END");
    const note =
      /\[Output cut: showing the first 50000 of (\d+) characters \((\d+) omitted\)\. The full output is saved in (\S+output\.md); read it from there only if you need the rest\.\]/.exec(
        toolText,
      );
    expect(note, toolText.slice(-400)).not.toBeNull();
    expect(Number(note![1])).toBe(answer.length);
    const file = note![3]!;
    expect(file.startsWith(join(env.agentDir, "subagent-sessions"))).toBe(true);
    expect(readFileSync(file, "utf8")).toBe(answer);

    // /subagent-result still prints everything.
    const taskId = /subagent-sessions\/([0-9a-f-]{36})\//.exec(file)![1]!;
    const shown = await printPi(`/subagent-result ${taskId}`);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain("HUGE-END");
    expect(existsSync(join(dirname(file), "record.json"))).toBe(true);
    expect(statSync(file).size).toBe(answer.length);
  });
});

describe.skipIf(skipTuiTests())("in the TUI", () => {
  it("a task with an OSC title sequence leaves the terminal title alone, and a path as a taskId is refused", {
    tags: ["tui"],
  }, async () => {
    const tui = await suite.startTui({ width: 120, height: 45 });
    const env = suite.env;
    const titleBefore = await tui.tmux("display-message", "-p", "-t", "pi", "#{pane_title}");
    expect(titleBefore).not.toContain("PWNED");

    // The child's answer carries one too (from a rule: a directive in the task would be read again from the
    // envelope by the fake parent, whose own text pi draws, not this extension).
    suite.fake.on({ when: isWorkerRequest, reply: { text: "CHILD-OK \u001b]0;PWNED\u0007 \u001b[2J" }, times: 1 });
    const hostileTask = "Title \u001b]0;PWNED\u0007 and \u001b]2;PWNED\u001b\\ done.";
    await tui.submit(`Go ${delegatingPrompt({ agent: "worker", task: hostileTask }, [{ text: "Dispatched it." }])}`);
    await tui.waitForText(/View full result: \/subagent-result [0-9a-f-]{36}/, WAIT_MS);
    const titleAfter = await tui.tmux("display-message", "-p", "-t", "pi", "#{pane_title}");
    // pi 1.x sets a title of its own (`π - <folder>`) once it works; nothing of ours may change it.
    expect(titleAfter === titleBefore || titleAfter.startsWith("π - ")).toBe(true);
    expect(titleAfter).not.toContain("PWNED");

    // A record planted where `../../project` from the task store points must not be read.
    const planted = join(env.agentDir, "subagent-sessions", "..", "..", "project");
    mkdirSync(planted, { recursive: true });
    writeFileSync(join(planted, "record.json"), JSON.stringify({ version: 1, taskId: "planted", status: "succeeded" }));
    await tui.submit(
      `Cancel ${fakeDirective([{ toolCalls: [{ name: "subagent", arguments: { action: "cancel", taskId: "../../project" } }] }, { text: "Tried." }])}`,
    );
    const screen = await tui.waitForText('"../../project" is not a taskId', WAIT_MS);
    expect(screen).not.toContain("already finished");
    // pi ends cleanly (the suite then ends tmux and anything left with the marker).
    expect(await tui.quit()).toBe(0);
  });
});
