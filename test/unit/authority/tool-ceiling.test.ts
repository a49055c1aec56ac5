import { describe, expect, it } from "vitest";
import {
  ceilingAllows,
  grantTools,
  keepRecordedTools,
  toolsNotGrantedText,
} from "../../../src/authority/tool-ceiling.ts";

const readOnly = { active: ["read", "grep", "find", "ls", "subagent"], extensionTools: ["subagent"] };
const full = { active: ["read", "bash", "edit", "write", "subagent"], extensionTools: ["subagent"] };

describe("ceilingAllows: the rules", () => {
  it("always allows the read-only built-ins, even to a session with no tools", () => {
    for (const tool of ["read", "grep", "find", "ls"]) expect(ceilingAllows(tool, new Set())).toBe(true);
  });
  it("allows edit and write when the session has edit, write or bash", () => {
    for (const has of ["edit", "write", "bash"]) {
      expect(ceilingAllows("edit", new Set([has]))).toBe(true);
      expect(ceilingAllows("write", new Set([has]))).toBe(true);
    }
    expect(ceilingAllows("edit", new Set(["read", "grep"]))).toBe(false);
  });
  it("allows bash only with bash, and any other tool only when it is active", () => {
    expect(ceilingAllows("bash", new Set(["edit", "write"]))).toBe(false);
    expect(ceilingAllows("bash", new Set(["bash"]))).toBe(true);
    expect(ceilingAllows("web_fetch", new Set(["bash"]))).toBe(false);
    expect(ceilingAllows("web_fetch", new Set(["web_fetch"]))).toBe(true);
  });
});

describe("grantTools", () => {
  it("changes nothing for an unrestricted session: no list stays no list (pi's defaults)", () => {
    expect(grantTools({ session: full, ceiling: "session" })).toEqual({ notGranted: [] });
    expect(grantTools({ agentTools: ["read", "bash"], session: full, ceiling: "session" })).toEqual({
      tools: ["read", "bash"],
      notGranted: [],
    });
  });

  it("gives an agent without a list (general-purpose) what the ceiling allows in a read-only session, and names the cut", () => {
    const grant = grantTools({ session: readOnly, ceiling: "session" });
    expect(grant).toEqual({
      tools: ["read", "grep", "find", "ls"],
      notGranted: ["bash", "edit", "write"],
      reason: "the main session has read-only tools",
    });
    expect(toolsNotGrantedText(grant)).toBe(
      "tools not granted: bash, edit, write (the main session has read-only tools)",
    );
  });

  it("cuts an agent's listed tool the session lacks, and says it was not active", () => {
    const grant = grantTools({
      agentTools: ["read", "bash", "web_fetch"],
      session: { active: ["read", "edit"], extensionTools: ["web_fetch"] },
      ceiling: "session",
    });
    expect(grant.tools).toEqual(["read"]);
    expect(toolsNotGrantedText(grant)).toBe("tools not granted: bash, web_fetch (not active in the main session)");
  });

  it("follows the session's extension tools: one the session turned off is cut from a no-list child", () => {
    const grant = grantTools({
      session: { active: ["read", "bash", "edit", "write"], extensionTools: ["todo", "subagent"] },
      ceiling: "session",
    });
    expect(grant.tools).toEqual(["read", "bash", "edit", "write"]);
    expect(grant.notGranted).toEqual(["todo"]);
  });

  it("lets a call's tools only narrow, never add", () => {
    expect(
      grantTools({ agentTools: ["read", "grep"], callTools: ["grep", "bash"], session: full, ceiling: "session" }),
    ).toEqual({ tools: ["grep"], notGranted: [] });
    expect(grantTools({ callTools: ["read", "bash"], session: full, ceiling: "session" })).toEqual({
      tools: ["read", "bash"],
      notGranted: [],
    });
    expect(grantTools({ agentTools: ["read"], callTools: ["bash"], session: full, ceiling: "off" })).toEqual({
      tools: [],
      notGranted: [],
    });
  });

  it("an agent whose every tool is cut gets an empty list (no tools), not pi's defaults", () => {
    expect(grantTools({ agentTools: ["bash"], session: readOnly, ceiling: "session" }).tools).toEqual([]);
  });

  it("is lifted only by the setting off", () => {
    expect(grantTools({ agentTools: ["bash"], session: readOnly, ceiling: "off" })).toEqual({
      tools: ["bash"],
      notGranted: [],
    });
    expect(grantTools({ session: readOnly, ceiling: "off" })).toEqual({ notGranted: [] });
  });
});

describe("keepRecordedTools: a resume gets no wider tools than the task ran with", () => {
  it("cuts what the recorded list lacks, and says so", () => {
    expect(keepRecordedTools({ notGranted: [] }, ["read", "grep"], undefined)).toEqual({
      tools: ["read"],
      notGranted: ["bash", "edit", "write"],
      reason: "not among the tools the resumed task ran with",
    });
    expect(
      keepRecordedTools({ tools: ["read", "grep"], notGranted: [] }, ["read", "grep", "ls"], ["read", "grep"]),
    ).toEqual({ tools: ["read", "grep"], notGranted: [] });
    expect(keepRecordedTools({ notGranted: [] }, undefined, undefined)).toEqual({ notGranted: [] });
  });
});
