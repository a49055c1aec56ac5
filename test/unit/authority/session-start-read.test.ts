import { afterEach, describe, expect, it } from "vitest";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  captureSessionStart,
  guardedSinceStart,
  resetSessionStartsForTests,
  savedTrustDecision,
  sessionStart,
} from "../../../src/authority/session-start-read.ts";
import { rememberStartSnapshot } from "../../../src/authority/start-snapshot.ts";
import { createTempTree, type TempTree } from "../agents/temp-tree.ts";

let tree: TempTree | undefined;
afterEach(() => {
  tree?.remove();
  resetSessionStartsForTests();
});

function setUp(): { tree: TempTree; cwd: string; agentDir: string; home: string } {
  tree = createTempTree();
  return { tree, cwd: tree.mkdir("work"), agentDir: tree.mkdir("agent"), home: tree.mkdir("home") };
}

describe("the session's start", () => {
  it("a .pi/extensions file planted after the start is a change, and does not make the implied trust a decision", () => {
    const { tree, cwd, agentDir, home } = setUp();
    tree.write("work/.pi/agents/worker.md", "---\nname: worker\ndescription: w\n---\n");
    const start = captureSessionStart({ cwd, agentDir, home, argv: [], isProjectTrusted: () => true });
    expect(start.trust).toEqual({ kind: "trusted", explicit: false });
    expect(guardedSinceStart(start, home)).toEqual([]);
    const planted = tree.write("work/.pi/extensions/planted.ts", "export default () => {};\n");
    expect(guardedSinceStart(start, home)).toEqual([planted]);
    expect(start.trust).toEqual({ kind: "trusted", explicit: false });
  });

  it("a guarded file present at the start and unchanged is no change; editing it is", () => {
    const { tree, cwd, agentDir, home } = setUp();
    const skill = tree.write("work/.pi/skills/s/SKILL.md", "---\nname: s\ndescription: d\n---\n");
    const start = captureSessionStart({ cwd, agentDir, home, argv: ["--approve"], isProjectTrusted: () => true });
    expect(start.trust).toEqual({ kind: "trusted", explicit: true });
    expect(guardedSinceStart(start, home)).toEqual([]);
    writeFileSync(skill, "---\nname: s\ndescription: changed and longer\n---\n");
    expect(guardedSinceStart(start, home)).toEqual([skill]);
  });

  it("keeps the user file's authority settings as they were", () => {
    const { tree, cwd, agentDir, home } = setUp();
    tree.write("agent/subagent-isolation.json", JSON.stringify({ $sandbox: "read-only", $maxDepth: 2 }));
    const start = captureSessionStart({ cwd, agentDir, home, argv: [] });
    tree.write("agent/subagent-isolation.json", JSON.stringify({ $toolCeiling: "off" }));
    expect(start.userAuthority).toEqual({ $sandbox: "read-only" });
    expect(start.trust).toEqual({ kind: "no-trust-system" });
  });

  it("reads the trust store's nearest decision, as pi does", () => {
    const { tree, cwd, agentDir } = setUp();
    expect(savedTrustDecision(agentDir, cwd)).toBeNull();
    writeFileSync(join(agentDir, "trust.json"), JSON.stringify({ [tree.root]: true }));
    expect(savedTrustDecision(agentDir, cwd)).toBe(true);
    writeFileSync(join(agentDir, "trust.json"), JSON.stringify({ [tree.root]: true, [cwd]: false }));
    expect(savedTrustDecision(agentDir, cwd)).toBe(false);
  });

  it("what is kept at the start is made sense of at the first dispatch, as it was then: the user file and the trust store written in between change nothing", () => {
    const { tree, cwd, agentDir, home } = setUp();
    tree.write("agent/subagent-isolation.json", JSON.stringify({ $toolCeiling: "session", $sandbox: "read-only" }));
    const input = { cwd, agentDir, home, argv: [], isProjectTrusted: () => true };
    rememberStartSnapshot(input);
    // What a child (or anything) may write after the start and before the first dispatch.
    tree.write("agent/subagent-isolation.json", JSON.stringify({ $toolCeiling: "off", $sandbox: "off" }));
    writeFileSync(join(agentDir, "trust.json"), JSON.stringify({ [cwd]: true }));
    const start = sessionStart(input);
    expect(start.userAuthority).toEqual({ $toolCeiling: "session", $sandbox: "read-only" });
    // Trusted only as implied at the start (no saved decision then): the saved "yes" written later is no decision.
    expect(start.trust).toEqual({ kind: "trusted", explicit: false });
    expect(sessionStart(input)).toBe(start);
  });

  it("a session never announced keeps what the first dispatch finds", () => {
    const { tree, cwd, agentDir, home } = setUp();
    tree.write("agent/subagent-isolation.json", JSON.stringify({ $sandbox: "workspace-write" }));
    const start = sessionStart({ cwd, agentDir, home, argv: [] });
    tree.write("agent/subagent-isolation.json", JSON.stringify({ $sandbox: "off" }));
    expect(sessionStart({ cwd, agentDir, home, argv: [] }).userAuthority).toEqual({ $sandbox: "workspace-write" });
    expect(start.trust).toEqual({ kind: "no-trust-system" });
  });
});
