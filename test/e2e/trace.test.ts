/**
 * `/subagent-trace` (issue 41) with the real pi and the scripted fake model: a chain of two run in the TUI, whose
 * second step runs two tools and nests a child, is traced after pi restarted, in print mode as text (the three
 * children nested, each tool call with its duration) and as OpenTelemetry spans (`--json`: parent links rebuild
 * the same tree, child times nest in their parent's) whose ids the lifecycle events carry too, and in JSON mode as
 * one line; without an id, the recent delegations (print mode) or a picker (TUI). In the TUI the viewer opens on
 * a finished batch and on a running task, which it follows live. A blocking chain (print mode) names its id in its
 * result and is traced by it from a later pi. With `OTEL_EXPORTER_OTLP_ENDPOINT` set, each finished delegation
 * reaches a local OTLP receiver as the same spans `--json` writes (TUI and print mode); with the receiver down the
 * delegations succeed, pi exits in time and one warning says so.
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { isWorkerRequest, useE2eSuite } from "../harness/e2e-suite.ts";
import { fakeDirective, messageText, type FakeAction, type FakeRequest } from "../harness/fake-model.ts";
import { EXTENSION_ENTRY, REPO_ROOT, runPi } from "../harness/pi-env.ts";
import { waitForFile, waitForNoProcesses } from "../harness/processes.ts";
import { skipTuiTests, type TmuxPi } from "../harness/tmux.ts";
import { closedEndpoint, OtlpReceiver, type ReceivedSpan } from "../harness/otlp-receiver.ts";

const suite = useE2eSuite();
const UUID = "[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}";
const ANY_RESULT = /^## \[subagent-result\] /;
const isParent = (req: FakeRequest) => !isWorkerRequest(req);
const resultTexts = (req: FakeRequest) =>
  req.messages.filter((m) => m.role === "user" && ANY_RESULT.test(messageText(m))).map(messageText);

interface Span {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: Record<string, string | number | boolean>;
  kind: "INTERNAL" | "CLIENT";
  status: { code: "OK" | "ERROR" | "UNSET" };
}

const LISTENER = join(REPO_ROOT, "test", "e2e", "fixtures", "lifecycle-listener.ts");

/** The lifecycle events the listener wrote (channel and payload), for the current test. */
const lifecycleLog = () => join(suite.env.root, "lifecycle.jsonl");

async function startTui(extraEnv: NodeJS.ProcessEnv = {}): Promise<TmuxPi> {
  suite.newEnv({ workerFrontmatter: "tools: read, bash, subagent" });
  // An envelope quotes each child's task, directive included: the parent only acknowledges it.
  suite.fake.on({
    when: (r) => isParent(r) && r.lastRole === "user" && ANY_RESULT.test(r.lastText),
    reply: { text: "noted" },
  });
  return suite.startTui({
    args: ["-e", EXTENSION_ENTRY, "-e", LISTENER],
    extraEnv: { PI_SUBAGENT_MAX_DEPTH: "2", LIFECYCLE_LOG: lifecycleLog(), ...extraEnv },
  });
}

function dispatchPrompt(args: Record<string, unknown>): string {
  const first: FakeAction = { toolCalls: [{ name: "subagent", arguments: args }] };
  return `Delegate please. ${fakeDirective([first, { text: "Dispatched, waiting." }])}`;
}

/** The workflow's id from the receipt the parent's model got. */
async function workflowId(kind: "batch" | "chain"): Promise<string> {
  const after = await suite.fake.waitForRequest(
    (r) => isParent(r) && r.messages.some((m) => m.role === "tool"),
    90_000,
    "the receipt",
  );
  const text = messageText(after.messages.find((m) => m.role === "tool"));
  const id = new RegExp(`^Dispatched ${kind} of \\d+\\. ${kind}Id: (${UUID})`).exec(text)?.[1];
  expect(id, text).toBeDefined();
  return id!;
}

async function workflowDelivered(id: string): Promise<void> {
  await suite.fake.waitForRequest(
    (r) => isParent(r) && resultTexts(r).some((text) => text.includes(id)),
    120_000,
    "the workflow's result",
  );
}

