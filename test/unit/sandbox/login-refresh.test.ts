import { describe, expect, it } from "vitest";
import {
  DEFAULT_LOGIN_REFRESH_MARGIN_MS,
  LOGIN_REFRESH_MARGIN_ENV,
  LOGIN_RETRY_AFTER_MS,
  loginRefreshFailedWarning,
  loginsDueForRefresh,
  readLoginRefreshMargin,
  withoutRecentFailures,
} from "../../../src/sandbox/hand-in.ts";

const NOW = 1_000_000_000;
const MINUTE = 60_000;

describe("loginsDueForRefresh", () => {
  it("names each OAuth login with a refresh token that ends within the margin, or has ended", () => {
    const text = JSON.stringify({
      soon: { type: "oauth", access: "a", refresh: "r", expires: NOW + 1 * MINUTE },
      atMargin: { type: "oauth", access: "a", refresh: "r", expires: NOW + 15 * MINUTE },
      ended: { type: "oauth", access: "a", refresh: "r", expires: NOW - MINUTE },
      later: { type: "oauth", access: "a", refresh: "r", expires: NOW + 15 * MINUTE + 1 },
      openai: { type: "api_key", key: "sk" },
    });
    expect(loginsDueForRefresh(text, NOW, 15 * MINUTE)).toEqual(["soon", "atMargin", "ended"]);
  });

  it("leaves out a login that cannot be renewed: no refresh token (a child's copy), no usable expiry", () => {
    const text = JSON.stringify({
      copy: { type: "oauth", access: "a", refresh: "", expires: NOW },
      noRefresh: { type: "oauth", access: "a", expires: NOW },
      noExpiry: { type: "oauth", access: "a", refresh: "r" },
      textExpiry: { type: "oauth", access: "a", refresh: "r", expires: "soon" },
      broken: null,
    });
    expect(loginsDueForRefresh(text, NOW, 15 * MINUTE)).toEqual([]);
  });

  it("finds nothing with a margin of 0 (turned off), or in a file pi could not read either", () => {
    const text = JSON.stringify({ soon: { type: "oauth", access: "a", refresh: "r", expires: NOW } });
    expect(loginsDueForRefresh(text, NOW, 0)).toEqual([]);
    expect(loginsDueForRefresh("{", NOW, MINUTE)).toEqual([]);
    expect(loginsDueForRefresh("[]", NOW, MINUTE)).toEqual([]);
    expect(loginsDueForRefresh(`\uFEFF${text}`, NOW, MINUTE)).toEqual(["soon"]);
  });
});

describe("readLoginRefreshMargin", () => {
  it("is 15 minutes unless the environment sets a whole number of ms; 0 or less turns the refresh off", () => {
    expect(DEFAULT_LOGIN_REFRESH_MARGIN_MS).toBe(15 * MINUTE);
    expect(readLoginRefreshMargin({})).toBe(DEFAULT_LOGIN_REFRESH_MARGIN_MS);
    expect(readLoginRefreshMargin({ [LOGIN_REFRESH_MARGIN_ENV]: " 1200000 " })).toBe(1_200_000);
    expect(readLoginRefreshMargin({ [LOGIN_REFRESH_MARGIN_ENV]: "0" })).toBe(0);
    expect(readLoginRefreshMargin({ [LOGIN_REFRESH_MARGIN_ENV]: "-5" })).toBe(0);
    expect(readLoginRefreshMargin({ [LOGIN_REFRESH_MARGIN_ENV]: "soon" })).toBe(DEFAULT_LOGIN_REFRESH_MARGIN_MS);
    expect(readLoginRefreshMargin({ [LOGIN_REFRESH_MARGIN_ENV]: "" })).toBe(DEFAULT_LOGIN_REFRESH_MARGIN_MS);
  });
});

describe("loginRefreshFailedWarning", () => {
  it("names the agent, each login and pi's reason, and says the child starts all the same", () => {
    expect(loginRefreshFailedWarning("worker", [{ provider: "anthropic", reason: "fetch failed" }])).toBe(
      "pi-subagent-dispatch: worker: could not refresh the OAuth login of anthropic (fetch failed) before the sandboxed subagent started; it runs with the current login, and fails with a note if that login expires during its run.",
    );
  });
});

describe("withoutRecentFailures", () => {
  it("leaves out a login whose refresh failed less than five minutes ago, and tries it again after", () => {
    const failedAt = new Map([
      ["anthropic", NOW - LOGIN_RETRY_AFTER_MS + 1],
      ["openai-codex", NOW - LOGIN_RETRY_AFTER_MS],
    ]);
    expect(LOGIN_RETRY_AFTER_MS).toBe(5 * MINUTE);
    expect(withoutRecentFailures(["anthropic", "openai-codex", "github-copilot"], failedAt, NOW)).toEqual([
      "openai-codex",
      "github-copilot",
    ]);
  });
});
