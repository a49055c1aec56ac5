import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { inheritedThinking, piDefaultThinking } from "../../../src/commands/config-store.ts";

let root: string;
let agentDir: string;
let cwd: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "pi-default-thinking-"));
  agentDir = join(root, "agent");
  cwd = join(root, "project");
  mkdirSync(agentDir);
  mkdirSync(join(cwd, ".pi"), { recursive: true });
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe("the thinking level a child gets when nothing sets one", () => {
  it("is pi's built-in medium without settings, else the user's, else (trusted project) the project's", () => {
    expect(piDefaultThinking({ agentDir, cwd, projectTrusted: true })).toBe("medium");
    writeFileSync(join(agentDir, "settings.json"), JSON.stringify({ defaultThinkingLevel: "low" }));
    expect(piDefaultThinking({ agentDir, cwd, projectTrusted: true })).toBe("low");
    writeFileSync(join(cwd, ".pi", "settings.json"), JSON.stringify({ defaultThinkingLevel: "high" }));
    expect(piDefaultThinking({ agentDir, cwd, projectTrusted: true })).toBe("high");
    // An untrusted project's settings count for nothing, as in pi.
    expect(piDefaultThinking({ agentDir, cwd, projectTrusted: false })).toBe("low");
  });

  it("reads a broken file or an unknown level as unset", () => {
    writeFileSync(join(agentDir, "settings.json"), "{ not json");
    writeFileSync(join(cwd, ".pi", "settings.json"), JSON.stringify({ defaultThinkingLevel: "turbo" }));
    expect(piDefaultThinking({ agentDir, cwd, projectTrusted: true })).toBe("medium");
  });

  it("is off for a model without reasoning, as pi clamps it", () => {
    expect(inheritedThinking("high", { reasoning: false })).toBe("off");
    expect(inheritedThinking("high", undefined)).toBe("off");
    expect(inheritedThinking("high", { reasoning: true })).toBe("high");
  });
});