function printPi(...prompts: string[]) {
  return runPi(["-e", EXTENSION_ENTRY, "-p", ...prompts], {
    env: suite.env.env,
    cwd: suite.env.workDir,
    timeoutMs: 90_000,
  });
}

const nanos = (value: string) => BigInt(value);

/** A chain of two whose second step runs two tools, then nests a child. */
function chainOfTwo(): Record<string, unknown> {
  const leaf = `Leaf job. ${fakeDirective({ text: "LEAF-DONE" })}`;
  const second = `Middle job. ${fakeDirective([
    { toolCalls: [{ name: "bash", arguments: { command: "echo TOOL-ONE-OUT" } }] },
    { toolCalls: [{ name: "read", arguments: { path: "notes-for-trace.txt" } }] },
    { toolCalls: [{ name: "subagent", arguments: { agent: "worker", task: leaf } }] },
    { text: "MIDDLE-DONE" },
  ])}`;
  const first = `First job. ${fakeDirective({ text: "FIRST-DONE" })}`;
  suite.env.writeWorkFile("notes-for-trace.txt", "NOTES-CONTENT\n");
  return {
    chain: [
      { agent: "worker", task: first },
      { agent: "worker", task: second },
    ],
  };
}

/** The chain's trace as text: both steps, the second's two tools and its nested child under its subagent call. */
function expectChainText(id: string, lines: readonly string[], stdout: string): void {
  expect(lines[0]).toMatch(new RegExp(`^chain ${id} · 3 subagents · [\\d.]+ m?s · 6 turns/`));
  const roots = lines.filter((line) => /^\d\. worker [0-9a-f]{8} · succeeded · fake\/fake-model · /.test(line));
  expect(roots.map((line) => line.slice(0, 3))).toEqual(["1. ", "2. "]);
  // The second step's steps: its two tools with their durations, then the subagent call with the nested child under it.
  const tail = lines.slice(lines.indexOf(roots[1]!));
  const bash = tail.findIndex((line) =>
    /^ {3}\+[\d.]+ m?s +tool bash: echo TOOL-ONE-OUT · [\d.]+ m?s → TOOL-ONE-OUT/.test(line),
  );
  const read = tail.findIndex((line) =>
    /^ {3}\+[\d.]+ m?s +tool read: notes-for-trace\.txt · [\d.]+ m?s → NOTES-CONTENT/.test(line),
  );
  const call = tail.findIndex((line) => /^ {3}\+[\d.]+ m?s +tool subagent: worker: Leaf job\./.test(line));
  const nested = tail.findIndex((line) => /^ {6}worker [0-9a-f]{8} · succeeded · fake\/fake-model · /.test(line));
  const leafTurn = tail.findIndex((line) =>
    /^ {9}\+[\d.]+ m?s +turn 1 · [\d.]+ m?s · ↑\d+ ↓\d+ · \$[\d.]+ → LEAF-DONE/.test(line),
  );
  expect(
    [bash, read, call, nested, leafTurn].every((index) => index > 0),
    stdout,
  ).toBe(true);
  expect(bash < read && read < call && call < nested && nested < leafTurn, stdout).toBe(true);
  expect(stdout).toContain("◀ slowest step");
}

function readSpans(file: string): Span[] {
  return readFileSync(file, "utf8")
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line) as Span);
}

/**
 * The chain's spans: one trace, the chain's span its root, parent links that rebuild the tree (both steps under the
 * chain, the nested child under the second step's `subagent` call), each span's times inside its parent's.
 * Returns the chain's span and the three agents' spans.
 */
