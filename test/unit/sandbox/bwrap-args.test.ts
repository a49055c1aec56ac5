import { describe, expect, it } from "vitest";
import {
  bwrapArgs,
  FIRST_HANDED_FD,
  isFreeInPrivateTmp,
  isInsidePrivateTmp,
  missingProtectedFiles,
  protectedMountPoints,
} from "../../../src/sandbox/bwrap-args.ts";
import type { SandboxLayout } from "../../../src/sandbox/bwrap-args.ts";

const layout = (overrides: Partial<SandboxLayout> = {}): SandboxLayout => ({
  level: "read-only",
  cwd: "/home/ann/project",
  agentDir: "/home/ann/.pi/agent",
  agentDirEntries: ["auth.json", "settings.json", "extensions", "sessions", "subagent-sessions"],
  taskDir: "/home/ann/.pi/agent/subagent-sessions/0190-task",
  keepVisible: ["/home/ann", "/usr/lib/node_modules"],
  secrets: [
    { path: "/home/ann/.ssh", kind: "directory" },
    { path: "/home/ann/.netrc", kind: "file" },
  ],
  ...overrides,
});

/** The mount operations as `op target` pairs, in order. */
function mounts(args: string[]): string[] {
  const ops: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const op = args[i]!;
    if (
      op === "--tmpfs" ||
      op === "--remount-ro" ||
      op === "--dev" ||
      op === "--proc" ||
      op === "--chdir" ||
      op === "--dir" ||
      op === "--perms"
    )
      ops.push(`${op} ${args[++i]}`);
    else if (op === "--file") {
      const fd = args[++i];
      ops.push(`${op} ${fd} ${args[++i]}`);
    } else if (op === "--ro-bind" || op === "--bind") {
      const source = args[++i];
      const target = args[++i];
      ops.push(source === target ? `${op} ${target}` : `${op} ${source} ${target}`);
    } else if (op === "--cap-drop") ops.push(`${op} ${args[++i]}`);
    else if (op === "--setenv") {
      const name = args[++i];
      ops.push(`${op} ${name}=${args[++i]}`);
    } else ops.push(op);
  }
  return ops;
}

