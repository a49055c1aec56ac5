/**
 * MCP under the tool ceiling (pi 1.x; pi 0.73.1 has no MCP), with the real pi and a small stdio MCP server of the
 * test tree (test/e2e/fixtures/mcp-probe-server.ts) that logs every start and call with the agent it ran under: a
 * child that may reach no MCP tool starts no server and has no MCP tool or `codemode`; an agent's `mcp` entries give
 * its child those servers' tools and no other's; what the main session cannot reach (`--no-mcp`, `--exclude-tools`)
 * no child reaches, and the result says what was cut. `disallowedTools` removes a tool after everything else.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isWorkerRequest, useE2eSuite } from "../harness/e2e-suite.ts";
import { fakeDirective, type FakeRequest } from "../harness/fake-model.ts";
import {
  childAsked,
  mainToolResults,
  printWithExtension,
  scriptedTask,
  subagentCall,
} from "../harness/child-scripts.ts";
import { EXTENSION_ENTRY, PI_NODE, REPO_ROOT, runPi } from "../harness/pi-env.ts";
import { parsePiLine, PI_LINE_VAR } from "../harness/pi-under-test.ts";
import { waitForNoProcesses } from "../harness/processes.ts";
import { bwrapInSystemDirs } from "../../src/sandbox/sandbox-layout.ts";

const suite = useE2eSuite();
const onPi1 = parsePiLine(process.env[PI_LINE_VAR]) === "1";
const NO_BWRAP = bwrapInSystemDirs() === undefined;
const PROBE = join(REPO_ROOT, "test", "e2e", "fixtures", "mcp-probe-server.ts");

interface ProbeEvent {
  server: string;
  pid: number;
  event: "start" | "call" | "end";
  agent?: string | null;
  tool?: string;
}

/** `mcp.json` in the agent dir with the probe server under each name; returns the servers' shared log. */
function configureServers(names: string[], exposure: "direct" | "codemode" = "direct"): string {
  const log = join(suite.env.root, "mcp-probe.log");
  const mcpServers = Object.fromEntries(
    names.map((name) => [name, { command: PI_NODE, args: [PROBE, log, name], exposure }]),
  );
  suite.env.writeAgentDirFile("mcp.json", JSON.stringify({ mcpServers }, null, 2));
  return log;
}

function probeEvents(log: string): ProbeEvent[] {
  if (!existsSync(log)) return [];
  return readFileSync(log, "utf8")
    .trim()
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as ProbeEvent);
}

/** Which agents started a server: `main` for the main pi (no agent name in its environment). */
function startedBy(log: string, server: string): string[] {
  return probeEvents(log)
    .filter((event) => event.event === "start" && event.server === server)
    .map((event) => event.agent ?? "main")
    .sort();
}

const printPi = (args: string[], prompt: string) => printWithExtension(suite.env, args, prompt);

const toolResults = () => mainToolResults(suite.fake);

const mcpTools = (req: FakeRequest) => req.tools.filter((tool) => tool.startsWith("mcp__") || tool === "codemode");

