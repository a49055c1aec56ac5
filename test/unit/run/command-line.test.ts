import { describe, expect, it } from "vitest";
import {
  buildChildCommand,
  extensionArgForChild,
  taskPrompt,
  type ChildCommandInput,
} from "../../../src/run/command-line.ts";
import { extensionArgsOf } from "../../../src/shared/this-process.ts";
import { toHostThinkingLevel } from "../../../src/shared/thinking.ts";

const NODE_PI = { command: "/usr/bin/node", prefixArgs: ["/opt/pi/dist/cli.js"] };

function input(overrides: Partial<ChildCommandInput> = {}): ChildCommandInput {
  return {
    pi: NODE_PI,
    sessionFile: "/agent/subagent-sessions/0190/session.jsonl",
    task: "Summarise README.md",
    agentName: "explore",
    parentDepth: 0,
    baseEnv: { PATH: "/usr/bin", HOME: "/home/me" },
    ...overrides,
  };
}

/** The value right after `flag`, asserting the flag appears exactly once. */
function valueOf(args: string[], flag: string): string | undefined {
  const at = args.indexOf(flag);
  if (at < 0) return undefined;
  expect(args.indexOf(flag, at + 1)).toBe(-1);
  return args[at + 1];
}

describe("buildChildCommand: the minimal command line", () => {
  it("runs the parent's node and pi entry in RPC mode, offline, on our session file, the prompt kept apart for stdin", () => {
    const command = buildChildCommand(input());
    expect(command.command).toBe("/usr/bin/node");
    expect(command.mode).toBe("rpc");
    expect(command.args).toEqual([
      "/opt/pi/dist/cli.js",
      "--mode",
      "rpc",
      "--offline",
      "--session",
      "/agent/subagent-sessions/0190/session.jsonl",
    ]);
    expect(command.prompt).toBe("Task: Summarise README.md");
  });

  it("in the JSON fallback mode runs `--mode json -p`, offline too; the runner appends the prompt", () => {
    const command = buildChildCommand(input({ mode: "json" }));
    expect(command.mode).toBe("json");
    expect(command.args).toEqual([
      "/opt/pi/dist/cli.js",
      "--mode",
      "json",
      "-p",
      "--offline",
      "--session",
      "/agent/subagent-sessions/0190/session.jsonl",
    ]);
    expect(command.prompt).toBe("Task: Summarise README.md");
  });

  it("runs a pi found on PATH without prefix arguments", () => {
    const command = buildChildCommand(input({ pi: { command: "/usr/local/bin/pi", prefixArgs: [] } }));
    expect(command.command).toBe("/usr/local/bin/pi");
    expect(command.args.slice(0, 5)).toEqual([
      "--mode",
      "rpc",
      "--offline",
      "--session",
      "/agent/subagent-sessions/0190/session.jsonl",
    ]);
  });

  it("passes none of the optional flags when nothing asks for them", () => {
    const { args } = buildChildCommand(input());
    for (const flag of ["-e", "--model", "--thinking", "--tools", "--no-skills", "--skill", "--append-system-prompt"]) {
      expect(args).not.toContain(flag);
    }
  });
});

describe("buildChildCommand: every optional flag", () => {
  const full = buildChildCommand(
    input({
      extraExtensions: ["/work/ext-a.ts", "npm:pi-ext-b"],
      model: "anthropic/claude-sonnet-4",
      thinking: toHostThinkingLevel("high"),
      tools: ["read", "grep", "find"],
      skills: ["/home/me/skills/a", "/work/skills/b"],
      systemPromptFile: "/tmp/pi-subagent-x/agent-prompt.md",
      task: "Review src/ for\nunused exports",
    }),
  );

  it("forwards each of the parent's -e extensions", () => {
    const extensions = full.args.flatMap((arg, i) => (arg === "-e" ? [full.args[i + 1]] : []));
    expect(extensions).toEqual(["/work/ext-a.ts", "npm:pi-ext-b"]);
  });

  it("passes model, thinking and the tool allowlist", () => {
    expect(valueOf(full.args, "--model")).toBe("anthropic/claude-sonnet-4");
    expect(valueOf(full.args, "--thinking")).toBe("high");
    expect(valueOf(full.args, "--tools")).toBe("read,grep,find");
  });

  it("turns global skills off and loads each listed skill", () => {
    expect(full.args.filter((arg) => arg === "--no-skills")).toHaveLength(1);
    const skills = full.args.flatMap((arg, i) => (arg === "--skill" ? [full.args[i + 1]] : []));
    expect(skills).toEqual(["/home/me/skills/a", "/work/skills/b"]);
  });

  it("appends the agent body from its file", () => {
    expect(valueOf(full.args, "--append-system-prompt")).toBe("/tmp/pi-subagent-x/agent-prompt.md");
  });

  it("keeps the `Task: <task>` prompt whole and out of the arguments", () => {
    expect(full.prompt).toBe("Task: Review src/ for\nunused exports");
    expect(full.args.filter((arg) => arg.startsWith("Task: "))).toHaveLength(0);
  });

  it("keeps the fixed part first", () => {
    expect(full.args.slice(0, 6)).toEqual([
      "/opt/pi/dist/cli.js",
      "--mode",
      "rpc",
      "--offline",
      "--session",
      "/agent/subagent-sessions/0190/session.jsonl",
    ]);
  });
});

