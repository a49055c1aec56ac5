/**
 * Workflows in print mode on the real pi: a call's own model and thinking (validated against pi's model
 * registry, `$models` respected, provenance `call`); a batch (`tasks`) whose parts overlap in time and whose one
 * result holds every part; a chain whose `{previous}` carries the step before's output, and one whose first
 * step fails and ends it; bringing a worktree task's branch home with `/subagent-worktrees merge` (a merge commit in
 * the person's tree) and with the tool's two-step `action: "merge"` (a conflict: aborted, the tree unchanged); the
 * deliverable check on a batch of three (a pointer restated, a file attached, a pointer delivered as missing); `verify`
 * sending a child back until its check passes, delivering a check that keeps failing, and a chain step's call `verify`. The parent is scripted through `@fake` directives in the
 * prompt; each child through directives inside its task.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isWorkerRequest, useE2eSuite } from "../harness/e2e-suite.ts";
import { fakeDirective, type FakeAction, type FakeRequest } from "../harness/fake-model.ts";
import { RESTATE_PROMPT } from "../../src/run/deliverable.ts";
import { EXTENSION_ENTRY, FAKE_REASONER, parseJsonLines, runPi } from "../harness/pi-env.ts";
import { waitForNoProcesses } from "../harness/processes.ts";
import { git, gitProject as gitProjectOf } from "../harness/git-project.ts";

const suite = useE2eSuite();

/** A parent prompt whose first model call makes one subagent call with `args`; the next call quotes the result. */
function delegatingPrompt(args: Record<string, unknown>): string {
  const action: FakeAction = { toolCalls: [{ name: "subagent", arguments: args }] };
  return `Please delegate. ${fakeDirective([action])}`;
}

const childTask = (text: string, actions: FakeAction | FakeAction[]) => `${text} ${fakeDirective(actions)}`;
const sessionIdIn = (text: string) => /\[subagent session: ([0-9a-f-]{36})\]/.exec(text)?.[1];

function printPi(prompt: string) {
  return runPi(["-e", EXTENSION_ENTRY, "-p", prompt], {
    env: suite.env.env,
    cwd: suite.env.workDir,
    timeoutMs: 90_000,
  });
}

/** What the parent's model was handed back by the subagent tool (the request after the tool call). */
function toolResultText(): string {
  const followUp = suite.fake.requests.filter((req) => !isWorkerRequest(req) && req.lastRole === "tool").at(-1);
  expect(followUp, "the parent got the tool's result").toBeDefined();
  return followUp!.lastText;
}

describe("a call's own model and thinking", () => {
  // Our own precedence; the child's --model and --thinking flags are sync-dispatch's contract test.
  it("runs that task on the call's model and thinking, above the config, and says so in the result and record", async () => {
    suite.newEnv();
    suite.env.writeWorkFile(
      ".pi/subagent-isolation.json",
      JSON.stringify({ worker: { model: "fake/fake-model", thinking: "low" } }),
    );
    const result = await printPi(
      delegatingPrompt({
        agent: "worker",
        model: `fake/${FAKE_REASONER}`,
        thinking: "high",
        task: childTask("Count.", { text: "CHEAP-ANSWER" }),
      }),
    );
    expect(result.code, result.stderr).toBe(0);
    const child = suite.fake.requests.find(isWorkerRequest);
    expect(child?.model).toBe(FAKE_REASONER);
    expect(child?.reasoningEffort).toBe("high");
    const text = toolResultText();
    expect(text).toContain("CHEAP-ANSWER");
    expect(text).toContain(`[subagent model: fake/${FAKE_REASONER} (call) · thinking: high (call)]`);
    const id = sessionIdIn(text)!;
    const record = JSON.parse(
      readFileSync(join(suite.env.agentDir, "subagent-sessions", id, "record.json"), "utf8"),
    ) as Record<string, unknown>;
    expect(record).toMatchObject({
      model: `fake/${FAKE_REASONER}`,
      modelSource: "call",
      thinking: "high",
      thinkingSource: "call",
    });
    const shown = await runPi(["-e", EXTENSION_ENTRY, "-p", `/subagent-result ${id}`], {
      env: suite.env.env,
      cwd: suite.env.workDir,
    });
    expect(shown.stdout).toContain(`\nModel: fake/${FAKE_REASONER} (call) · thinking: high (call)\n`);
    expect(await waitForNoProcesses(suite.env.marker)).toEqual([]);
  });

  it("refuses a model pi does not know, and one outside $models naming the allowed ones, starting no child", {
    tags: ["contract"],
  }, async () => {
    suite.newEnv();
    await printPi(delegatingPrompt({ agent: "worker", model: "fake/no-such-model", task: "Count." }));
    expect(toolResultText()).toContain('Unknown model "fake/no-such-model": give provider/id of a model pi knows');
    suite.env.writeWorkFile(".pi/subagent-isolation.json", JSON.stringify({ $models: ["fake/fake-model"] }));
    await printPi(delegatingPrompt({ agent: "worker", model: `fake/${FAKE_REASONER}`, task: "Count." }));
    expect(toolResultText()).toContain(
      `Model "fake/${FAKE_REASONER}" is not in the $models list of the project subagent-isolation.json; allowed: fake/fake-model.`,
    );
    expect(suite.fake.requests.some(isWorkerRequest)).toBe(false);
    expect(await waitForNoProcesses(suite.env.marker)).toEqual([]);
  });
});