describe.skipIf(!onPi1)("MCP under the tool ceiling (pi 1.x, print mode)", () => {
  it("gives a child of a --no-mcp session no MCP tool and starts no server", async () => {
    suite.newEnv();
    const log = configureServers(["probe"]);
    const prompt = `Delegate. ${fakeDirective([subagentCall({ agent: "general-purpose", task: scriptedTask("Look. GP-NOMCP", { text: "GP-NOMCP-DONE" }) })])}`;
    const run = await printPi(["--no-mcp"], prompt);
    expect(run.code, run.stderr).toBe(0);
    const child = await suite.fake.waitForRequest(childAsked("GP-NOMCP"), 30_000, "the general-purpose child");
    expect(child.tools).toEqual(expect.arrayContaining(["read", "bash", "edit", "write"]));
    expect(mcpTools(child)).toEqual([]);
    expect(toolResults().find((text) => text.includes("GP-NOMCP-DONE"))).toBeDefined();
    expect(startedBy(log, "probe")).toEqual([]);
    expect(await waitForNoProcesses(suite.env.marker)).toEqual([]);
  });

  it("starts no server for explore in a session that has MCP: the server runs for the main pi only", async () => {
    suite.newEnv();
    const log = configureServers(["probe"], "codemode");
    const prompt = `Delegate. ${fakeDirective([subagentCall({ agent: "explore", task: scriptedTask("Search. EX-MCP", { text: "EX-MCP-DONE" }) })])}`;
    const run = await printPi([], prompt);
    expect(run.code, run.stderr).toBe(0);
    const main = suite.fake.requests[0];
    expect(main?.tools).toContain("codemode");
    const child = await suite.fake.waitForRequest(childAsked("EX-MCP"), 30_000, "the explore child");
    expect(mcpTools(child)).toEqual([]);
    expect(toolResults().find((text) => text.includes("EX-MCP-DONE"))).not.toContain("not granted");
    expect(startedBy(log, "probe")).toEqual(["main"]);
  });

  it("gives an agent with mcp: [probe] the probe's tools and no other server's", async () => {
    suite.newEnv({ workerFrontmatter: "mcp: [probe]" });
    const log = configureServers(["probe", "other"]);
    const childTask = scriptedTask("Use the probe. WK-MCP", [
      { toolCalls: [{ name: "mcp__probe__echo", arguments: { text: "hello from the worker" } }] },
      { text: "WK-MCP-DONE" },
    ]);
    const prompt = `Delegate. ${fakeDirective([subagentCall({ agent: "worker", task: childTask })])}`;
    const run = await printPi([], prompt);
    expect(run.code, run.stderr).toBe(0);
    const child = await suite.fake.waitForRequest(
      (req) => isWorkerRequest(req) && req.lastText.includes("WK-MCP"),
      30_000,
      "the worker child",
    );
    expect(mcpTools(child).sort()).toEqual(["mcp__probe__echo", "mcp__probe__secret"]);
    const echoed = await suite.fake.waitForRequest(
      (req) => isWorkerRequest(req) && req.lastText.includes("probe echo: hello from the worker"),
      30_000,
      "the worker's MCP call answered",
    );
    expect(echoed.lastRole).toBe("tool");
    const workerProbe = probeEvents(log).find(
      (event) => event.event === "start" && event.server === "probe" && event.agent === "worker",
    );
    expect(probeEvents(log).filter((event) => event.event === "call")).toEqual([
      expect.objectContaining({ server: "probe", tool: "echo", pid: workerProbe?.pid }),
    ]);
    expect(startedBy(log, "probe")).toEqual(["main", "worker"]);
    expect(startedBy(log, "other")).toEqual(["main"]);
  });

  it.skipIf(NO_BWRAP)(
    "runs a sandboxed agent's MCP servers inside its sandbox, where its calls still work",
    async () => {
      suite.newEnv({ workerFrontmatter: "mcp: [probe]\nsandbox: read-only" });
      const log = configureServers(["probe"]);
      const childTask = scriptedTask("Use the probe. SB-MCP", [
        { toolCalls: [{ name: "mcp__probe__echo", arguments: { text: "from the sandbox" } }] },
        { text: "SB-MCP-DONE" },
      ]);
      const run = await printPi([], `Delegate. ${fakeDirective([subagentCall({ agent: "worker", task: childTask })])}`);
      expect(run.code, run.stderr).toBe(0);
      await suite.fake.waitForRequest(
        (req) => isWorkerRequest(req) && req.lastText.includes("probe echo: from the sandbox"),
        30_000,
        "the sandboxed worker's MCP call answered",
      );
      // The server the child started ran inside its sandbox (its own /tmp, a read-only root): it never wrote the host's
      // log, where only the main pi's server is.
      expect(startedBy(log, "probe")).toEqual(["main"]);
      expect(await waitForNoProcesses(suite.env.marker)).toEqual([]);
    },
  );

  it("bounds a grandchild by its child: it reaches only the servers its child reaches", async () => {
    suite.newEnv({ workerFrontmatter: "mcp: [probe]" });
    const log = configureServers(["probe", "other"]);
    suite.env.writeAgentDirFile(
      "agents/helper.md",
      "---\nname: helper\ndescription: A helper with two servers\nmcp: [probe, other]\n---\nHELPER-BODY\n",
    );
    const grandTask = scriptedTask("Leaf. GRAND-MCP", { text: "GRAND-MCP-DONE" });
    const childTask = scriptedTask("Middle. CHILD-MCP", [
      subagentCall({ agent: "helper", task: grandTask }),
      { text: "MID-DONE" },
    ]);
    const prompt = `Delegate. ${fakeDirective([subagentCall({ agent: "worker", task: childTask })])}`;
    const run = await runPi(["-e", EXTENSION_ENTRY, "-p", prompt], {
      env: suite.env.env,
      cwd: suite.env.workDir,
      timeoutMs: 90_000,
      extraEnv: { PI_SUBAGENT_MAX_DEPTH: "2" },
    });
    expect(run.code, run.stderr).toBe(0);
    const grandchild = await suite.fake.waitForRequest(childAsked("GRAND-MCP"), 30_000, "the grandchild");
    expect(mcpTools(grandchild).sort()).toEqual(["mcp__probe__echo", "mcp__probe__secret"]);
    const childSaw = suite.fake.requests.find(
      (req) => isWorkerRequest(req) && req.lastRole === "tool" && req.lastText.includes("GRAND-MCP-DONE"),
    );
    expect(childSaw?.lastText).toContain(
      "[subagent tools not granted: other (not among the main session's MCP tools: --tools)]",
    );
    expect(startedBy(log, "probe")).toEqual(["helper", "main", "worker"]);
    expect(startedBy(log, "other")).toEqual(["main"]);
    expect(await waitForNoProcesses(suite.env.marker)).toEqual([]);
  });

  it("cuts an agent's MCP server the main session excludes, and says so", async () => {
    suite.newEnv({ workerFrontmatter: "mcp: [probe]" });
    const log = configureServers(["probe"]);
    const prompt = `Delegate. ${fakeDirective([subagentCall({ agent: "worker", task: scriptedTask("Try. WK-EXCL", { text: "WK-EXCL-DONE" }) })])}`;
    const run = await printPi(["--exclude-tools", "mcp__probe__*"], prompt);
    expect(run.code, run.stderr).toBe(0);
    const child = await suite.fake.waitForRequest(
      (req) => isWorkerRequest(req) && req.lastText.includes("WK-EXCL"),
      30_000,
      "the worker child",
    );
    expect(mcpTools(child)).toEqual([]);
    expect(toolResults().find((text) => text.includes("WK-EXCL-DONE"))).toContain(
      "[subagent tools not granted: probe (excluded in the main session: --exclude-tools mcp__probe__*)]",
    );
    expect(startedBy(log, "probe")).toEqual(["main"]);
  });
});

