import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parseAgentFile } from "../../../src/agents/parse.ts";
import { resolveVerify } from "../../../src/budget/verify-setting.ts";
import type { ChildCommand } from "../../../src/run/command-line.ts";
import { RESTATE_PROMPT } from "../../../src/run/deliverable.ts";
import {
  composeSettleChecks,
  DeliverableCheck,
  JSON_CHILD_NOT_CHECKED,
  VerifyCheck,
  verifyCheckFor,
  type CheckRunner,
} from "../../../src/run/settle-checks.ts";
import { runCheckCommand } from "../../../src/run/verify-command.ts";
import {
  boundedOutput,
  checkCommandLine,
  SANDBOX_NOT_REUSABLE,
  verifyNoteText,
  verifyPrompt,
  type CheckRun,
  type VerifySetting,
} from "../../../src/run/verify.ts";
import { ended, outcomeOf, settle } from "./settle-driver.ts";

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/** A runner that answers each command from a script of exit codes, one per call, and logs the calls. */
function scripted(exits: Record<string, number[]>): { run: CheckRunner; calls: string[] } {
  const calls: string[] = [];
  const run: CheckRunner = (command) => {
    calls.push(command);
    const exitCode = exits[command]?.shift() ?? 0;
    return Promise.resolve({ command, exitCode, output: exitCode === 0 ? "" : `${command}: not yet` });
  };
  return { run, calls };
}

const setting = (commands: string[], maxRounds = 2): VerifySetting => ({ commands, maxRounds, timeoutMs: 120_000 });

describe("verify's rounds", () => {
  it("lets a child whose check passes close at once, with `passed (round 1 of 2)`", async () => {
    const { run, calls } = scripted({});
    const { prompts, outcome } = await settle(new VerifyCheck(setting(["test -f done.txt"]), run), ["Done."]);
    expect(prompts).toEqual([undefined]);
    expect(calls).toEqual(["test -f done.txt"]);
    expect(outcome.output).toBe("Done.");
    expect(outcome.verify && verifyNoteText(outcome.verify)).toBe("passed (round 1 of 2)");
  });

  it("sends a failing child back with the command, its exit code and its output, and passes in round 2", async () => {
    const { run, calls } = scripted({ "test -f done.txt": [1, 0] });
    const { prompts, outcome } = await settle(new VerifyCheck(setting(["test -f done.txt"]), run), [
      "Done.",
      "Created done.txt. Done.",
    ]);
    expect(prompts[0]).toContain("`test -f done.txt` exited 1");
    expect(prompts[0]).toContain("test -f done.txt: not yet");
    expect(prompts[0]).toContain("Fix the problem");
    expect(prompts[1]).toBeUndefined();
    expect(calls).toHaveLength(2);
    expect(outcome.output).toBe("Created done.txt. Done.");
    expect(outcome.verify).toMatchObject({ passed: true, rounds: 2, maxRounds: 2 });
    expect(verifyNoteText(outcome.verify!)).toBe("passed (round 2 of 2)");
  });

  it("after verifyRounds failed rounds delivers the answer with the last output attached and says it failed", async () => {
    const { run, calls } = scripted({ false: [1, 1, 1] });
    const { prompts, outcome } = await settle(new VerifyCheck(setting(["false"]), run), ["Done.", "Fixed.", "x"]);
    expect(prompts).toEqual([expect.stringContaining("round 1 of 2"), undefined]);
    expect(calls).toEqual(["false", "false"]);
    expect(outcome.status).toBe("succeeded");
    expect(outcome.output).toBe("Fixed.\n\n--- verify failed: `false` exited 1; its output ---\n\nfalse: not yet");
    expect(verifyNoteText(outcome.verify!)).toBe("failed after 2 rounds: false exited 1");
    // The record keeps how it failed, not the output (which follows the answer).
    expect(outcome.verify?.failure).toEqual({ command: "false", exitCode: 1 });
  });

  it("with verifyRounds 1 never sends the child back", async () => {
    const { run } = scripted({ false: [1] });
    const { prompts, outcome } = await settle(new VerifyCheck(setting(["false"], 1), run), ["Done."]);
    expect(prompts).toEqual([undefined]);
    expect(verifyNoteText(outcome.verify!)).toBe("failed after 1 round: false exited 1");
  });

  it("runs the agent's command first, then the call's, and stops a round at the first that fails", async () => {
    const { run, calls } = scripted({ "npm test": [1, 0], "npm run lint": [0] });
    await settle(new VerifyCheck(setting(["npm test", "npm run lint"]), run), ["a", "b"]);
    expect(calls).toEqual(["npm test", "npm test", "npm run lint"]);
  });

  it("says how a run stopped in the middle of its rounds failed, without claiming the rounds it never ran", async () => {
    const check = new VerifyCheck(setting(["false"], 3), scripted({ false: [1] }).run);
    const state = ended("Done.");
    expect(await check.afterRun(state)).toContain("round 1 of 3");
    const outcome = outcomeOf(state, "stopped");
    check.conclude(outcome);
    expect(verifyNoteText(outcome.verify!)).toBe("failed (round 1 of 3): false exited 1");
  });

  it("reports a JSON child's check as not run, and says nothing of a run that failed before any round", () => {
    const check = new VerifyCheck(setting(["false"]), scripted({}).run, true);
    const outcome = outcomeOf(ended("Done."));
    check.conclude(outcome);
    expect(verifyNoteText(outcome.verify!)).toBe(`not run: ${JSON_CHILD_NOT_CHECKED}`);
    expect(outcome.output).toBe("Done.");
    const failed = outcomeOf(ended(""), "failed");
    new VerifyCheck(setting(["false"]), scripted({}).run).conclude(failed);
    expect(failed.verify).toBeUndefined();
  });

  it("counts a runner that throws as a failed round, never as a pass", async () => {
    const check = new VerifyCheck(setting(["x"], 1), () => Promise.reject(new Error("spawn sh ENOENT")));
    const { outcome } = await settle(check, ["Done."]);
    expect(verifyNoteText(outcome.verify!)).toBe("failed after 1 round: x could not run: spawn sh ENOENT");
  });
});

