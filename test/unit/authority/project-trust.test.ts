import { describe, expect, it } from "vitest";
import { decideProjectAuthority, readAuthoritySettings } from "../../../src/authority/trust.ts";

describe("decideProjectAuthority", () => {
  it("an untrusted project counts for nothing, and children get --no-approve", () => {
    expect(decideProjectAuthority({ kind: "untrusted" }, "always")).toEqual({
      projectConfig: false,
      projectAgents: false,
      hiddenBecause: "untrusted",
      gate: "run",
      childTrustFlag: "--no-approve",
    });
  });
  it("a project pi decided to trust runs its agents unasked, and children get --approve", () => {
    expect(decideProjectAuthority({ kind: "trusted", explicit: true })).toEqual({
      projectConfig: true,
      projectAgents: true,
      gate: "run",
      childTrustFlag: "--approve",
    });
  });
  it("where pi has no decision, project agents are trusted on first use, and nothing is passed down", () => {
    expect(decideProjectAuthority({ kind: "no-trust-system" })).toEqual({
      projectConfig: true,
      projectAgents: true,
      gate: "first-use",
    });
    expect(decideProjectAuthority({ kind: "trusted", explicit: false })).toEqual({
      projectConfig: true,
      projectAgents: true,
      gate: "first-use",
    });
    expect(decideProjectAuthority({ kind: "no-trust-system" }, "ask-or-refuse").gate).toBe("first-use");
    expect(decideProjectAuthority({ kind: "no-trust-system" }, "always").gate).toBe("run");
  });
  it("guarded files that appeared since the session's start are covered by no decision: children get --no-approve", () => {
    const changed = ["/w/.pi/extensions/planted.ts"];
    expect(decideProjectAuthority({ kind: "trusted", explicit: true }, "ask", changed)).toMatchObject({
      childTrustFlag: "--no-approve",
      changedSinceStart: changed,
      gate: "run",
    });
    expect(decideProjectAuthority({ kind: "trusted", explicit: false }, "ask", changed)).toMatchObject({
      childTrustFlag: "--no-approve",
      gate: "first-use",
    });
    expect(decideProjectAuthority({ kind: "untrusted" }, "ask", changed).childTrustFlag).toBe("--no-approve");
    expect(decideProjectAuthority({ kind: "trusted", explicit: false }, "ask", []).childTrustFlag).toBeUndefined();
  });
  it("never hides project agents wherever the project is trusted", () => {
    expect(decideProjectAuthority({ kind: "trusted", explicit: true }, "never")).toMatchObject({
      projectAgents: false,
      hiddenBecause: "policy",
      projectConfig: true,
    });
  });
});

describe("readAuthoritySettings: only the user file widens", () => {
  it("reads both settings from the user file", () => {
    expect(
      readAuthoritySettings({ user: { settings: { $projectAgents: "never", $toolCeiling: "off" } }, project: {} }),
    ).toEqual({ projectAgents: "never", toolCeiling: "off", warnings: [] });
  });
  it("ignores them in a project file, with a warning", () => {
    const settings = readAuthoritySettings({
      user: {},
      project: {
        filePath: "/p/.pi/subagent-isolation.json",
        settings: { $toolCeiling: "off", $projectAgents: "always" },
      },
    });
    expect(settings.toolCeiling).toBe("session");
    expect(settings.projectAgents).toBe("ask");
    expect(settings.warnings).toEqual([
      'pi-subagent-dispatch: /p/.pi/subagent-isolation.json: "$projectAgents" can only be set in your user-level subagent-isolation.json; ignored',
      'pi-subagent-dispatch: /p/.pi/subagent-isolation.json: "$toolCeiling" can only be set in your user-level subagent-isolation.json; ignored',
    ]);
  });
  it("keeps the safe value for a bad one, and says so", () => {
    const settings = readAuthoritySettings({
      user: { filePath: "/u.json", settings: { $toolCeiling: false, $projectAgents: "yes" } },
      project: {},
    });
    expect(settings).toMatchObject({ toolCeiling: "session", projectAgents: "ask" });
    expect(settings.warnings).toHaveLength(2);
  });
});
