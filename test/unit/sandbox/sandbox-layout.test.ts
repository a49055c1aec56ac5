import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { packageRootOf, readSandboxLayout } from "../../../src/sandbox/sandbox-layout.ts";

let root = "";
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe("readSandboxLayout", () => {
  it("hides the secrets that exist (a linked one where it points), lists the agent dir, and keeps the programs' package roots visible, each once", () => {
    root = mkdtempSync(join(tmpdir(), "sandbox-layout-"));
    const home = join(root, "home");
    mkdirSync(join(home, ".ssh"), { recursive: true });
    writeFileSync(join(home, ".netrc"), "machine x");
    mkdirSync(join(root, "real-aws"));
    symlinkSync(join(root, "real-aws"), join(home, ".aws"));
    const agentDir = join(root, "agent");
    mkdirSync(join(agentDir, "extensions"), { recursive: true });
    writeFileSync(join(agentDir, "auth.json"), "{}");
    const layout = readSandboxLayout({
      level: "read-only",
      cwd: root,
      agentDir,
      taskDir: join(agentDir, "subagent-sessions", "t"),
      home,
      extraHidden: ["~/.kube", "~/.netrc"],
      programs: [
        join(root, "pkg", "node_modules", "pi", "dist", "cli.js"),
        join(root, "pkg", "node_modules", "node", "bin", "node"),
        join(root, "pkg", "extension.ts"),
      ],
    });
    expect(layout.secrets).toEqual([
      { path: join(home, ".ssh"), kind: "directory" },
      { path: join(root, "real-aws"), kind: "directory" },
      { path: join(home, ".netrc"), kind: "file" },
    ]);
    expect([...layout.agentDirEntries].sort()).toEqual(["auth.json", "extensions"]);
    expect(layout.keepVisible).toEqual([home, join(root, "pkg")]);
  });

  it("takes a file's package root before its first node_modules, else its folder", () => {
    expect(packageRootOf("/opt/app/node_modules/@x/pi/dist/cli.js")).toBe("/opt/app");
    expect(packageRootOf("/nonexistent/ext/index.ts")).toBe("/nonexistent/ext");
  });
});
