/**
 * Warm children's pure part: the setting, which calls may be served warm, the command line of a child started ahead
 * (a cold child's with another task id), when two children are started the same way, the files pi reads as it
 * starts, and `/subagent-usage`'s lines.
 */
import { describe, expect, it } from "vitest";
import type { ChildCommand } from "../../../src/run/command-line.ts";
import {
  commandForTask,
  DEFAULT_WARM_CHILDREN,
  DEFAULT_WARM_IDLE_MS,
  readWarmSettings,
  sameLaunch,
  startupInputs,
  warmableCall,
  warmChildrenLines,
} from "../../../src/warm/warm-launch.ts";

const FROM = "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b";
const TO = "0190ffff-0000-7000-8000-000000000001";

function command(id: string): ChildCommand {
  return {
    command: "/usr/bin/bwrap",
    args: ["--mode", "rpc", "--session", `/a/subagent-sessions/${id}/session.jsonl`, "--tools", "read"],
    env: { PI_SUBAGENT_TASK_ID: id, PI_SUBAGENT_DEPTH: "1", HOME: "/h", UNSET: undefined },
    mode: "rpc",
    prompt: "Task: x",
    handIn: [{ loginCopyOf: "/a/auth.json" }, `/tmp/jiti/${id}.json`, "/dev/null"],
    mountPoints: ["/w/.pi"],
    sandboxArgs: ["--bind", `/a/subagent-sessions/${id}`, `/a/subagent-sessions/${id}`],
  };
}

const none = { user: {}, project: {} };

describe("the $warmChildren setting", () => {
  it("is on with two children and three idle minutes by default", () => {
    expect(readWarmSettings(none, {})).toEqual({
      max: DEFAULT_WARM_CHILDREN,
      idleMs: DEFAULT_WARM_IDLE_MS,
      warnings: [],
    });
    expect(DEFAULT_WARM_CHILDREN).toBe(2);
    expect(DEFAULT_WARM_IDLE_MS).toBe(180_000);
  });

  it("takes the user file's number, and the variable over it", () => {
    expect(readWarmSettings({ user: { settings: { $warmChildren: 0 } }, project: {} }, {}).max).toBe(0);
    expect(readWarmSettings({ user: { settings: { $warmChildren: 4 } }, project: {} }, {}).max).toBe(4);
    expect(
      readWarmSettings({ user: { settings: { $warmChildren: 4 } }, project: {} }, { PI_SUBAGENT_WARM_CHILDREN: "0" })
        .max,
    ).toBe(0);
    expect(readWarmSettings(none, { PI_SUBAGENT_WARM_IDLE_MS: "1500" }).idleMs).toBe(1500);
  });

  it("warns about a bad value and keeps the default; a project file cannot set it", () => {
    const bad = readWarmSettings(
      { user: { settings: { $warmChildren: "lots" }, filePath: "/u.json" }, project: {} },
      {},
    );
    expect(bad.max).toBe(2);
    expect(bad.warnings).toEqual([
      'pi-subagent-dispatch: /u.json: "$warmChildren" must be a whole number from 0 to 8; using 2',
    ]);
    expect(readWarmSettings({ user: { settings: { $warmChildren: 9 } }, project: {} }, {}).max).toBe(2);
    expect(readWarmSettings(none, { PI_SUBAGENT_WARM_CHILDREN: "-1" }).warnings).toEqual([
      "pi-subagent-dispatch: PI_SUBAGENT_WARM_CHILDREN: -1 must be a whole number from 0 to 8; using 2",
    ]);
    const project = readWarmSettings(
      { user: {}, project: { settings: { $warmChildren: 8 }, filePath: "/p/.pi/subagent-isolation.json" } },
      {},
    );
    expect(project.max).toBe(2);
    expect(project.warnings).toEqual([
      'pi-subagent-dispatch: /p/.pi/subagent-isolation.json: "$warmChildren" can only be set in your user-level subagent-isolation.json; ignored',
    ]);
    expect(readWarmSettings(none, { PI_SUBAGENT_WARM_IDLE_MS: "0" }).idleMs).toBe(DEFAULT_WARM_IDLE_MS);
  });
});

describe("which calls may be served warm", () => {
  it("a new session, in the session's folder, driven over RPC", () => {
    const call = { resumed: false, forked: false, mode: "rpc" as const };
    expect(warmableCall(call)).toBe(true);
    expect(warmableCall({ ...call, isolation: "none" })).toBe(true);
    expect(warmableCall({ ...call, resumed: true })).toBe(false);
    expect(warmableCall({ ...call, forked: true })).toBe(false);
    expect(warmableCall({ ...call, isolation: "worktree" })).toBe(false);
    expect(warmableCall({ ...call, mode: "json" })).toBe(false);
  });
});

