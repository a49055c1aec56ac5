import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AgentDefinition } from "../../../src/agents/parse.ts";
import { emptyLayer, type LoadedConfig } from "../../../src/config/load.ts";
import { sessionFilePath, taskDir } from "../../../src/run/session-files.ts";
import { isTaskId } from "../../../src/shared/nesting.ts";
import { prepareDispatch, type DispatchEnvironment, type PreparedRun } from "../../../src/tool/prepare-dispatch.ts";
import type { DispatchRequest } from "../../../src/tool/validate.ts";

let root: string;
let env: DispatchEnvironment;
const prepared: PreparedRun[] = [];

function agent(fields: Partial<AgentDefinition> = {}): AgentDefinition {
  return {
    name: "coder",
    description: "writes code",
    body: "You are a careful coder.\n",
    source: "project",
    filePath: "/p/coder.md",
    ...fields,
  };
}

function request(fields: Partial<DispatchRequest> = {}): DispatchRequest {
  return {
    kind: "dispatch",
    agent: agent(),
    task: "Add a test",
    agentScope: "both",
    confirmProjectAgents: false,
    ...fields,
  };
}

function config(processEntries: LoadedConfig["process"]["entries"] = {}): LoadedConfig {
  const process = emptyLayer("process");
  Object.assign(process.entries, processEntries);
  return { user: emptyLayer("user"), project: emptyLayer("project"), process, models: { models: [] }, warnings: [] };
}

function prepare(req = request(), dispatchEnv = env, cfg = config()) {
  const result = prepareDispatch(req, dispatchEnv, cfg);
  if (result.ok) prepared.push(result.run);
  return result;
}

function ok(result: ReturnType<typeof prepareDispatch>): PreparedRun {
  if (!result.ok) throw new Error(result.message);
  return result.run;
}

const flagValue = (args: string[], flag: string) => args[args.indexOf(flag) + 1];

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "pi-subagent-prepare-"));
  const cwd = join(root, "work");
  mkdirSync(cwd);
  const entry = join(root, "cli.js");
  writeFileSync(entry, "");
  env = {
    agentDir: join(root, "agent"),
    cwd,
    inheritedModel: "main/current-model",
    parentDepth: 0,
    baseEnv: { PATH: "/usr/bin" },
    argv: [
      process.execPath,
      entry,
      "-e",
      "./ext.ts",
      "--extension",
      "/abs/ext.ts",
      "-e",
      "lib/ext.ts",
      "-e",
      "npm:pi-ext",
    ],
    home: join(root, "home"),
  };
});

afterEach(() => {
  for (const run of prepared.splice(0)) run.release();
  rmSync(root, { recursive: true, force: true });
});

describe("prepareDispatch: checks before anything is created", () => {
  it("names a working directory that does not exist", () => {
    const missing = join(root, "nowhere");
    expect(prepare(request(), { ...env, cwd: missing })).toEqual({
      ok: false,
      message: `Cannot start the subagent: the working directory ${missing} does not exist.`,
    });
    expect(existsSync(join(env.agentDir, "subagent-sessions"))).toBe(false);
  });

  it("names a working directory that is a file", () => {
    const file = join(root, "cli.js");
    expect(prepare(request(), { ...env, cwd: file })).toEqual({
      ok: false,
      message: `Cannot start the subagent: the working directory ${file} is not a directory.`,
    });
  });

  it("names a missing pi entry", () => {
    const gone = join(root, "gone.js");
    expect(prepare(request(), { ...env, argv: [process.execPath, gone] })).toEqual({
      ok: false,
      message: `Cannot start the subagent: the pi entry script ${gone} does not exist.`,
    });
    expect(existsSync(join(env.agentDir, "subagent-sessions"))).toBe(false);
  });
});

describe("prepareDispatch: the child mode and the task's size", () => {
  it("PI_SUBAGENT_CHILD_MODE=json gives the JSON fallback child", () => {
    const run = ok(prepare(request(), { ...env, baseEnv: { ...env.baseEnv, PI_SUBAGENT_CHILD_MODE: "json" } }));
    expect(run.command.mode).toBe("json");
    expect(run.command.args.slice(1, 5)).toEqual(["--mode", "json", "-p", "--offline"]);
  });

  it("a 200 KiB task is accepted for the RPC child", () => {
    const run = ok(prepare(request({ task: "x".repeat(200 * 1024) })));
    expect(run.command.prompt).toHaveLength(200 * 1024 + "Task: ".length);
  });

  it("a task over one argument's limit is refused in the JSON mode before any session exists", () => {
    const result = prepare(request({ task: "x".repeat(200 * 1024) }), {
      ...env,
      baseEnv: { PI_SUBAGENT_CHILD_MODE: "json" },
    });
    expect(result.ok).toBe(false);
    expect(!result.ok && result.message).toMatch(
      /^The task is 204806 bytes long; with PI_SUBAGENT_CHILD_MODE=json .* limited to 131071 bytes\. .*unset PI_SUBAGENT_CHILD_MODE/,
    );
    expect(existsSync(join(env.agentDir, "subagent-sessions"))).toBe(false);
  });
});

