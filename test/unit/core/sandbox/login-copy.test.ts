import { describe, expect, it } from "vitest";
import { loginCopyText } from "../../../../src/core/sandbox/login-copy.ts";

describe("loginCopyText", () => {
  it("keeps API keys and OAuth access tokens, and blanks every OAuth refresh token", () => {
    const person = { openai: { type: "api_key", key: "sk-1" }, anthropic: { type: "oauth", access: "acc", refresh: "ref-secret", expires: 123 } };
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
