import { describe, expect, it } from "vitest";
import { classifyRpcLine, encodeRpcCommand, markedMessage } from "../../../src/run/rpc.ts";

describe("encodeRpcCommand", () => {
  it("writes one JSON object on one LF-terminated line", () => {
    expect(encodeRpcCommand({ type: "prompt", message: "Task: hi" })).toBe('{"type":"prompt","message":"Task: hi"}\n');
    expect(encodeRpcCommand({ type: "abort" })).toBe('{"type":"abort"}\n');
  });

  it("keeps newlines and Unicode line separators inside the string, never as record breaks", () => {
    const line = encodeRpcCommand({ type: "steer", message: "a\nb\u2028c\u2029d\re" });
    expect(line.indexOf("\n")).toBe(line.length - 1);
    expect(line).not.toContain("\r");
    expect(JSON.parse(line)).toEqual({ type: "steer", message: "a\nb\u2028c\u2029d\re" });
  });

  it("survives a text far over a command-line argument's limit", () => {
    const big = "y".repeat(300 * 1024);
    expect(JSON.parse(encodeRpcCommand({ type: "prompt", message: big })).message).toHaveLength(big.length);
  });
});

describe("markedMessage", () => {
  it("marks a message as coming from the main agent, text below the mark", () => {
    expect(markedMessage("also check b.ts", "agent")).toBe(
      "[Message from the main agent (the agent that dispatched you), sent while you were working]\nalso check b.ts",
    );
  });

  it("marks a person's message as the user's", () => {
    expect(markedMessage("stop at 3", "user")).toMatch(/^\[Message from the user, via the main agent's session/);
  });
});

describe("classifyRpcLine", () => {
  it("reads a refused prompt's error", () => {
    expect(classifyRpcLine('{"type":"response","command":"prompt","success":false,"error":"No model"}')).toEqual({
      kind: "response",
      command: "prompt",
      success: false,
      error: "No model",
    });
  });

  it("takes every extension UI request out of the event stream: dialogs with what they show, notices, the rest ignored", () => {
    expect(
      classifyRpcLine(
        '{"type":"extension_ui_request","id":"u1","method":"confirm","title":"Sure?","message":"All of it"}',
      ),
    ).toEqual({
      kind: "ui",
      request: { kind: "dialog", dialog: { id: "u1", method: "confirm", title: "Sure?", message: "All of it" } },
    });
    expect(
      classifyRpcLine(
        '{"type":"extension_ui_request","id":"u2","method":"notify","message":"x","notifyType":"warning"}',
      ),
    ).toEqual({
      kind: "ui",
      request: { kind: "notice", notice: { message: "x", level: "warning" } },
    });
    expect(
      classifyRpcLine('{"type":"extension_ui_request","id":"u3","method":"setTitle","title":"pi - hijacked"}'),
    ).toEqual({
      kind: "ui",
      request: { kind: "ignored", method: "setTitle" },
    });
  });

  it("leaves agent events and garbage to the reducer", () => {
    expect(classifyRpcLine('{"type":"agent_end","messages":[]}')).toEqual({ kind: "other" });
    expect(classifyRpcLine('{"type":"response",broken')).toEqual({ kind: "other" });
  });
});
