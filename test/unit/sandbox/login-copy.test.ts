import { describe, expect, it } from "vitest";
import { loginCopyText, loginExpiredNote, PI_RENEWAL_WINDOW_MS } from "../../../src/sandbox/hand-in.ts";

describe("loginCopyText", () => {
  it("keeps API keys and OAuth access tokens, and blanks every OAuth refresh token", () => {
    const person = {
      openai: { type: "api_key", key: "sk-1" },
      anthropic: { type: "oauth", access: "acc", refresh: "ref-secret", expires: 123 },
    };
    const copy = JSON.parse(loginCopyText(JSON.stringify(person))!) as typeof person;
    expect(copy.openai).toEqual(person.openai);
    expect(copy.anthropic).toEqual({ type: "oauth", access: "acc", refresh: "", expires: 123 });
  });

  it("gives no copy of a file pi could not read either", () => {
    expect(loginCopyText("not json")).toBeUndefined();
    expect(loginCopyText("[]")).toBeUndefined();
    expect(loginCopyText("\uFEFF{}")).toBe("{}");
  });
});

describe("loginExpiredNote", () => {
  it("names an OAuth login that expired during the run, or came within pi's five-minute renewal window of its end, and nothing otherwise", () => {
    const text = JSON.stringify({
      anthropic: { type: "oauth", access: "a", refresh: "r", expires: 1500 },
      openai: { type: "api_key", key: "k" },
    });
    expect(loginExpiredNote(text, 1000, 2000)).toBe(
      "The OAuth login of anthropic expired while this sandboxed subagent ran; a sandboxed child cannot refresh a login (it never writes your auth.json). Run the task again: your pi refreshes a login near its end before it starts a sandboxed subagent.",
    );
    // pi 1.x renews five minutes before the end: a child that failed then failed for its login.
    expect(loginExpiredNote(text, 1000, 1400)).toContain("The OAuth login of anthropic expired");
    expect(loginExpiredNote(text, 1000, 1500 - PI_RENEWAL_WINDOW_MS - 1)).toBeUndefined();
    // Already ended before the child started: not this child's doing to explain.
    expect(loginExpiredNote(text, 1600, 2000)).toBeUndefined();
    expect(loginExpiredNote("{", 0, 1)).toBeUndefined();
  });
});