describe("verify beside the deliverable check", () => {
  it("checks the work first, then the answer; a passed check is not run again after a restate", async () => {
    const { run, calls } = scripted({ "test -f done.txt": [1, 0] });
    const folder = mkdtempSync(join(tmpdir(), "verify-"));
    folders.push(folder);
    const check = composeSettleChecks(
      new VerifyCheck(setting(["test -f done.txt"]), run),
      new DeliverableCheck(folder),
    )!;
    const { prompts, outcome } = await settle(check, [
      "The full report is above.",
      "The full report is above.",
      "The report: all three modules build and their tests pass.",
    ]);
    expect(prompts[0]).toContain("`test -f done.txt` exited 1");
    expect(prompts[1]).toBe(RESTATE_PROMPT);
    expect(prompts[2]).toBeUndefined();
    expect(calls).toHaveLength(2);
    expect(outcome.deliverable).toBe("restated");
    expect(verifyNoteText(outcome.verify!)).toBe("passed (round 2 of 2)");
  });

  it("is the deliverable check alone when no verify is configured, and nothing when both are off", () => {
    const only = new DeliverableCheck("/tmp");
    expect(composeSettleChecks(undefined, only)).toBe(only);
    expect(composeSettleChecks(undefined, undefined)).toBeUndefined();
  });
});