function expectChainSpans(spans: readonly Span[]): { chain: Span; agents: Span[] } {
  const byId = new Map(spans.map((span) => [span.spanId, span]));
  expect(new Set(spans.map((span) => span.traceId)).size).toBe(1);
  const rootSpans = spans.filter((span) => span.parentSpanId === undefined);
  expect(rootSpans.map((span) => span.name)).toEqual(["invoke_workflow chain"]);
  for (const span of spans) {
    if (!span.parentSpanId) continue;
    const parent = byId.get(span.parentSpanId);
    expect(parent, span.name).toBeDefined();
    expect(nanos(span.startTimeUnixNano) >= nanos(parent!.startTimeUnixNano), span.name).toBe(true);
    expect(nanos(span.endTimeUnixNano) <= nanos(parent!.endTimeUnixNano), span.name).toBe(true);
  }
  const agents = spans.filter((span) => span.attributes["gen_ai.operation.name"] === "invoke_agent");
  expect(agents.map((span) => span.attributes["gen_ai.agent.name"])).toEqual(["worker", "worker", "worker"]);
  const parentName = (span: Span) => byId.get(span.parentSpanId!)?.name;
  expect(agents.map(parentName)).toEqual(["invoke_workflow chain", "invoke_workflow chain", "execute_tool subagent"]);
  const grandParent = byId.get(byId.get(agents[2]!.parentSpanId!)!.parentSpanId!);
  expect(grandParent).toBe(agents[1]);
  const tools = spans.filter((span) => span.parentSpanId === agents[1]!.spanId && span.name.startsWith("execute_tool"));
  expect(tools.map((span) => span.attributes["gen_ai.tool.name"])).toEqual(["bash", "read", "subagent"]);
  const turns = spans.filter((span) => span.attributes["gen_ai.operation.name"] === "chat");
  expect(turns.length).toBe(6);
  expect(turns.every((span) => span.attributes["gen_ai.usage.input_tokens"] !== undefined)).toBe(true);
  return { chain: rootSpans[0]!, agents };
}

/** The main agent's answer after its one `subagent` call: a script that makes it and then says it is done. */
function blockingPrompt(args: Record<string, unknown>): string {
  return `Delegate please. ${fakeDirective([{ toolCalls: [{ name: "subagent", arguments: args }] }, { text: "ALL-DONE" }])}`;
}

/** What the main agent's `subagent` call returned (print mode: the blocking result). */
function blockingResult(): string {
  const req = suite.fake.requests.filter((r) => isParent(r) && r.lastRole === "tool").at(-1);
  return req?.lastText ?? "";
}

describe("/subagent-trace of a blocking chain (print mode)", () => {
  it("names the chain's id in its result, and traces it from a later pi: the three children nested, as text and as spans", {
    tags: ["contract", "slow"],
  }, async () => {
    suite.newEnv({ workerFrontmatter: "tools: read, bash, subagent" });
    const env = { ...suite.env.env, PI_SUBAGENT_MAX_DEPTH: "2" };
    const run = await runPi(["-e", EXTENSION_ENTRY, "-p", blockingPrompt(chainOfTwo())], {
      env,
      cwd: suite.env.workDir,
      timeoutMs: 120_000,
    });
    expect(run.code, run.stderr).toBe(0);
    const result = blockingResult();
    // The title as before, then the chain's id on its own line.
    const [title, idLine] = result.split("\n");
    expect(title).toBe("chain of 2: 2 succeeded");
    const id = new RegExp(`^chainId: (${UUID})$`).exec(idLine ?? "")?.[1];
    expect(id, result).toBeDefined();

    const shown = await printPi(`/subagent-trace ${id}`);
    expect(shown.code, shown.stderr).toBe(0);
    expectChainText(id!, shown.stdout.trimEnd().split("\n"), shown.stdout);
    // The chain is a recent delegation of its own; its parts are not listed alone.
    const recent = await printPi("/subagent-trace");
    expect(recent.stdout.trimEnd().split("\n")).toEqual([
      expect.stringMatching(
        new RegExp(`^${id}  \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d  chain · chain of 2: 2 succeeded · `),
      ),
    ]);

    const written = await printPi(`/subagent-trace ${id} --json spans.jsonl`);
    expect(written.code, written.stderr).toBe(0);
    const { chain, agents } = expectChainSpans(readSpans(join(suite.env.workDir, "spans.jsonl")));
    expect(chain.attributes["pi_subagent.workflow.id"]).toBe(id);
    expect(agents[0]!.traceId).toBe(id!.replace(/-/g, ""));
    expect(await waitForNoProcesses(suite.env.marker)).toEqual([]);
  });
});

