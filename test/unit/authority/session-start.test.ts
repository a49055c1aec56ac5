import { describe, expect, it } from "vitest";
import { authoritySettingsOf, trustAtStart, trustFlagOf, withAuthorityAtStart } from "../../../src/authority/trust.ts";
import type { ConfigLayer } from "../../../src/config/load.ts";

describe("trustAtStart", () => {
  it("pi 0.73.1 has no trust system; pi's no is untrusted", () => {
    expect(trustAtStart({ saved: null, guarded: true })).toEqual({ kind: "no-trust-system" });
    expect(trustAtStart({ piTrusted: false, flag: "--approve", saved: true, guarded: true })).toEqual({
      kind: "untrusted",
    });
  });
  it("trust is a decision with --approve, a saved yes, or guarded files pi loaded at the start; else only implied", () => {
    expect(trustAtStart({ piTrusted: true, flag: "--approve", saved: null, guarded: false })).toEqual({
      kind: "trusted",
      explicit: true,
    });
    expect(trustAtStart({ piTrusted: true, saved: true, guarded: false })).toEqual({ kind: "trusted", explicit: true });
    expect(trustAtStart({ piTrusted: true, saved: null, guarded: true })).toEqual({ kind: "trusted", explicit: true });
    expect(trustAtStart({ piTrusted: true, saved: null, guarded: false })).toEqual({
      kind: "trusted",
      explicit: false,
    });
  });
  it("the last trust flag counts", () => {
    expect(trustFlagOf(["pi", "--approve", "--no-approve"])).toBe("--no-approve");
    expect(trustFlagOf(["pi", "-p", "x"])).toBeUndefined();
  });
});

describe("the person's authority settings as they were at the start", () => {
  const layer = (settings: Record<string, unknown>): ConfigLayer => ({
    name: "user",
    entries: {},
    warnings: [],
    settings,
  });
  it('a "$toolCeiling": "off" written during the session does not count; other settings are read as they are now', () => {
    const atStart = authoritySettingsOf(layer({ $maxDepth: 1, $sandbox: "read-only" }));
    expect(atStart).toEqual({ $sandbox: "read-only" });
    const now = layer({
      $maxDepth: 2,
      $toolCeiling: "off",
      $sandbox: "off",
      $askPerson: false,
      $projectAgents: "always",
      $sandboxHide: [],
    });
    expect(withAuthorityAtStart(now, atStart).settings).toEqual({ $maxDepth: 2, $sandbox: "read-only" });
  });
});