describe("prepareDispatch: a fresh session", () => {
  it("creates the session file under a new UUID v7 and points the child at it", () => {
    const run = ok(prepare());
    expect(isTaskId(run.taskId)).toBe(true);
    expect(run.resumed).toBe(false);
    expect(run.sessionFile).toBe(sessionFilePath(env.agentDir, run.taskId));
    expect(JSON.parse(readFileSync(run.sessionFile, "utf8"))).toMatchObject({
      type: "session",
      id: run.taskId,
      cwd: env.cwd,
    });
    expect(run.command.command).toBe(process.execPath);
    expect(run.command.args.slice(0, 6)).toEqual([
      env.argv[1],
      "--mode",
      "rpc",
      "--offline",
      "--session",
      run.sessionFile,
    ]);
    expect(run.command.prompt).toBe("Task: Add a test");
    expect(run.command.env).toMatchObject({ PATH: "/usr/bin", PI_SUBAGENT_DEPTH: "1", PI_CURRENT_AGENT_NAME: "coder" });
    expect(run.cwd).toBe(env.cwd);
  });

  it("forwards the parent's extensions, relative ones made absolute against the parent's directory", () => {
    const { args } = ok(prepare()).command;
    const extensions = args.flatMap((arg, i) => (arg === "-e" ? [args[i + 1]] : []));
    expect(extensions).toEqual([
      resolve(process.cwd(), "./ext.ts"),
      "/abs/ext.ts",
      resolve(process.cwd(), "lib/ext.ts"),
      "npm:pi-ext",
    ]);
  });

  it("writes the agent body to a private file in the task's folder (never the temp folder) that release removes", () => {
    const run = ok(prepare());
    const file = flagValue(run.command.args, "--append-system-prompt")!;
    expect(file).toBe(join(taskDir(env.agentDir, run.taskId), "agent-prompt.md"));
    expect(readFileSync(file, "utf8")).toBe("You are a careful coder.\n");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    run.release();
    expect(existsSync(file)).toBe(false);
    run.release();
  });

  it("passes no system prompt file for an agent without a body", () => {
    expect(ok(prepare(request({ agent: agent({ body: "  \n" }) }))).command.args).not.toContain(
      "--append-system-prompt",
    );
  });

  it("uses the main agent's model when nothing else sets one, and no thinking level", () => {
    const run = ok(prepare());
    expect(flagValue(run.command.args, "--model")).toBe("main/current-model");
    expect(run.command.args).not.toContain("--thinking");
    expect(run.resolved.model).toEqual({ value: "main/current-model", source: "inherited" });
  });

  it("takes model and thinking from the config layers over the frontmatter", () => {
    const run = ok(
      prepare(
        request({ agent: agent({ model: "fm/model", thinking: "low" }) }),
        env,
        config({ coder: { model: "proc/model", thinking: "high" } }),
      ),
    );
    expect(flagValue(run.command.args, "--model")).toBe("proc/model");
    expect(flagValue(run.command.args, "--thinking")).toBe("high");
  });

  it("passes thinking max as xhigh and says so", () => {
    const run = ok(prepare(request({ agent: agent({ thinking: "max" }) })));
    expect(flagValue(run.command.args, "--thinking")).toBe("xhigh");
    expect(run.notes).toContain("thinking level max was passed to pi as xhigh, the strongest level pi 0.73.1 accepts");
  });

  it("passes the tool allowlist", () => {
    expect(flagValue(ok(prepare(request({ agent: agent({ tools: ["read", "grep"] }) }))).command.args, "--tools")).toBe(
      "read,grep",
    );
  });

  it("resolves skills, dropping one that escapes the working directory with a note", () => {
    const run = ok(prepare(request({ agent: agent({ skills: ["skills/lint", "../elsewhere", "~/my-skill"] }) })));
    const { args } = run.command;
    expect(args).toContain("--no-skills");
    expect(args.flatMap((arg, i) => (arg === "--skill" ? [args[i + 1]] : []))).toEqual([
      join(env.cwd, "skills/lint"),
      join(env.home, "my-skill"),
    ]);
    expect(run.notes).toEqual(['skill path "../elsewhere" leaves the working directory and was not loaded']);
  });

  it("keeps global skills when the agent has no skills key", () => {
    expect(ok(prepare()).command.args).not.toContain("--no-skills");
  });
});

describe("prepareDispatch: resuming", () => {
  it("continues the same session file", () => {
    const first = ok(prepare());
    first.release();
    const again = ok(prepare(request({ sessionId: first.taskId })));
    expect(again).toMatchObject({ taskId: first.taskId, resumed: true, sessionFile: first.sessionFile });
    expect(flagValue(again.command.args, "--session")).toBe(first.sessionFile);
  });

  it("refuses an id with no session here", () => {
    const id = "01912345-6789-7abc-8def-0123456789ab";
    expect(prepare(request({ sessionId: id }))).toEqual({
      ok: false,
      message: `No subagent session ${id} exists here. Omit sessionId to start a fresh session, or pass exactly an id that an earlier subagent call returned.`,
    });
    expect(existsSync(join(env.agentDir, "subagent-sessions", id))).toBe(false);
  });

  it("refuses a second run on a session that is running, and allows it after release", () => {
    const first = ok(prepare());
    const second = prepare(request({ sessionId: first.taskId, agent: agent({ name: "writer" }) }));
    expect(second).toEqual({
      ok: false,
      message: `Session ${first.taskId} is already running (agent coder, in this pi). Wait for its result before resuming it: two runs on one session at the same time would corrupt it.`,
    });
    first.release();
    expect(prepare(request({ sessionId: first.taskId })).ok).toBe(true);
  });
});