describe("buildChildCommand: thinking levels", () => {
  it("maps max to xhigh, the strongest level pi 0.73.1 accepts", () => {
    expect(toHostThinkingLevel("max")).toBe("xhigh");
    expect(valueOf(buildChildCommand(input({ thinking: toHostThinkingLevel("max") })).args, "--thinking")).toBe(
      "xhigh",
    );
  });

  it("passes the other levels unchanged", () => {
    for (const level of ["off", "minimal", "low", "medium", "high", "xhigh"] as const) {
      expect(valueOf(buildChildCommand(input({ thinking: toHostThinkingLevel(level) })).args, "--thinking")).toBe(
        level,
      );
    }
  });
});

describe("buildChildCommand: skills", () => {
  it("an agent with an empty skills key gets --no-skills and no --skill", () => {
    const { args } = buildChildCommand(input({ skills: [] }));
    expect(args).toContain("--no-skills");
    expect(args).not.toContain("--skill");
  });
});

describe("buildChildCommand: environment", () => {
  it("sets the depth to the parent's + 1 and names the agent, keeping the rest of the environment", () => {
    const { env } = buildChildCommand(input({ parentDepth: 0, agentName: "coder" }));
    expect(env.PI_SUBAGENT_DEPTH).toBe("1");
    expect(env.PI_CURRENT_AGENT_NAME).toBe("coder");
    expect(env.PATH).toBe("/usr/bin");
    expect(env.HOME).toBe("/home/me");
  });

  it("overrides an inherited depth and agent name", () => {
    const { env } = buildChildCommand(
      input({
        parentDepth: 2,
        agentName: "writer",
        baseEnv: { PI_SUBAGENT_DEPTH: "2", PI_CURRENT_AGENT_NAME: "coder" },
      }),
    );
    expect(env.PI_SUBAGENT_DEPTH).toBe("3");
    expect(env.PI_CURRENT_AGENT_NAME).toBe("writer");
  });

  it("marks the task (PI_SUBAGENT_TASK_ID) and names the parent pi by pid and start time (PI_SUBAGENT_PARENT)", () => {
    const { env } = buildChildCommand(
      input({
        taskId: "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b",
        parent: { pid: 4242, start: "987654" },
        baseEnv: { PI_SUBAGENT_TASK_ID: "outer-task" },
      }),
    );
    expect(env.PI_SUBAGENT_TASK_ID).toBe("0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b");
    expect(env.PI_SUBAGENT_PARENT).toBe("4242:987654");
  });

  it("does not modify the base environment it was given", () => {
    const baseEnv = { PATH: "/bin" };
    buildChildCommand(input({ baseEnv }));
    expect(baseEnv).toEqual({ PATH: "/bin" });
  });
});

describe("taskPrompt", () => {
  it("prefixes the task", () => {
    expect(taskPrompt("do it")).toBe("Task: do it");
  });
});

describe("extensionArgsOf", () => {
  it("finds -e, --extension and --extension= values, in order", () => {
    expect(
      extensionArgsOf([
        "node",
        "cli.js",
        "-e",
        "./a.ts",
        "--model",
        "x",
        "--extension",
        "/b.ts",
        "--extension=c.ts",
        "-p",
        "hi",
      ]),
    ).toEqual(["./a.ts", "/b.ts", "c.ts"]);
  });

  it("ignores a trailing -e without a value and other flags", () => {
    expect(extensionArgsOf(["node", "cli.js", "-p", "hello", "-e"])).toEqual([]);
    expect(extensionArgsOf(["node", "cli.js"])).toEqual([]);
  });
});