describe("a batch and a chain in print mode", () => {
  it("runs a batch's parts side by side and returns one result holding both outputs", async () => {
    suite.newEnv();
    const firstRequestOf = (marker: string) => (req: { system: string; lastText: string; lastRole: string }) =>
      isWorkerRequest(req as never) && req.lastRole === "user" && req.lastText.includes(marker);
    // Each child's first request is held until both have arrived: the batch passes only if the parts overlap.
    suite.fake.on({
      when: (req) => firstRequestOf("PART-A")(req) || firstRequestOf("PART-B")(req),
      reply: async (req) => {
        await Promise.all(
          ["PART-A", "PART-B"].map((marker) =>
            suite.fake.waitForRequest(firstRequestOf(marker), 30_000, `the first request of ${marker}`),
          ),
        );
        return { text: req.lastText.includes("PART-A") ? "ANSWER-A" : "ANSWER-B" };
      },
    });
    // Part B names its own model: a per-task field beyond the schema's agent and task reaches the part.
    const result = await printPi(
      delegatingPrompt({
        tasks: [
          { agent: "worker", task: "Look at PART-A." },
          { agent: "worker", task: "Look at PART-B.", model: `fake/${FAKE_REASONER}` },
        ],
      }),
    );
    expect(result.code, result.stderr).toBe(0);
    expect(suite.fake.requests.filter(firstRequestOf("PART-B")).map((req) => req.model)).toEqual([FAKE_REASONER]);
    expect(suite.fake.requests.filter(firstRequestOf("PART-A")).map((req) => req.model)).toEqual(["fake-model"]);
    const text = toolResultText();
    expect(text.split("\n")[0]).toBe("batch of 2: 2 succeeded");
    expect(text).toMatch(
      /### 1\. worker succeeded \(taskId: [0-9a-f-]{36}\)\nANSWER-A\n\n\[subagent session: [0-9a-f-]{36}\]\n\n### 2\. worker succeeded \(taskId: [0-9a-f-]{36}\)\nANSWER-B\n/,
    );
    expect(await waitForNoProcesses(suite.env.marker)).toEqual([]);
  });

  it("runs a chain's steps in order, each {previous} replaced by the step before's output", async () => {
    suite.newEnv();
    const result = await printPi(
      delegatingPrompt({
        chain: [
          { agent: "worker", task: childTask("Find it.", { text: "STEP-ONE-OUTPUT" }) },
          { agent: "worker", task: "Review this: {previous} (end)" },
        ],
      }),
    );
    expect(result.code, result.stderr).toBe(0);
    const workers = suite.fake.requests.filter(isWorkerRequest);
    expect(workers.map((req) => req.lastText.split(" @fake")[0])).toEqual([
      "Task: Find it.",
      "Task: Review this: STEP-ONE-OUTPUT (end)",
    ]);
    const text = toolResultText();
    expect(text.split("\n")[0]).toBe("chain of 2: 2 succeeded");
    expect(text).toMatch(
      /### Step 1\. worker succeeded \(taskId: [0-9a-f-]{36}\)\nSTEP-ONE-OUTPUT\n[^]*### Step 2\. worker succeeded \(taskId: [0-9a-f-]{36}\)\nok\n/,
    );
    expect(await waitForNoProcesses(suite.env.marker)).toEqual([]);
  });

  it("in JSON mode returns the combined result with each part's details, flagged as an error when the chain did not finish", async () => {
    suite.newEnv();
    const prompt = delegatingPrompt({
      chain: [
        { agent: "worker", task: childTask("One.", { text: "JSON-ONE" }) },
        { agent: "worker", task: childTask("Two.", { httpError: { status: 500, message: "down" } }) },
      ],
    });
    const result = await runPi(["-e", EXTENSION_ENTRY, "--mode", "json", "-p", prompt], {
      env: suite.env.env,
      cwd: suite.env.workDir,
      timeoutMs: 90_000,
    });
    expect(result.code, result.stderr).toBe(0);
    const end = parseJsonLines(result.stdout).find(
      (e) => e.type === "tool_execution_end" && e.toolName === "subagent",
    ) as
      | {
          result: {
            content: Array<{ text: string }>;
            details: { kind: string; status: string; parts: Array<Record<string, unknown>> };
          };
          isError: boolean;
        }
      | undefined;
    expect(end).toBeDefined();
    expect(end!.isError).toBe(true);
    expect(end!.result.content[0]!.text.split("\n")[0]).toBe("chain of 2: ended at step 2 (worker failed)");
    expect(end!.result.details.kind).toBe("chain");
    expect(end!.result.details.status).toBe("failed");
    expect(end!.result.details.parts.map((part) => [part.agent, part.status, part.output])).toEqual([
      ["worker", "succeeded", "JSON-ONE"],
      ["worker", "failed", ""],
    ]);
    expect(await waitForNoProcesses(suite.env.marker)).toEqual([]);
  });

  it("ends a chain at a first step that fails, says which step ended it, and never starts the next", async () => {
    suite.newEnv();
    const result = await printPi(
      delegatingPrompt({
        chain: [
          { agent: "worker", task: childTask("Fail.", { httpError: { status: 500, message: "upstream exploded" } }) },
          { agent: "worker", task: "NEVER-RUN {previous}" },
        ],
      }),
    );
    expect(result.code, result.stderr).toBe(0);
    const text = toolResultText();
    expect(text.split("\n")[0]).toBe("chain of 2: ended at step 1 (worker failed); 1 step not run");
    expect(text).toMatch(/### Step 1\. worker failed \(taskId: [0-9a-f-]{36}\)\nSubagent worker failed\./);
    expect(text.endsWith("### Step 2. worker not run")).toBe(true);
    expect(suite.fake.requests.some((req) => req.lastText.includes("Task: NEVER-RUN"))).toBe(false);
    expect(await waitForNoProcesses(suite.env.marker)).toEqual([]);
  });
});

describe("bringing worktree work home", () => {
  /** The work folder as a git project with one commit, and the person's identity (for the merge commit). */
  const gitProject = () => gitProjectOf(suite.env, { identityInConfig: true });

  /** Runs a worker in a worktree that writes `path`, and returns its task id. */
  async function worktreeTask(path: string, content: string): Promise<string> {
    const write: FakeAction[] = [
      { toolCalls: [{ name: "write", arguments: { path, content } }] },
      { text: "WROTE-IT" },
    ];
    const result = await printPi(
      delegatingPrompt({ agent: "worker", isolation: "worktree", task: childTask("Write it.", write) }),
    );
    expect(result.code, result.stderr).toBe(0);
    const id = sessionIdIn(result.stdout);
    expect(id, result.stdout).toBeDefined();
    return id!;
  }

  it("/subagent-worktrees merge <prefix>: a merge commit in the person's branch with the file, the worktree and branch removed", async () => {
    suite.newEnv();
    const dir = gitProject();
    const id = await worktreeTask("hello.txt", "HELLO FROM CHILD\n");
    const before = git(dir, "rev-parse", "HEAD").trim();
    const merged = await runPi(["-e", EXTENSION_ENTRY, "-p", `/subagent-worktrees merge ${id.slice(0, 13)}`], {
      env: suite.env.env,
      cwd: dir,
      timeoutMs: 60_000,
    });
    expect(merged.code, merged.stderr).toBe(0);
    const commit = git(dir, "rev-parse", "HEAD").trim();
    expect(merged.stderr).toContain(
      `Merged subagent/${id} into main: merge commit ${commit.slice(0, 12)}, 1 file:\n- A hello.txt\nRemoved its worktree and branch subagent/${id}.`,
    );
    expect(git(dir, "rev-list", "--parents", "-n", "1", "HEAD").trim().split(" ")).toHaveLength(3);
    expect(git(dir, "rev-parse", "HEAD^1").trim()).toBe(before);
    expect(readFileSync(`${dir}/hello.txt`, "utf8")).toBe("HELLO FROM CHILD\n");
    expect(git(dir, "status", "--porcelain")).toBe("");
    expect(git(dir, "branch", "--list", "subagent/*")).toBe("");
    expect(existsSync(`${suite.env.agentDir}/subagent-worktrees/${id}`)).toBe(false);
    expect(await waitForNoProcesses(suite.env.marker)).toEqual([]);
  });

  it("action merge: the first call only says what would change; confirmed, a conflict is aborted, the tree left as it was and the file named", async () => {
    suite.newEnv();
    const dir = gitProject();
    const id = await worktreeTask("README.md", "CHILD\n");
    // The person changed the same file meanwhile.
    writeFileSync(`${dir}/README.md`, "PERSON\n");
    git(dir, "commit", "--quiet", "-am", "person edits");
    const before = git(dir, "rev-parse", "HEAD").trim();
    suite.fake.reset();
    const steps: FakeAction[] = [
      { toolCalls: [{ name: "subagent", arguments: { action: "merge", taskId: id } }] },
      { toolCalls: [{ name: "subagent", arguments: { action: "merge", taskId: id, confirm: true } }] },
      { text: "done" },
    ];
    const result = await printPi(`Merge it. ${fakeDirective(steps)}`);
    expect(result.code, result.stderr).toBe(0);
    const toolResults = suite.fake.requests.filter((req) => req.lastRole === "tool").map((req) => req.lastText);
    expect(toolResults[0]).toContain(
      `Merging subagent/${id} into main would change 1 file:\n- M README.md\nNothing was done.`,
    );
    expect(toolResults[1]).toContain(
      `Could not merge subagent/${id} into main: 1 file in conflict. The merge was aborted; the working tree is exactly as it was. Nothing was resolved.\n- README.md`,
    );
    expect(git(dir, "rev-parse", "HEAD").trim()).toBe(before);
    expect(git(dir, "status", "--porcelain")).toBe("");
    expect(readFileSync(`${dir}/README.md`, "utf8")).toBe("PERSON\n");
    expect(git(dir, "branch", "--list", "subagent/*", "--format=%(refname:short)").trim()).toBe(`subagent/${id}`);
    expect(await waitForNoProcesses(suite.env.marker)).toEqual([]);
  });
});

describe("the deliverable check (issue 38)", () => {
  it("asks a pointer once and passes on the restated text, attaches a file the answer points to, and says plainly when none came", {
    tags: ["contract"],
  }, async () => {
    suite.newEnv();
    const restateOf = (marker: string) => (req: FakeRequest) =>
      isWorkerRequest(req) &&
      req.lastRole === "user" &&
      req.lastText === RESTATE_PROMPT &&
      JSON.stringify(req.messages).includes(marker);
    suite.fake.on({ when: restateOf("PART-A"), reply: { text: "RESTATED-A: the complete findings, in full." } });
    suite.fake.on({ when: restateOf("PART-C"), reply: { text: "The full report is above." } });
    const result = await printPi(
      delegatingPrompt({
        tasks: [
          { agent: "worker", task: childTask("Review PART-A.", { text: "The full report is above." }) },
          {
            agent: "worker",
            task: childTask("Review PART-B.", [
              { toolCalls: [{ name: "write", arguments: { path: "REPORT.md", content: "REPORT-B-CONTENT\n" } }] },
              { text: "Written to REPORT.md" },
            ]),
          },
          { agent: "worker", task: childTask("Review PART-C.", { text: "See my previous message for details." }) },
        ],
      }),
    );
    expect(result.code, result.stderr).toBe(0);
    // The restate prompt reached the two pointers' children, once each, and never the one whose file was there.
    expect(suite.fake.requests.filter(restateOf("PART-A"))).toHaveLength(1);
    expect(suite.fake.requests.filter(restateOf("PART-C"))).toHaveLength(1);
    expect(suite.fake.requests.filter(restateOf("PART-B"))).toHaveLength(0);
    const text = toolResultText();
    expect(text.split("\n")[0]).toBe("batch of 3: 3 succeeded");
    const parts = text.split(/\n### \d\. /).slice(1);
    expect(parts[0]).toMatch(
      /^worker succeeded \(taskId: [0-9a-f-]{36}\)\nRESTATED-A: the complete findings, in full\.\n\n\[subagent deliverable: restated /,
    );
    expect(parts[1]).toContain(
      "Written to REPORT.md\n\n--- attached: REPORT.md (the file the final message pointed to) ---\n\nREPORT-B-CONTENT",
    );
    expect(parts[1]).toContain("[subagent deliverable: attached REPORT.md ");
    expect(parts[2]).toContain(
      "The full report is above.\n\n[subagent deliverable: missing: the subagent did not deliver its result in its final message",
    );
    // The records keep what happened.
    const deliverables = [...text.matchAll(/\[subagent session: ([0-9a-f-]{36})\]/g)].map(
      (match) =>
        (
          JSON.parse(readFileSync(join(suite.env.agentDir, "subagent-sessions", match[1]!, "record.json"), "utf8")) as {
            deliverable?: string;
          }
        ).deliverable,
    );
    expect(deliverables).toEqual(["restated", "attached REPORT.md", "missing"]);
    expect(await waitForNoProcesses(suite.env.marker)).toEqual([]);
  });

  it("passes a chain step's restated deliverable on as {previous}, not its pointer", async () => {
    suite.newEnv();
    const restate = (req: FakeRequest) =>
      isWorkerRequest(req) && req.lastRole === "user" && req.lastText === RESTATE_PROMPT;
    suite.fake.on({ when: restate, reply: { text: "STEP-ONE-RESTATED: the findings themselves." } });
    const result = await printPi(
      delegatingPrompt({
        chain: [
          { agent: "worker", task: childTask("Find it.", { text: "See my previous message for the findings." }) },
          { agent: "worker", task: "Review this: {previous} (end)" },
        ],
      }),
    );
    expect(result.code, result.stderr).toBe(0);
    expect(suite.fake.requests.filter(restate)).toHaveLength(1);
    const secondStep = suite.fake.requests.filter(
      (req) => isWorkerRequest(req) && req.lastRole === "user" && req.lastText.startsWith("Task: Review this:"),
    );
    expect(secondStep.map((req) => req.lastText)).toEqual([
      "Task: Review this: STEP-ONE-RESTATED: the findings themselves. (end)",
    ]);
    const text = toolResultText();
    expect(text.split("\n")[0]).toBe("chain of 2: 2 succeeded");
    expect(text).toMatch(
      /### Step 1\. worker succeeded \(taskId: [0-9a-f-]{36}\)\nSTEP-ONE-RESTATED: the findings themselves\.\n\n\[subagent deliverable: restated /,
    );
    expect(await waitForNoProcesses(suite.env.marker)).toEqual([]);
  });
});

describe("verify (issue 38)", () => {
  const VERIFY_PROMPT_START = "The check of your work failed";
  const verifyPromptTo = (req: FakeRequest) =>
    isWorkerRequest(req) && req.lastRole === "user" && req.lastText.startsWith(VERIFY_PROMPT_START);
  /** The child's model call right after the tool call it made in answer to the verify prompt. */
  const afterFixTool = (req: FakeRequest) =>
    isWorkerRequest(req) && req.lastRole === "tool" && JSON.stringify(req.messages).includes(VERIFY_PROMPT_START);
  const recordOf = (taskId: string) =>
    JSON.parse(readFileSync(join(suite.env.agentDir, "subagent-sessions", taskId, "record.json"), "utf8")) as {
      verify?: { passed: boolean; rounds: number; maxRounds: number };
    };

  it("sends a child that claims done without the file back with the command, and delivers `passed (round 2 of 2)` once it made it", {
    tags: ["contract"],
  }, async () => {
    suite.newEnv({ workerFrontmatter: "verify: test -f done.txt" });
    suite.fake.on({
      when: verifyPromptTo,
      reply: { toolCalls: [{ name: "write", arguments: { path: "done.txt", content: "done\n" } }] },
    });
    suite.fake.on({
      when: afterFixTool,
      reply: { text: "FIXED-ANSWER: I made the missing file; the task is finished." },
    });
    const result = await printPi(delegatingPrompt({ agent: "worker", task: childTask("Make it.", { text: "Done." }) }));
    expect(result.code, result.stderr).toBe(0);
    // Sent back once, told which command failed and how.
    const sentBack = suite.fake.requests.filter(verifyPromptTo);
    expect(sentBack).toHaveLength(1);
    expect(sentBack[0]!.lastText).toContain("(round 1 of 2): the command `test -f done.txt` exited 1");
    expect(existsSync(join(suite.env.workDir, "done.txt"))).toBe(true);
    const text = toolResultText();
    expect(text).toMatch(
      /^FIXED-ANSWER: I made the missing file; the task is finished\.\n\n\[subagent verify: passed \(round 2 of 2\)\]\n\[subagent session: [0-9a-f-]{36}\]/,
    );
    expect(recordOf(sessionIdIn(text)!).verify).toMatchObject({ passed: true, rounds: 2, maxRounds: 2 });
    expect(await waitForNoProcesses(suite.env.marker)).toEqual([]);
  });

  it("delivers a child whose check keeps failing after verifyRounds, with the check's output and a line saying it failed", async () => {
    suite.newEnv({ workerFrontmatter: 'verify: "echo VERIFY-OUTPUT-MARKER >&2; false"' });
    suite.fake.on({ when: verifyPromptTo, reply: { text: "TRIED-AGAIN: still done." } });
    const result = await printPi(delegatingPrompt({ agent: "worker", task: childTask("Do it.", { text: "Done." }) }));
    expect(result.code, result.stderr).toBe(0);
    // Two rounds (the default): one send-back, whose prompt carries the check's output.
    const sentBack = suite.fake.requests.filter(verifyPromptTo);
    expect(sentBack).toHaveLength(1);
    expect(sentBack[0]!.lastText).toContain("VERIFY-OUTPUT-MARKER");
    const text = toolResultText();
    expect(text).toContain(
      "TRIED-AGAIN: still done.\n\n--- verify failed: `echo VERIFY-OUTPUT-MARKER >&2; false` exited 1; its output ---\n\nVERIFY-OUTPUT-MARKER\n\n",
    );
    expect(text).toContain(
      "[subagent verify: failed after 2 rounds: echo VERIFY-OUTPUT-MARKER >&2; false exited 1]\n[subagent session: ",
    );
    expect(recordOf(sessionIdIn(text)!).verify).toMatchObject({ passed: false, rounds: 2, maxRounds: 2 });
    expect(await waitForNoProcesses(suite.env.marker)).toEqual([]);
  });

  it("checks a chain's step by the call's verify and passes the fixed answer on as {previous}", async () => {
    suite.newEnv();
    suite.fake.on({
      when: verifyPromptTo,
      reply: { toolCalls: [{ name: "write", arguments: { path: "step1.txt", content: "one\n" } }] },
    });
    suite.fake.on({ when: afterFixTool, reply: { text: "STEP-ONE-FINAL" } });
    const result = await printPi(
      delegatingPrompt({
        chain: [
          { agent: "worker", task: childTask("Find it.", { text: "STEP-ONE-DRAFT" }), verify: "test -f step1.txt" },
          { agent: "worker", task: "Review this: {previous} (end)" },
        ],
      }),
    );
    expect(result.code, result.stderr).toBe(0);
    expect(suite.fake.requests.filter(verifyPromptTo)).toHaveLength(1);
    const secondStep = suite.fake.requests.filter(
      (req) => isWorkerRequest(req) && req.lastRole === "user" && req.lastText.startsWith("Task: Review this:"),
    );
    expect(secondStep.map((req) => req.lastText)).toEqual(["Task: Review this: STEP-ONE-FINAL (end)"]);
    const text = toolResultText();
    expect(text.split("\n")[0]).toBe("chain of 2: 2 succeeded");
    expect(text).toMatch(
      /### Step 1\. worker succeeded \(taskId: [0-9a-f-]{36}\)\nSTEP-ONE-FINAL\n\n\[subagent verify: passed \(round 2 of 2\)\]\n/,
    );
    expect(await waitForNoProcesses(suite.env.marker)).toEqual([]);
  });
});