describe.skipIf(skipTuiTests())("/subagent-trace", () => {
  it("traces a chain whose second step nests a child and runs two tools: as text and as spans, after pi restarted; the TUI sent the same spans to a collector", {
    tags: ["tui", "contract", "slow"],
  }, async () => {
    const receiver = await new OtlpReceiver().start();
    onTestFinished(() => receiver.stop());
    const t = await startTui({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint });
    await t.submit(dispatchPrompt(chainOfTwo()));
    const id = await workflowId("chain");
    await workflowDelivered(id);
    // Once the chain's one result was sent, the whole chain went to the collector, nested child included.
    const exported = await receiver.waitForRequest(
      (spans) => spans.some((span) => span.traceId === id.replace(/-/g, "")),
      30_000,
      "the chain's spans",
    );
    expect(await t.quit()).toBe(0);
    await t.dispose();
    expect(receiver.requests).toHaveLength(1);

    // A new pi, in print mode: the trace is read from disk.
    // Without an id, the recent delegations one a line: the chain first, its parts not on their own.
    const shown = await printPi("/subagent-trace", `/subagent-trace ${id.slice(0, 13)}`);
    expect(shown.code, shown.stderr).toBe(0);
    const [recent, ...lines] = shown.stdout.trimEnd().split("\n");
    expect(recent).toMatch(
      new RegExp(`^${id}  \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d  chain · chain of 2: 2 succeeded · `),
    );
    expectChainText(id, lines, shown.stdout);

    // JSON mode: the tree itself, one line.
    const json = await runPi(["-e", EXTENSION_ENTRY, "--mode", "json", "-p", `/subagent-trace ${id}`], {
      env: suite.env.env,
      cwd: suite.env.workDir,
      timeoutMs: 90_000,
    });
    const line = json.stdout.split("\n").find((text) => text.includes('"type":"subagent_trace"'));
    expect(line, json.stdout).toBeDefined();
    const tree = (JSON.parse(line!) as { trace: { taskCount: number; roots: Array<{ children: unknown[] }> } }).trace;
    expect([tree.taskCount, tree.roots.length, tree.roots[1]!.children.length]).toEqual([3, 2, 1]);

    // The same tree as OpenTelemetry spans.
    const written = await printPi(`/subagent-trace ${id} --json spans.jsonl`);
    expect(written.code, written.stderr).toBe(0);
    expect(written.stderr).toMatch(/Wrote \d+ spans of chain/);
    const file = readSpans(join(suite.env.workDir, "spans.jsonl"));
    const { chain, agents } = expectChainSpans(file);
    expect(exported.map(comparable).sort(bySpanId)).toEqual(file.map(comparable).sort(bySpanId));

    // The lifecycle events of the two steps name the same trace and spans, so another extension can join them.
    const ended = readFileSync(lifecycleLog(), "utf8")
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line) as { channel: string; data: Record<string, string> })
      .filter((event) => event.channel === "subagent:ended" && event.data["mode"] === "async")
      .map((event) => event.data);
    expect(ended.map((event) => [event["traceId"], event["spanId"], event["parentSpanId"]])).toEqual(
      agents.slice(0, 2).map((span) => [span.traceId, span.spanId, chain.spanId]),
    );
    expect(await waitForNoProcesses(suite.env.marker)).toEqual([]);
  });

  it("opens the viewer on a finished batch, and on a running task, which it follows live", {
    tags: ["tui", "contract", "slow"],
  }, async () => {
    const t = await startTui();
    await t.submit(
      dispatchPrompt({
        tasks: [
          { agent: "worker", task: `Part A. ${fakeDirective({ text: "PART-A-DONE" })}` },
          { agent: "worker", task: `Part B. ${fakeDirective({ text: "PART-B-DONE" })}` },
        ],
      }),
    );
    const batch = await workflowId("batch");
    await workflowDelivered(batch);
    await t.submit(`/subagent-trace ${batch}`);
    await t.waitForAll([
      `Subagent trace · batch ${batch}`,
      "2 subagents",
      "→ PART-A-DONE",
      "→ PART-B-DONE",
      "q/Esc close",
    ]);
    await t.press("q");
    await t.waitForNoText("Subagent trace ·");

    // A running task: it runs one bash call that waits for a file, then a second one once the file is there.
    const started = join(suite.env.root, "trace-started");
    const go = join(suite.env.root, "trace-go");
    const task = `Hold. ${fakeDirective([
      {
        toolCalls: [
          {
            name: "bash",
            arguments: { command: `touch ${started}; while [ ! -f ${go} ]; do sleep 0.05; done; echo HELD-DONE` },
          },
        ],
      },
      { toolCalls: [{ name: "bash", arguments: { command: "echo SECOND-TOOL-OUT" } }] },
      { text: "LIVE-TASK-DONE" },
    ])}`;
    await t.submit(
      `Delegate please. ${fakeDirective([{ toolCalls: [{ name: "subagent", arguments: { agent: "worker", task } }] }, { text: "Dispatched, waiting." }])}`,
    );
    await waitForFile(started, 90_000);
    // The newest task folder is the running task's (task ids are UUID v7s, which sort by time).
    const taskId = readdirSync(join(suite.env.agentDir, "subagent-sessions"))
      .filter((name) => new RegExp(`^${UUID}$`).test(name))
      .sort()
      .at(-1);
    expect(taskId).toBeDefined();
    await t.submit(`/subagent-trace ${taskId}`);
    await t.waitForAll([`Subagent trace · task ${taskId}`, "· running ·", "tool bash:", "· live ·"]);
    writeFileSync(go, "");
    // Refreshed from disk: the second tool call and the end appear without reopening the viewer.
    await t.waitForAll(["→ SECOND-TOOL-OUT", "→ LIVE-TASK-DONE", "· succeeded ·"], 60_000);
    await t.press("q");
    await t.waitForNoText("Subagent trace ·");
    // Without an id: a picker of the recent delegations, newest first; Enter opens the viewer on it.
    await t.submit("/subagent-trace");
    await t.waitForAll(["Trace which delegation?", "worker succeeded", "batch of 2: 2 succeeded"]);
    await t.press("Enter");
    await t.waitForAll([`Subagent trace · task ${taskId}`, "→ LIVE-TASK-DONE"]);
    await t.press("q");
    await t.waitForNoText("Subagent trace ·");
    expect(await t.quit()).toBe(0);
    await t.dispose();
    expect(await waitForNoProcesses(suite.env.marker)).toEqual([]);
  });
});