describe("extensionArgForChild", () => {
  it("makes every local path absolute against the parent's directory, as pi resolves it", () => {
    expect(extensionArgForChild("./a.ts", "/start")).toBe("/start/a.ts");
    expect(extensionArgForChild("ext/b.ts", "/start")).toBe("/start/ext/b.ts");
    expect(extensionArgForChild("../c.ts", "/start/here")).toBe("/start/c.ts");
    expect(extensionArgForChild("/abs/d.ts", "/start")).toBe("/abs/d.ts");
  });

  it("leaves package and remote sources alone", () => {
    for (const source of [
      "npm:pi-ext@1.2.0",
      "git:github.com/a/b",
      "github:a/b",
      "https://example.com/x.ts",
      "http://x/y.ts",
      "ssh:git@host:a/b",
    ]) {
      expect(extensionArgForChild(source, "/start")).toBe(source);
    }
  });
});

describe("buildChildCommand: nesting and fork", () => {
  it("passes the tree's limit down (default 1) and names the enclosing tasks of a nested child", () => {
    expect(buildChildCommand(input()).env.PI_SUBAGENT_MAX_DEPTH).toBe("1");
    const top = buildChildCommand(input({ maxDepth: 2, taskId: "child-task" }));
    expect(top.env.PI_SUBAGENT_MAX_DEPTH).toBe("2");
    expect(top.env.PI_SUBAGENT_OUTER_TASK_IDS).toBeUndefined();
    const nested = buildChildCommand(
      input({
        parentDepth: 1,
        maxDepth: 3,
        taskId: "grandchild-task",
        baseEnv: { PI_SUBAGENT_TASK_ID: "child-task", PI_SUBAGENT_OUTER_TASK_IDS: "root-task" },
      }),
    );
    expect(nested.env.PI_SUBAGENT_TASK_ID).toBe("grandchild-task");
    expect(nested.env.PI_SUBAGENT_OUTER_TASK_IDS).toBe("root-task,child-task");
  });

  it("adds the subagent tool to an allowlist only where the child may dispatch", () => {
    const tools = (over: Partial<ChildCommandInput>) =>
      valueOf(buildChildCommand(input({ tools: ["read", "bash"], ...over })).args, "--tools");
    expect(tools({})).toBe("read,bash");
    expect(tools({ maxDepth: 2 })).toBe("read,bash,subagent");
    expect(tools({ maxDepth: 2, parentDepth: 1 })).toBe("read,bash");
    expect(tools({ maxDepth: 2, tools: ["subagent", "read"] })).toBe("subagent,read");
    expect(valueOf(buildChildCommand(input({ maxDepth: 2 })).args, "--tools")).toBeUndefined();
  });

  it("starts a child on a pi with MCP with --no-mcp, and hands its MCP patterns to its own MCP (pi 1.x)", () => {
    const none = buildChildCommand(input({ mcp: { exclude: [] }, baseEnv: { PI_SUBAGENT_MCP_TOOLS: "mcp__old__*" } }));
    expect(none.args).toContain("--no-mcp");
    expect(none.args).not.toContain("--exclude-tools");
    // An outer child's grant is never inherited.
    expect(none.env.PI_SUBAGENT_MCP_TOOLS).toBeUndefined();
    const some = buildChildCommand(
      input({ tools: ["read", "codemode", "mcp__probe__*"], mcp: { exclude: ["mcp__probe__secret", "bash"] } }),
    );
    expect(some.args).toContain("--no-mcp");
    expect(valueOf(some.args, "--tools")).toBe("read,codemode,mcp__probe__*");
    expect(valueOf(some.args, "--exclude-tools")).toBe("mcp__probe__secret,bash");
    expect(some.env.PI_SUBAGENT_MCP_TOOLS).toBe("mcp__probe__*");
    // pi 0.73.1 has no MCP and would refuse the flags.
    expect(buildChildCommand(input({ tools: ["read"] })).args).not.toContain("--no-mcp");
  });

  it("a forked child's prompt says whose conversation came before, then the task", () => {
    const { prompt } = buildChildCommand(input({ forked: true }));
    expect(prompt).toBe(
      "The conversation above is the main agent's, copied for you as context. You are a subagent with your own instructions and tools: do the task below and answer with its result.\n\nTask: Summarise README.md",
    );
    expect(buildChildCommand(input()).prompt).toBe("Task: Summarise README.md");
  });
});

