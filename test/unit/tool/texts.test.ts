import { describe, expect, it } from "vitest";
import * as texts from "../../../src/tool/texts.ts";

const EM_DASH = "\u2014";

describe("model-facing tool text", () => {
  it("description, snippet and every guideline name the subagent tool", () => {
    expect(texts.TOOL_NAME).toBe("subagent");
    expect(texts.TOOL_DESCRIPTION).toMatch(/subagent/);
    expect(texts.TOOL_SNIPPET).toMatch(/subagent/);
    // pi appends the bullets without a tool name, so each one says which tool it is about.
    for (const guideline of texts.TOOL_GUIDELINES) expect(guideline).toMatch(/\bsubagent tool\b/);
  });

  it("tells the model what the spec's guidelines say", () => {
    const all = [texts.TOOL_DESCRIPTION, ...texts.TOOL_GUIDELINES].join("\n");
    expect(all).toContain("[subagent-result]");
    expect(all).toMatch(/not a new instruction from the user/);
    expect(all).toMatch(/do not poll/i);
    expect(all).toMatch(/\[subagent session: <id>\]/);
    expect(all).toMatch(/same files can conflict/);
    expect(all).toMatch(/Never make one up|only with an id/);
  });

  it("says the in-flight list is a snapshot and the agent's own dispatch records win over it", () => {
    const guideline = texts.TOOL_GUIDELINES.find((line) => /in flight/.test(line));
    expect(guideline).toBeDefined();
    expect(guideline).toMatch(/the list is a snapshot/);
    expect(guideline).toMatch(/disagrees with your own dispatches this turn, trust yours/);
  });

  it("uses no em dash anywhere", () => {
    const messages = [
      texts.TOOL_DESCRIPTION,
      texts.TOOL_SNIPPET,
      ...texts.TOOL_GUIDELINES,
      texts.depthGateMessage(1),
      texts.sandboxGateMessage("read-only"),
      texts.missingAgentMessage("coder (project)"),
      texts.BLANK_TASK_MESSAGE,
      texts.unknownAgentMessage("x", "coder (project)"),
      texts.invalidSessionIdMessage("x"),
      texts.unknownSessionMessage("x"),
      texts.sessionBusyMessage("x", "agent coder, in this pi"),
      texts.NO_TASKS_TO_CANCEL_IN_SYNC_MODE,
      texts.projectAgentDeclinedMessage("coder"),
    ];
    for (const message of messages) expect(message).not.toContain(EM_DASH);
  });

  it("the busy and unknown-session messages name the session", () => {
    expect(texts.sessionBusyMessage("abc", "agent coder, in pi process 42")).toBe(
      "Session abc is already running (agent coder, in pi process 42). Wait for its result before resuming it: two runs on one session at the same time would corrupt it.",
    );
    expect(texts.unknownSessionMessage("abc")).toMatch(/^No subagent session abc exists here\./);
  });
});