describe("a warm child's command line", () => {
  it("is a cold child's of the other task id, in every path, variable and sandbox argument, without the prompt", () => {
    const warm = commandForTask(command(FROM), FROM, TO);
    expect(warm).toEqual({
      ...command(TO),
      env: { PI_SUBAGENT_TASK_ID: TO, PI_SUBAGENT_DEPTH: "1", HOME: "/h" },
      prompt: "",
    });
    expect(JSON.stringify(warm)).not.toContain(FROM);
  });

  it("is the same launch only when program, arguments, environment and sandbox all are", () => {
    const base = commandForTask(command(FROM), FROM, TO);
    expect(sameLaunch(base, command(TO))).toBe(true);
    expect(sameLaunch(base, { ...command(TO), prompt: "Task: another" })).toBe(true);
    expect(sameLaunch(base, { ...command(TO), args: [...command(TO).args, "--thinking", "high"] })).toBe(false);
    expect(sameLaunch(base, { ...command(TO), env: { ...command(TO).env, EXTRA: "1" } })).toBe(false);
    expect(sameLaunch(base, { ...command(TO), env: { ...command(TO).env, HOME: "/other" } })).toBe(false);
    expect(sameLaunch(base, { ...command(TO), handIn: [{ loginCopyOf: "/b/auth.json" }] })).toBe(false);
    expect(sameLaunch(base, { ...command(TO), mountPoints: [] })).toBe(false);
    expect(sameLaunch(base, { ...command(TO), sandboxArgs: undefined })).toBe(false);
    expect(sameLaunch(base, { ...command(TO), command: "/usr/bin/node" })).toBe(false);
    expect(sameLaunch(base, { ...command(TO), mode: "json" })).toBe(false);
  });
});

describe("what pi reads as it starts", () => {
  it("names pi's files in the agent dir and the project, context files up to the root, and the -e and --skill paths", () => {
    const inputs = startupInputs({
      cwd: "/w/app",
      agentDir: "/a",
      home: "/h",
      args: ["-e", "/x/ext.ts", "--skill", "/s/skill", "-e", "npm:thing", "--skill", "relative"],
      sandboxed: false,
    });
    expect(inputs.files).toEqual(
      expect.arrayContaining([
        "/a/settings.json",
        "/a/models.json",
        "/a/mcp.json",
        "/a/AGENTS.md",
        "/a/SYSTEM.md",
        "/a/APPEND_SYSTEM.md",
        "/w/app/.pi/settings.json",
        "/w/app/.pi/SYSTEM.md",
        "/w/app/AGENTS.md",
        "/w/app/CLAUDE.md",
        "/w/AGENTS.md",
        "/AGENTS.md",
      ]),
    );
    expect(inputs.files).not.toContain("/a/auth.json");
    expect(inputs.folders).toEqual(
      expect.arrayContaining([
        "/a/extensions",
        "/a/skills",
        "/w/app/.pi/extensions",
        "/w/app/.pi/skills",
        "/h/.agents/skills",
        "/w/.agents/skills",
        "/x/ext.ts",
        "/s/skill",
      ]),
    );
    expect(inputs.folders).not.toContain("npm:thing");
    expect(inputs.folders).not.toContain("relative");
  });

  it("includes the login a sandboxed child is handed", () => {
    const inputs = startupInputs({ cwd: "/w", agentDir: "/a", home: "/h", args: [], sandboxed: true });
    expect(inputs.files).toContain("/a/auth.json");
  });
});

describe("/subagent-usage's lines", () => {
  it("say whether the pool is off, empty, or which children wait, with their memory", () => {
    expect(warmChildrenLines([], 0)).toEqual(["Warm children: off ($warmChildren is 0)."]);
    expect(warmChildrenLines([], 2)).toEqual(["Warm children: none waiting (at most 2)."]);
    expect(
      warmChildrenLines(
        [
          { agent: "worker", cwd: "/w", pid: 42, idleMs: 12_400, rssKiB: 120 * 1024 },
          { agent: "scout", cwd: "/w/app", pid: 43, idleMs: 75_000 },
        ],
        2,
      ),
    ).toEqual([
      "Warm children: 2 waiting (at most 2), each started for the next task of its shape.",
      "  worker · /w · pid 42 · idle 12 s · 120 MiB",
      "  scout · /w/app · pid 43 · idle 1 min 15 s",
    ]);
  });
});
