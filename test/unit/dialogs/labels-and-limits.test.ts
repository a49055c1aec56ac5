import { describe, expect, it } from "vitest";
import {
  askerLabel,
  labelledTitle,
  questionLine,
  nobodyReasonOf,
  unansweredLine,
  answerOf,
  parseUiRequest,
} from "../../../src/dialogs/child-dialogs.ts";
import { NoticeLimit, waitingLine } from "../../../src/dialogs/question-board.ts";
import { resolveAskPerson } from "../../../src/config/resolve.ts";

describe("question labels", () => {
  it("names a lone asker by agent and its short id (the last 8 characters of its id), a nested one by its whole path with the last 4", () => {
    expect(askerLabel([{ agent: "explore", taskId: "0191d5e6-d5e6-7f00-8000-000001a2b3c4" }])).toBe(
      "explore 01a2b3c4 asks:",
    );
    expect(
      askerLabel([
        { agent: "reviewer", taskId: "0000-ffff01a2" },
        { agent: "explore", taskId: "0000-eeee01a3" },
      ]),
    ).toBe("reviewer 01a2 › explore 01a3 asks:");
  });

  it("puts the question on one line without the child's control sequences", () => {
    expect(questionLine({ title: "⚠️ Dangerous command:\n\n  rm -rf build\n\nAllow?" })).toBe(
      "⚠️ Dangerous command: rm -rf build Allow?",
    );
    expect(questionLine({ title: "Clear\u001b]0;owned\u0007 session?", message: "All lost." })).toBe(
      "Clear session? All lost.",
    );
    expect(labelledTitle([{ agent: "explore", taskId: "01a2b3c4" }], "Allow?\u001b[2J")).toBe(
      "explore 01a2b3c4 asks:\nAllow?",
    );
  });

  it("the widget's line and the result's line", () => {
    const question = {
      path: [{ agent: "explore", taskId: "0000-01a2b3c4" }],
      dialog: { id: "q1", method: "select" as const, title: "Allow rm -rf build?" },
    };
    expect(waitingLine(question, 1)).toBe("? explore 01a2b3c4 asks: Allow rm -rf build? · /subagent-answer");
    expect(waitingLine(question, 3)).toBe("? explore 01a2b3c4 asks: Allow rm -rf build? (+2 more) · /subagent-answer");
    expect(unansweredLine({ title: "Allow rm -rf build?" }, "print mode")).toBe(
      'asked "Allow rm -rf build?": no one to answer (print mode)',
    );
    expect(nobodyReasonOf("json")).toBe("JSON mode");
    expect(nobodyReasonOf("rpc")).toBe("RPC mode");
    expect(nobodyReasonOf("interactive")).toBeUndefined();
  });
});

describe("child UI requests", () => {
  it("answers each dialog the way pi's RPC mode reads it; Esc is cancelled", () => {
    expect(answerOf({ method: "select" }, "Yes")).toEqual({ value: "Yes" });
    expect(answerOf({ method: "confirm" }, true)).toEqual({ confirmed: true });
    expect(answerOf({ method: "confirm" }, false)).toEqual({ confirmed: false });
    expect(answerOf({ method: "input" }, "")).toEqual({ value: "" });
    expect(answerOf({ method: "editor" }, undefined)).toEqual({ cancelled: true });
  });

  it("reads what each dialog shows", () => {
    expect(
      parseUiRequest({ type: "extension_ui_request", id: "i", method: "input", title: "Name?", placeholder: "x" }),
    ).toEqual({
      kind: "dialog",
      dialog: { id: "i", method: "input", title: "Name?", placeholder: "x" },
    });
    expect(
      parseUiRequest({ type: "extension_ui_request", id: "e", method: "editor", title: "Edit", prefill: "a" }),
    ).toEqual({
      kind: "dialog",
      dialog: { id: "e", method: "editor", title: "Edit", prefill: "a" },
    });
    expect(parseUiRequest({ type: "extension_ui_request", id: "w", method: "setWidget", widgetKey: "k" })).toEqual({
      kind: "ignored",
      method: "setWidget",
    });
    expect(parseUiRequest({ type: "response", id: "w" })).toBeUndefined();
  });
});

describe("the notice limit", () => {
  it("shows a few notices per task in ten seconds, says once that the rest are held back, then shows again", () => {
    const limit = new NoticeLimit(3, 10_000);
    expect([0, 1, 2, 3, 4].map((i) => limit.admit("a", 1000 + i))).toEqual([
      "show",
      "show",
      "show",
      "show-suppression",
      "drop",
    ]);
    // Another task has its own allowance.
    expect(limit.admit("b", 1005)).toBe("show");
    expect(limit.admit("a", 11_001)).toBe("show");
  });
});

describe("$askPerson", () => {
  it("is true unless the user file says false; anything else is ignored with a warning", () => {
    expect(resolveAskPerson({})).toEqual({ askPerson: true });
    expect(resolveAskPerson({ settings: { $askPerson: false } })).toEqual({ askPerson: false });
    const odd = resolveAskPerson({ settings: { $askPerson: "no" }, filePath: "/a/subagent-isolation.json" });
    expect(odd.askPerson).toBe(true);
    expect(odd.warning).toBe(
      'pi-subagent-dispatch: /a/subagent-isolation.json: "$askPerson" must be true or false; ignored',
    );
  });
});
