import { describe, expect, it } from "vitest";
import { keepRecordedSandbox, resolveSandbox, type SandboxInputs } from "../../../src/config/resolve.ts";

const userAgent = (sandbox?: SandboxInputs["agent"]["sandbox"]): SandboxInputs["agent"] => ({
  source: "user",
  ...(sandbox ? { sandbox } : {}),
});
const projectAgent = (sandbox?: SandboxInputs["agent"]["sandbox"]): SandboxInputs["agent"] => ({
  source: "project",
  ...(sandbox ? { sandbox } : {}),
});

describe("resolveSandbox", () => {
  it("is off by default", () => {
    expect(resolveSandbox({ agent: userAgent() })).toEqual({ level: "off", source: "default" });
  });

  it("takes the person's own settings in order: their entry, the agent's frontmatter, their $sandbox", () => {
    expect(resolveSandbox({ agent: userAgent("read-only"), userEntry: "off", userDefault: "read-only" })).toEqual({
      level: "off",
      source: "user",
    });
    expect(resolveSandbox({ agent: userAgent("off"), userDefault: "read-only" })).toEqual({
      level: "off",
      source: "frontmatter",
    });
    expect(resolveSandbox({ agent: userAgent(), userDefault: "workspace-write" })).toEqual({
      level: "workspace-write",
      source: "$sandbox",
    });
  });

  it("lets a call only tighten: read-only over off, never off over read-only", () => {
    expect(resolveSandbox({ agent: userAgent(), call: "read-only" })).toEqual({ level: "read-only", source: "call" });
    expect(resolveSandbox({ agent: userAgent("read-only"), call: "off" })).toEqual({
      level: "read-only",
      source: "frontmatter",
    });
    expect(resolveSandbox({ agent: userAgent("read-only"), call: "workspace-write" })).toEqual({
      level: "read-only",
      source: "frontmatter",
    });
    expect(resolveSandbox({ agent: userAgent("workspace-write"), call: "read-only" })).toEqual({
      level: "read-only",
      source: "call",
    });
  });

  it("lets a project only tighten: its agent's frontmatter, its entry and its $sandbox never lift the person's default", () => {
    expect(resolveSandbox({ agent: projectAgent("off"), userDefault: "read-only" })).toEqual({
      level: "read-only",
      source: "$sandbox",
    });
    expect(resolveSandbox({ agent: projectAgent("workspace-write") })).toEqual({
      level: "workspace-write",
      source: "frontmatter",
    });
    expect(
      resolveSandbox({ agent: userAgent(), userDefault: "read-only", projectEntry: "off", projectDefault: "off" }),
    ).toEqual({ level: "read-only", source: "$sandbox" });
    expect(resolveSandbox({ agent: userAgent(), projectDefault: "workspace-write" })).toEqual({
      level: "workspace-write",
      source: "project $sandbox",
    });
    expect(
      resolveSandbox({ agent: userAgent(), projectEntry: "read-only", projectDefault: "workspace-write" }),
    ).toEqual({ level: "read-only", source: "project" });
  });
});

describe("a name keeps its protection, and a resume keeps its sandbox", () => {
  it("a project agent that replaces the person's sandboxed agent starts from that agent's sandbox", () => {
    const planted: SandboxInputs["agent"] = {
      source: "project",
      sandbox: "off",
      shadows: { name: "reviewer", source: "user", filePath: "/u/reviewer.md", sandbox: "read-only" },
    };
    expect(resolveSandbox({ agent: planted })).toEqual({ level: "read-only", source: "frontmatter" });
    const stricter: SandboxInputs["agent"] = {
      source: "project",
      sandbox: "read-only",
      shadows: { name: "w", source: "builtin", filePath: "/b/w.md", sandbox: "workspace-write" },
    };
    expect(resolveSandbox({ agent: stricter }).level).toBe("read-only");
  });

  it("keepRecordedSandbox: the stricter of the recorded level and the call's", () => {
    expect(keepRecordedSandbox({ level: "off", source: "default" }, "read-only")).toEqual({
      level: "read-only",
      source: "resumed task",
    });
    expect(keepRecordedSandbox({ level: "read-only", source: "call" }, "workspace-write")).toEqual({
      level: "read-only",
      source: "call",
    });
    expect(keepRecordedSandbox({ level: "workspace-write", source: "user" }, undefined)).toEqual({
      level: "workspace-write",
      source: "user",
    });
  });
});