/** The main agent's tool results of a print-mode run, in order. */
function mainToolResults(): string[] {
  const last = suite.fake.requests.filter((r) => isParent(r) && r.lastRole === "tool").at(-1);
  return (last?.messages ?? []).filter((m) => m.role === "tool").map(messageText);
}

/** A span as both sides can be compared: what the receiver got and what `--json` wrote. */
function comparable(span: Span | ReceivedSpan) {
  const kind = "statusCode" in span ? span.kind : span.kind === "CLIENT" ? 3 : 1;
  const status = "statusCode" in span ? span.statusCode : ({ UNSET: 0, OK: 1, ERROR: 2 } as const)[span.status.code];
  return {
    traceId: span.traceId,
    spanId: span.spanId,
    parentSpanId: span.parentSpanId,
    name: span.name,
    kind,
    status,
    startTimeUnixNano: span.startTimeUnixNano,
    endTimeUnixNano: span.endTimeUnixNano,
    attributes: span.attributes,
  };
}

const bySpanId = (a: { spanId: string }, b: { spanId: string }) => a.spanId.localeCompare(b.spanId);

describe("the export to an OpenTelemetry collector (OTEL_EXPORTER_OTLP_ENDPOINT)", () => {
  it("sends each finished delegation as the spans --json writes: a task on its own, and a chain with its nested child", {
    tags: ["contract", "slow"],
  }, async () => {
    const receiver = await new OtlpReceiver().start();
    try {
      suite.newEnv({ workerFrontmatter: "tools: read, bash, subagent" });
      const solo = {
        agent: "worker",
        task: `Solo job. ${fakeDirective([
          { toolCalls: [{ name: "bash", arguments: { command: "echo SOLO-TOOL" } }] },
          { text: "SOLO-DONE" },
        ])}`,
      };
      const prompt = `Delegate twice. ${fakeDirective([
        { toolCalls: [{ name: "subagent", arguments: solo }] },
        { toolCalls: [{ name: "subagent", arguments: chainOfTwo() }] },
        { text: "ALL-DONE" },
      ])}`;
      const run = await runPi(["-e", EXTENSION_ENTRY, "-p", prompt], {
        env: {
          ...suite.env.env,
          PI_SUBAGENT_MAX_DEPTH: "2",
          OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
          OTEL_SERVICE_NAME: "trace-e2e",
        },
        cwd: suite.env.workDir,
        timeoutMs: 120_000,
      });
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).not.toContain("could not send the trace");
      const [single, chained] = mainToolResults();
      const taskId = new RegExp(`\\[subagent session: (${UUID})\\]`).exec(single ?? "")?.[1];
      const chainId = new RegExp(`^chainId: (${UUID})$`, "m").exec(chained ?? "")?.[1];
      expect([taskId, chainId].every(Boolean), `${single}\n${chained}`).toBe(true);

      // pi has exited: both exports arrived before it did, one request each; no subagent sent one of its own.
      const hex = (id: string) => id.replace(/-/g, "");
      expect(receiver.requests.map((spans) => [...new Set(spans.map((span) => span.traceId))])).toEqual([
        [hex(taskId!)],
        [hex(chainId!)],
      ]);
      const [soloSpans, chainSpans] = receiver.requests as [ReceivedSpan[], ReceivedSpan[]];
      expect(new Set([...soloSpans, ...chainSpans].map((span) => span.service))).toEqual(new Set(["trace-e2e"]));
      // The chain's tree: the nested child inside the chain's trace, under the second step's subagent call.
      expectChainSpans(chainSpans as unknown as Span[]);

      // The same spans as `--json` writes, from a later pi: ids, parents, names, kinds, times, attributes.
      for (const [id, received] of [
        [taskId!, soloSpans],
        [chainId!, chainSpans],
      ] as const) {
        const written = await printPi(`/subagent-trace ${id} --json ${id}.jsonl`);
        expect(written.code, written.stderr).toBe(0);
        const file = readSpans(join(suite.env.workDir, `${id}.jsonl`));
        expect(received.map(comparable).sort(bySpanId)).toEqual(file.map(comparable).sort(bySpanId));
      }
      expect(soloSpans.map((span) => span.name)).toEqual(
        expect.arrayContaining(["invoke_agent worker", "execute_tool bash"]),
      );
      expect(await waitForNoProcesses(suite.env.marker)).toEqual([]);
    } finally {
      await receiver.stop();
    }
  });

  it("with the collector down, the delegations succeed, pi exits in normal time, and one warning says so", {
    tags: ["contract", "slow"],
  }, async () => {
    suite.newEnv();
    const endpoint = await closedEndpoint();
    const task = (answer: string) => ({ agent: "worker", task: `Job. ${fakeDirective({ text: answer })}` });
    const prompt = `Delegate twice. ${fakeDirective([
      { toolCalls: [{ name: "subagent", arguments: task("ONE-DONE") }] },
      { toolCalls: [{ name: "subagent", arguments: task("TWO-DONE") }] },
      { text: "ALL-DONE" },
    ])}`;
    const run = await runPi(["-e", EXTENSION_ENTRY, "-p", prompt], {
      // The exporter alone would retry for up to 30 s; a pi about to exit gives it 2 s at most.
      env: { ...suite.env.env, OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_EXPORTER_OTLP_TIMEOUT: "30000" },
      cwd: suite.env.workDir,
      timeoutMs: 120_000,
    });
    const exitedAt = Date.now();
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("ALL-DONE");
    const results = mainToolResults();
    expect(results.map((text) => text.split("\n")[0])).toEqual(["ONE-DONE", "TWO-DONE"]);
    const warnings = run.stderr.split("\n").filter((line) => line.includes("could not send the trace"));
    expect(warnings, run.stderr).toHaveLength(1);
    expect(warnings[0]).toContain(`OpenTelemetry collector at ${endpoint}/v1/traces`);
    // Normal time: pi was gone well before the exporter's own 30 s, counted from the second task's end.
    const secondId = new RegExp(`\\[subagent session: (${UUID})\\]`).exec(results[1] ?? "")?.[1];
    const record = JSON.parse(
      readFileSync(join(suite.env.agentDir, "subagent-sessions", secondId!, "record.json"), "utf8"),
    ) as { finishedAt: number; status: string };
    expect(record.status).toBe("succeeded");
    expect(exitedAt - record.finishedAt).toBeLessThan(10_000);
    expect(await waitForNoProcesses(suite.env.marker)).toEqual([]);
  });
});
