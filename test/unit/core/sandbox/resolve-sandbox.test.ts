import { describe, expect, it } from "vitest";
import { resolveSandbox } from "../../../../src/core/sandbox/resolve-sandbox.ts";
import type { SandboxInputs } from "../../../../src/core/sandbox/resolve-sandbox.ts";

const userAgent = (sandbox?: SandboxInputs["agent"]["sandbox"]): SandboxInputs["agent"] => ({ source: "user", ...(sandbox ? { sandbox } : {}) });
const projectAgent = (sandbox?: SandboxInputs["agent"]["sandbox"]): SandboxInputs["agent"] => ({ source: "project", ...(sandbox ? { sandbox } : {}) });

describe("resolveSandbox", () => {
  it("is off by default", () => {
    expect(resolveSandbox({ agent: userAgent() })).toEqual({ level: "off", source: "default" });
  });

  it("takes the person's own settings in order: their entry, the agent's frontmatter, their $sandbox", () => {
    expect(resolveSandbox({ agent: userAgent("read-only"), userEntry: "off", userDefault: "read-only" })).toEqual({ level: "off", source: "user" });
    expect(resolveSandbox({ agent: userAgent("off"), userDefault: "read-only" })).toEqual({ level: "off", source: "frontmatter" });
    expect(resolveSandbox({ agent: userAgent(), userDefault: "workspace-write" })).toEqual({ level: "workspace-write", source: "$sandbox" });
  });

  it("lets a call only tighten: read-only over off, never off over read-only", () => {
    expect(resolveSandbox({ agent: userAgent(), call: "read-only" })).toEqual({ level: "read-only", source: "call" });
    expect(resolveSandbox({ agent: userAgent("read-only"), call: "off" })).toEqual({ level: "read-only", source: "frontmatter" });
    expect(resolveSandbox({ agent: userAgent("read-only"), call: "workspace-write" })).toEqual({ level: "read-only", source: "frontmatter" });
    expect(resolveSandbox({ agent: userAgent("workspace-write"), call: "read-only" })).toEqual({ level: "read-only", source: "call" });
  });

  it("lets a project only tighten: its agent's frontmatter, its entry and its $sandbox never lift the person's default", () => {
    expect(resolveSandbox({ agent: projectAgent("off"), userDefault: "read-only" })).toEqual({ level: "read-only", source: "$sandbox" });
    expect(resolveSandbox({ agent: projectAgent("workspace-write") })).toEqual({ level: "workspace-write", source: "frontmatter" });
    expect(resolveSandbox({ agent: userAgent(), userDefault: "read-only", projectEntry: "off", projectDefault: "off" })).toEqual({ level: "read-only", source: "$sandbox" });
    expect(resolveSandbox({ agent: userAgent(), projectDefault: "workspace-write" })).toEqual({ level: "workspace-write", source: "project $sandbox" });
    expect(resolveSandbox({ agent: userAgent(), projectEntry: "read-only", projectDefault: "workspace-write" })).toEqual({ level: "read-only", source: "project" });
  });
});