describe("verify's texts", () => {
  const failure: CheckRun = { command: "npm test", exitCode: 2, output: "1 failing" };

  it("keeps only the end of a long output, saying how much was cut", () => {
    const long = `${"a".repeat(6000)}THE END`;
    const bounded = boundedOutput(long, 4096);
    expect(bounded.endsWith("THE END")).toBe(true);
    expect(bounded).toBe(`[… ${long.length - 4096} earlier characters cut]\n${long.slice(-4096)}`);
    expect(boundedOutput("short\n\n")).toBe("short");
  });

  it("asks the child to fix the problem and answer again, naming the command, how it failed and the rounds left", () => {
    expect(verifyPrompt(failure, 120_000, 1, 3)).toBe(
      [
        "The check of your work failed (round 1 of 3): the command `npm test` exited 2, run in your working folder.",
        "Its output:",
        "```",
        "1 failing",
        "```",
        "Fix the problem, then answer again with your complete final answer. The check runs again when you end (2 more rounds).",
      ].join("\n"),
    );
    expect(verifyPrompt({ ...failure, exitCode: null, timedOut: true, output: "" }, 30_000, 1, 2)).toContain(
      "`npm test` timed out after 30 s, run in your working folder.\nIts output:\n```\n(no output)\n```",
    );
  });
});

describe("a check's command line", () => {
  const child: ChildCommand = { command: "/usr/bin/node", args: ["pi.js"], env: { A: "1" }, mode: "rpc", prompt: "" };

  it("is sh -c in the child's environment for an unsandboxed child", () => {
    expect(checkCommandLine(child, "test -f done.txt", false)).toEqual({
      ok: true,
      line: { command: "sh", args: ["-c", "test -f done.txt"], env: { A: "1" } },
    });
  });

  it("runs inside the child's own sandbox: bubblewrap with its arguments, files handed in and mount points", () => {
    const sandboxed: ChildCommand = {
      ...child,
      command: "/usr/bin/bwrap",
      args: ["--ro-bind", "/", "/", "--", "/usr/bin/node", "pi.js"],
      sandboxArgs: ["--ro-bind", "/", "/"],
      handIn: [{ loginCopyOf: "/agent/auth.json" }],
      mountPoints: ["/work/.pi"],
    };
    expect(checkCommandLine(sandboxed, "npm test", true)).toEqual({
      ok: true,
      line: {
        command: "/usr/bin/bwrap",
        args: ["--ro-bind", "/", "/", "--", "sh", "-c", "npm test"],
        env: { A: "1" },
        handIn: [{ loginCopyOf: "/agent/auth.json" }],
        mountPoints: ["/work/.pi"],
      },
    });
  });

  it("refuses, never runs unsandboxed, for a sandboxed child whose wrapper it cannot reuse", () => {
    expect(checkCommandLine(child, "npm test", true)).toEqual({ ok: false, reason: SANDBOX_NOT_REUSABLE });
  });
});