describe("disallowedTools (print mode)", () => {
  it("removes bash from an agent that disallows it, after everything else", { tags: ["contract"] }, async () => {
    suite.newEnv({ workerFrontmatter: "disallowedTools: bash" });
    const prompt = `Delegate. ${fakeDirective([subagentCall({ agent: "worker", task: scriptedTask("Work. WK-DIS", { text: "WK-DIS-DONE" }) })])}`;
    const run = await printPi([], prompt);
    expect(run.code, run.stderr).toBe(0);
    const child = await suite.fake.waitForRequest(
      (req) => isWorkerRequest(req) && req.lastText.includes("WK-DIS"),
      30_000,
      "the worker child",
    );
    expect(child.tools).toEqual(expect.arrayContaining(["read", "edit", "write"]));
    expect(child.tools).not.toContain("bash");
    expect(toolResults().find((text) => text.includes("WK-DIS-DONE"))).not.toContain("not granted");
  });

  it("removes bash from general-purpose through the person's config entry", { tags: ["contract"] }, async () => {
    suite.newEnv();
    suite.env.writeAgentDirFile(
      "subagent-isolation.json",
      JSON.stringify({ "general-purpose": { disallowedTools: ["bash"] } }),
    );
    const prompt = `Delegate. ${fakeDirective([subagentCall({ agent: "general-purpose", task: scriptedTask("Work. GP-DIS", { text: "GP-DIS-DONE" }) })])}`;
    const run = await printPi([], prompt);
    expect(run.code, run.stderr).toBe(0);
    const child = await suite.fake.waitForRequest(childAsked("GP-DIS"), 30_000, "the general-purpose child");
    expect(child.tools).toEqual(expect.arrayContaining(["read", "edit", "write"]));
    expect(child.tools).not.toContain("bash");
  });

  it("holds for the agent's own children: its general-purpose grandchild gets no bash", {
    tags: ["contract"],
  }, async () => {
    suite.newEnv({ workerFrontmatter: "disallowedTools: bash" });
    const grandTask = scriptedTask("Leaf. GRAND-DIS", { text: "GRAND-DIS-DONE" });
    const childTask = scriptedTask("Middle. CHILD-DIS", [
      subagentCall({ agent: "general-purpose", task: grandTask }),
      { text: "MID-DIS-DONE" },
    ]);
    const prompt = `Delegate. ${fakeDirective([subagentCall({ agent: "worker", task: childTask })])}`;
    const run = await runPi(["-e", EXTENSION_ENTRY, "-p", prompt], {
      env: suite.env.env,
      cwd: suite.env.workDir,
      timeoutMs: 90_000,
      extraEnv: { PI_SUBAGENT_MAX_DEPTH: "2" },
    });
    expect(run.code, run.stderr).toBe(0);
    const grandchild = await suite.fake.waitForRequest(childAsked("GRAND-DIS"), 30_000, "the grandchild");
    expect(grandchild.tools).toEqual(expect.arrayContaining(["read", "edit", "write"]));
    expect(grandchild.tools).not.toContain("bash");
    expect(await waitForNoProcesses(suite.env.marker)).toEqual([]);
  });
});