describe("buildChildCommand: this package in the child", () => {
  it("passes every -e of the parent on, this package's too, also at the depth limit (its entry watches the parent, and registers nothing else there)", () => {
    const { args } = buildChildCommand(input({ extraExtensions: ["/pkg/extension.ts", "/work/other.ts"] }));
    expect(args[0]).toBe("/opt/pi/dist/cli.js");
    expect(args.filter((_, i) => args[i - 1] === "-e")).toEqual(["/pkg/extension.ts", "/work/other.ts"]);
  });

  it("starts a `pi` executable with pi's own arguments first", () => {
    const { args } = buildChildCommand(
      input({ pi: { command: "/usr/local/bin/pi", prefixArgs: [] }, extraExtensions: ["/pkg/extension.ts"] }),
    );
    expect(args.slice(0, 2)).toEqual(["--mode", "rpc"]);
    expect(valueOf(args, "-e")).toBe("/pkg/extension.ts");
  });
});

describe("buildChildCommand: in a sandbox", () => {
  it("runs bwrap with the sandbox's arguments, then node and pi's whole command line after --, with the same environment", () => {
    const plain = buildChildCommand(input({ taskId: "0190aaaa-0000-7000-8000-000000000000" }));
    const sandboxed = buildChildCommand(
      input({
        taskId: "0190aaaa-0000-7000-8000-000000000000",
        sandbox: { bwrap: "/usr/bin/bwrap", args: ["--ro-bind", "/", "/"] },
      }),
    );
    expect(sandboxed.command).toBe("/usr/bin/bwrap");
    expect(sandboxed.args).toEqual(["--ro-bind", "/", "/", "--", "/usr/bin/node", ...plain.args]);
    expect(sandboxed.env).toEqual(plain.env);
    expect(sandboxed.prompt).toBe(plain.prompt);
  });

  it("drops the person's agent and bus sockets from a sandboxed child's environment only, and passes the mount points on", () => {
    const sockets = {
      SSH_AUTH_SOCK: "/run/user/1000/ssh",
      SSH_AGENT_PID: "42",
      GPG_AGENT_INFO: "/run/g",
      DBUS_SESSION_BUS_ADDRESS: "unix:path=/run/user/1000/bus",
      DOCKER_HOST: "unix:///var/run/docker.sock",
      OPENAI_API_KEY: "sk-kept",
    };
    const plain = buildChildCommand(input({ baseEnv: { PATH: "/usr/bin", ...sockets } }));
    const sandboxed = buildChildCommand(
      input({
        baseEnv: { PATH: "/usr/bin", ...sockets },
        sandbox: { bwrap: "/usr/bin/bwrap", args: [], mountPoints: ["/p/AGENTS.md"] },
      }),
    );
    expect(plain.env.SSH_AUTH_SOCK).toBe("/run/user/1000/ssh");
    for (const name of ["SSH_AUTH_SOCK", "SSH_AGENT_PID", "GPG_AGENT_INFO", "DBUS_SESSION_BUS_ADDRESS", "DOCKER_HOST"])
      expect(sandboxed.env[name], name).toBeUndefined();
    // API keys in the environment still reach the child (its pi needs them): the docs say so.
    expect(sandboxed.env.OPENAI_API_KEY).toBe("sk-kept");
    expect(sandboxed.mountPoints).toEqual(["/p/AGENTS.md"]);
  });

  it("names no parent to a sandboxed child (its pid namespace hides it; bubblewrap ends it with the parent), and keeps the task marker", () => {
    const parent = { pid: 4242, start: "987654" };
    const sandboxed = buildChildCommand(
      input({ taskId: "0190aaaa-0000-7000-8000-000000000000", parent, sandbox: { bwrap: "/usr/bin/bwrap", args: [] } }),
    );
    expect(sandboxed.env.PI_SUBAGENT_PARENT).toBeUndefined();
    expect(sandboxed.env.PI_SUBAGENT_TASK_ID).toBe("0190aaaa-0000-7000-8000-000000000000");
    expect(buildChildCommand(input({ parent })).env.PI_SUBAGENT_PARENT).toBe("4242:987654");
  });
});