describe("one check command, run", () => {
  const plain = (command: string) => checkCommandLine({ ...baseChild }, command, false);
  const baseChild: ChildCommand = { command: "", args: [], env: process.env, mode: "rpc", prompt: "" };
  const run = (command: string, timeoutMs = 10_000) => {
    const plan = plain(command);
    if (!plan.ok) throw new Error(plan.reason);
    return runCheckCommand(command, plan.line, tmpdir(), timeoutMs);
  };

  it("passes on exit 0, in the given folder, and keeps stdout and stderr together", async () => {
    expect(await run("pwd; echo out; echo err >&2; exit 3")).toEqual({
      command: "pwd; echo out; echo err >&2; exit 3",
      exitCode: 3,
      output: `${tmpdir()}\nout\nerr`,
    });
    expect((await run("true")).exitCode).toBe(0);
  });

  it("keeps only the end of a long output", async () => {
    const result = await run("i=0; while [ $i -lt 2000 ]; do echo line$i; i=$((i+1)); done");
    expect(result.output.endsWith("line1999")).toBe(true);
    expect(result.output.length).toBeLessThan(4200);
    expect(result.output).toMatch(/^\[… /);
  });

  it("ends a command that runs past its time limit and says it timed out", async () => {
    const result = await run("echo started; sleep 30", 300);
    expect(result.timedOut).toBe(true);
    expect(result.output).toBe("started");
  });
});

describe("a dispatch's check", () => {
  it("runs the command in the child's folder with its environment, and passes once the child made the file", async () => {
    const folder = mkdtempSync(join(tmpdir(), "verify-run-"));
    folders.push(folder);
    const child: ChildCommand = {
      command: "node",
      args: [],
      env: { ...process.env, VERIFY_MARKER_FILE: "done.txt" },
      mode: "rpc",
      prompt: "",
    };
    const check = verifyCheckFor(setting(['test -f "$VERIFY_MARKER_FILE"']), child, folder, false)!;
    expect(await check.afterRun(ended("Done."))).toContain('`test -f "$VERIFY_MARKER_FILE"` exited 1');
    writeFileSync(join(folder, "done.txt"), "done\n");
    expect(await check.afterRun(ended("Made it."))).toBeUndefined();
    const outcome = outcomeOf(ended("Made it."));
    check.conclude(outcome);
    expect(verifyNoteText(outcome.verify!)).toBe("passed (round 2 of 2)");
  });

  it("is none without a command, and never runs a sandboxed child's check outside its sandbox", async () => {
    const child: ChildCommand = { command: "node", args: [], env: process.env, mode: "rpc", prompt: "" };
    expect(verifyCheckFor(undefined, child, tmpdir(), false)).toBeUndefined();
    const check = verifyCheckFor(setting(["exit 0"], 1), child, tmpdir(), true)!;
    expect(await check.afterRun(ended("Done."))).toBeUndefined();
    const outcome = outcomeOf(ended("Done."));
    check.conclude(outcome);
    expect(verifyNoteText(outcome.verify!)).toBe(`failed after 1 round: exit 0 could not run: ${SANDBOX_NOT_REUSABLE}`);
  });
});

describe("verify in an agent's frontmatter", () => {
  const parse = (fields: string) =>
    parseAgentFile(`---\nname: v\ndescription: d\n${fields}---\nBody`, "/a/v.md", "user");

  it("reads verify, verifyRounds and verifyTimeout", () => {
    const parsed = parse("verify: test -f done.txt\nverifyRounds: 3\nverifyTimeout: 30\n");
    expect(parsed.ok && [parsed.agent.verify, parsed.agent.verifyRounds, parsed.agent.verifyTimeout]).toEqual([
      "test -f done.txt",
      3,
      30,
    ]);
    expect(parsed.ok && parsed.ignored).toEqual([]);
  });

  it("ignores a bad verifyRounds, verifyTimeout or verify with a warning, keeping the rest of the agent", () => {
    const parsed = parse("verify: npm test\nverifyRounds: 0\nverifyTimeout: -5\n");
    expect(parsed.ok && parsed.agent.verify).toBe("npm test");
    expect(parsed.ok && parsed.agent.verifyRounds).toBeUndefined();
    expect(parsed.ok && parsed.ignored).toEqual([
      '"verifyRounds" must be a whole number of at least 1 (got "0")',
      '"verifyTimeout" must be a number of seconds greater than 0 (got "-5")',
    ]);
    const fraction = parse("verifyRounds: 1.5\nverify: [a]\n");
    expect(fraction.ok && fraction.ignored).toEqual([
      '"verify" must be a non-empty shell command (got "a")',
      '"verifyRounds" must be a whole number of at least 1 (got "1.5")',
    ]);
  });

  it("resolves the agent's command first and a call's after it; a call alone still checks, with the defaults", () => {
    expect(resolveVerify({ verify: "npm test", verifyRounds: 3 }, "npm run lint")).toEqual({
      commands: ["npm test", "npm run lint"],
      maxRounds: 3,
      timeoutMs: 120_000,
    });
    expect(resolveVerify({}, "test -f x")).toEqual({ commands: ["test -f x"], maxRounds: 2, timeoutMs: 120_000 });
    expect(resolveVerify({ verifyRounds: 4 })).toBeUndefined();
  });
});