describe("bwrapArgs", () => {
  it("read-only: root read-only, private /tmp, the agent dir a private copy without transcripts, other tasks or the person's auth.json, the task folder writable, secrets hidden", () => {
    expect(mounts(bwrapArgs(layout()))).toEqual([
      "--cap-drop ALL",
      "--unshare-pid",
      "--die-with-parent",
      "--ro-bind /",
      "--dev /dev",
      "--proc /proc",
      "--tmpfs /tmp",
      "--setenv TMPDIR=/tmp",
      "--setenv PI_SUBAGENT_SANDBOX=read-only",
      "--ro-bind /home/ann/project",
      "--tmpfs /home/ann/.ssh",
      "--ro-bind /dev/null /home/ann/.netrc",
      "--tmpfs /home/ann/.pi/agent",
      "--ro-bind /home/ann/.pi/agent/settings.json",
      "--ro-bind /home/ann/.pi/agent/extensions",
      "--tmpfs /home/ann/.pi/agent/subagent-sessions",
      "--dir /home/ann/.pi/agent/subagent-sessions/0190-task",
      "--remount-ro /home/ann/.pi/agent/subagent-sessions",
      "--bind /home/ann/.pi/agent/subagent-sessions/0190-task",
      "--chdir /home/ann/project",
    ]);
  });

  it("hands the child its own copy of auth.json (descriptor 3, owner-only) in the agent dir's tmpfs, never the person's file", () => {
    const ops = mounts(bwrapArgs(layout({ handedIn: ["/home/ann/.pi/agent/auth.json", "/tmp/jiti/a.1a2b3c4d.mjs"] })));
    expect(ops.filter((op) => op.includes("auth.json"))).toEqual(["--file 3 /home/ann/.pi/agent/auth.json"]);
    expect(ops[ops.indexOf("--file 3 /home/ann/.pi/agent/auth.json") - 1]).toBe("--perms 0600");
    expect(ops.indexOf("--file 3 /home/ann/.pi/agent/auth.json")).toBeGreaterThan(
      ops.indexOf("--tmpfs /home/ann/.pi/agent"),
    );
    expect(ops).not.toContain("--dir /home/ann/.pi/agent");
    expect(ops).toContain("--file 4 /tmp/jiti/a.1a2b3c4d.mjs");
  });

  it("workspace-write keeps git's and pi's files read-only: an existing one bound over, a missing folder an empty read-only tmpfs, a missing file an empty read-only file", () => {
    const protectedPaths = [
      { path: "/home/ann/project/.git", kind: "directory" as const, exists: true },
      { path: "/home/ann/project/.pi", kind: "directory" as const, exists: false },
      { path: "/home/ann/project/AGENTS.md", kind: "file" as const, exists: false },
      { path: "/home/ann/project/CLAUDE.md", kind: "file" as const, exists: false },
    ];
    const ops = mounts(
      bwrapArgs(layout({ level: "workspace-write", protectedPaths, handedIn: ["/home/ann/.pi/agent/auth.json"] })),
    );
    const cwdBind = ops.indexOf("--bind /home/ann/project");
    expect(ops.indexOf("--ro-bind /home/ann/project/.git")).toBeGreaterThan(cwdBind);
    expect(ops.indexOf("--tmpfs /home/ann/project/.pi")).toBeGreaterThan(cwdBind);
    expect(ops[ops.indexOf("--tmpfs /home/ann/project/.pi") + 1]).toBe("--remount-ro /home/ann/project/.pi");
    // The empty files come from the descriptors after the files handed in.
    expect(ops).toContain("--ro-bind-data");
    const args = bwrapArgs(
      layout({ level: "workspace-write", protectedPaths, handedIn: ["/home/ann/.pi/agent/auth.json"] }),
    );
    const data = args.flatMap((arg, i) => (arg === "--ro-bind-data" ? [`${args[i + 1]} ${args[i + 2]}`] : []));
    expect(data).toEqual(["4 /home/ann/project/AGENTS.md", "5 /home/ann/project/CLAUDE.md"]);
    expect(missingProtectedFiles({ level: "workspace-write", protectedPaths }).map((entry) => entry.path)).toEqual([
      "/home/ann/project/AGENTS.md",
      "/home/ann/project/CLAUDE.md",
    ]);
    // Every protected path: the runner records the missing and the empty ones (another sandbox's mount point).
    expect(protectedMountPoints({ level: "workspace-write", protectedPaths })).toEqual([
      "/home/ann/project/.git",
      "/home/ann/project/.pi",
      "/home/ann/project/AGENTS.md",
      "/home/ann/project/CLAUDE.md",
    ]);
  });

  it("read-only needs no protected paths: its working folder is read-only already", () => {
    const protectedPaths = [{ path: "/home/ann/project/.pi", kind: "directory" as const, exists: false }];
    const ops = mounts(bwrapArgs(layout({ protectedPaths })));
    expect(ops.filter((op) => op.includes("/home/ann/project/"))).toEqual([]);
    expect(protectedMountPoints({ level: "read-only", protectedPaths })).toEqual([]);
  });

  it("workspace-write binds the working folder writable, and a worktree inside the agent dir after the agent dir's copy", () => {
    const worktree = "/home/ann/.pi/agent/subagent-worktrees/0190-task";
    const ops = mounts(bwrapArgs(layout({ level: "workspace-write", cwd: worktree })));
    expect(ops).toContain(`--bind ${worktree}`);
    expect(ops.indexOf(`--bind ${worktree}`)).toBeGreaterThan(ops.indexOf("--tmpfs /home/ann/.pi/agent"));
    expect(ops.at(-1)).toBe(`--chdir ${worktree}`);
  });

  it("hides a secret inside a writable working folder (the folder is mounted first)", () => {
    const ops = mounts(bwrapArgs(layout({ level: "workspace-write", cwd: "/home/ann" })));
    expect(ops.indexOf("--tmpfs /home/ann/.ssh")).toBeGreaterThan(ops.indexOf("--bind /home/ann"));
    expect(ops.indexOf("--tmpfs /home/ann/.pi/agent")).toBeGreaterThan(ops.indexOf("--bind /home/ann"));
  });

  it("binds back read-only only what it must still see under the private /tmp", () => {
    const ops = mounts(
      bwrapArgs(
        layout({
          cwd: "/tmp/t/work",
          agentDir: "/tmp/t/agent",
          taskDir: "/tmp/t/agent/subagent-sessions/x",
          keepVisible: ["/tmp/t/home", "/opt/pi", "/tmp"],
          secrets: [{ path: "/tmp/t/home/.ssh", kind: "directory" }],
        }),
      ),
    );
    expect(ops).toContain("--ro-bind /tmp/t/home");
    expect(ops).not.toContain("--ro-bind /opt/pi");
    expect(ops.filter((op) => op === "--ro-bind /tmp")).toEqual([]);
    expect(ops.indexOf("--tmpfs /tmp/t/home/.ssh")).toBeGreaterThan(ops.indexOf("--ro-bind /tmp/t/home"));
  });

  it("runs the child in a pid namespace of its own that dies with its parent, and never asks for a new session or another namespace", () => {
    const args = bwrapArgs(layout());
    expect(args).toContain("--unshare-pid");
    expect(args).toContain("--die-with-parent");
    for (const flag of ["--new-session", "--unshare-all", "--unshare-net", "--as-pid-1"])
      expect(args).not.toContain(flag);
  });

  it("tells the child its level (PI_SUBAGENT_SANDBOX), which keeps it from dispatching subagents of its own", () => {
    const ops = mounts(bwrapArgs(layout({ level: "workspace-write" })));
    expect(ops).toContain("--setenv PI_SUBAGENT_SANDBOX=workspace-write");
  });

  it("copies each file handed in into the private /tmp, in descriptor order, from 3 on, owner-only, after the folder is made", () => {
    const handedIn = ["/tmp/jiti/sandbox-bwrap-args.1a2b3c4d.mjs", "/tmp/jiti/pi-extension.5e6f7a8b.mjs"];
    const ops = mounts(bwrapArgs(layout({ handedIn })));
    expect(FIRST_HANDED_FD).toBe(3);
    const ours = ops.filter((op) => op.includes("/tmp/jiti") || op.startsWith("--perms"));
    expect(ours).toEqual([
      "--dir /tmp/jiti",
      "--perms 0600",
      `--file 3 ${handedIn[0]}`,
      "--perms 0600",
      `--file 4 ${handedIn[1]}`,
    ]);
    // Each --perms applies to the --file right after it.
    expect(ops[ops.indexOf(`--file 3 ${handedIn[0]}`) - 1]).toBe("--perms 0600");
    expect(ops.indexOf("--dir /tmp/jiti")).toBeGreaterThan(ops.indexOf("--tmpfs /tmp"));
    // The host's cache is not mounted at all: neither read-only nor writable.
    expect(
      ops.filter((op) => op.includes("/tmp/jiti") && (op.startsWith("--bind") || op.startsWith("--ro-bind"))),
    ).toEqual([]);
  });

  it("knows what is in the private /tmp", () => {
    expect(isInsidePrivateTmp("/tmp/jiti")).toBe(true);
    expect(isInsidePrivateTmp("/tmp")).toBe(false);
    expect(isInsidePrivateTmp("/tmpx/jiti")).toBe(false);
    expect(isInsidePrivateTmp("/var/tmp/jiti")).toBe(false);
    expect(isInsidePrivateTmp("tmp/jiti")).toBe(false);
  });

  it("hands files only into a folder of the private /tmp that nothing is bound over", () => {
    expect(isFreeInPrivateTmp(layout(), "/tmp/jiti")).toBe(true);
    expect(isFreeInPrivateTmp(layout(), "/var/tmp/jiti")).toBe(false);
    expect(isFreeInPrivateTmp(layout({ cwd: "/tmp/project" }), "/tmp/project/jiti")).toBe(false);
    expect(isFreeInPrivateTmp(layout({ keepVisible: ["/tmp/home"] }), "/tmp/home/tmp/jiti")).toBe(false);
    expect(isFreeInPrivateTmp(layout({ cwd: "/tmp/t/work", keepVisible: ["/tmp/t/home"] }), "/tmp/t/tmp/jiti")).toBe(
      true,
    );
  });
});
