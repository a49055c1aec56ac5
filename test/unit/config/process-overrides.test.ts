import { beforeEach, describe, expect, it, vi } from "vitest";
import {
  clearProcessOverride,
  getProcessOverrides,
  processLayer,
  resetProcessOverridesForTests,
  setProcessOverride,
} from "../../../src/config/load.ts";
import type { ThinkingLevel } from "../../../src/shared/thinking.ts";

beforeEach(() => resetProcessOverridesForTests());

describe("the process layer", () => {
  it("starts empty", () => {
    expect(getProcessOverrides()).toEqual({});
  });

  it("a string sets, null clears, undefined leaves a field as it is", () => {
    setProcessOverride("coder", { model: "p/pro", thinking: "high" });
    expect(getProcessOverrides()).toEqual({ coder: { model: "p/pro", thinking: "high" } });
    setProcessOverride("coder", { model: "p/flash" });
    expect(getProcessOverrides()).toEqual({ coder: { model: "p/flash", thinking: "high" } });
    setProcessOverride("coder", { model: undefined, thinking: null });
    expect(getProcessOverrides()).toEqual({ coder: { model: "p/flash" } });
  });

  it("clearing both fields removes the entry", () => {
    setProcessOverride("coder", { model: "p/pro", thinking: "low" });
    setProcessOverride("coder", { model: null, thinking: null });
    expect(getProcessOverrides()).toEqual({});
    expect(Object.keys(processLayer().entries)).toEqual([]);
  });

  it("an empty patch on a missing entry creates nothing", () => {
    setProcessOverride("coder", {});
    setProcessOverride("coder", { model: null });
    expect(getProcessOverrides()).toEqual({});
  });

  it("rejects the reserved names and other unsafe names, changing nothing", () => {
    setProcessOverride("ok", { model: "p/m" });
    for (const name of ["__proto__", "constructor", "prototype", "$models", "../x", ""]) {
      expect(() => setProcessOverride(name, { model: "p/m" })).toThrow(/^Cannot override /);
    }
    expect(getProcessOverrides()).toEqual({ ok: { model: "p/m" } });
    expect(({} as Record<string, unknown>)["model"]).toBeUndefined();
  });

  it("rejects an empty model or an unknown thinking level as a whole, changing nothing", () => {
    setProcessOverride("coder", { model: "p/pro", thinking: "low" });
    expect(() => setProcessOverride("coder", { model: " ", thinking: "high" })).toThrow(
      "The model must be a non-empty string (provider/model-id).",
    );
    expect(() => setProcessOverride("coder", { model: "p/new", thinking: "ultra" as ThinkingLevel })).toThrow(
      "The thinking level must be one of off, minimal, low, medium, high, xhigh, max.",
    );
    expect(getProcessOverrides()).toEqual({ coder: { model: "p/pro", thinking: "low" } });
  });

  it("getProcessOverrides returns a copy", () => {
    setProcessOverride("coder", { model: "p/pro" });
    const copy = getProcessOverrides();
    copy["coder"]!.model = "changed";
    copy["other"] = { model: "x" };
    expect(getProcessOverrides()).toEqual({ coder: { model: "p/pro" } });
  });

  it("clearProcessOverride removes one agent, and is fine for a missing one", () => {
    setProcessOverride("a", { model: "p/1" });
    setProcessOverride("b", { thinking: "max" });
    clearProcessOverride("a");
    clearProcessOverride("missing");
    expect(getProcessOverrides()).toEqual({ b: { thinking: "max" } });
  });

  it("resetProcessOverridesForTests empties the layer", () => {
    setProcessOverride("a", { model: "p/1" });
    resetProcessOverridesForTests();
    expect(getProcessOverrides()).toEqual({});
  });

  it("starts empty under a new load of the extension (/reload evaluates its modules afresh)", async () => {
    setProcessOverride("a", { model: "p/1" });
    expect(getProcessOverrides()).toEqual({ a: { model: "p/1" } });
    vi.resetModules();
    const reloaded = await import("../../../src/config/load.ts");
    expect(reloaded.getProcessOverrides()).toEqual({});
    reloaded.setProcessOverride("b", { thinking: "low" });
    expect(reloaded.processLayer().entries).toEqual({ b: { thinking: "low" } });
    expect(getProcessOverrides()).toEqual({ a: { model: "p/1" } });
  });

  it("processLayer presents it like a file layer", () => {
    setProcessOverride("a", { thinking: "off" });
    expect(processLayer()).toEqual({ name: "process", entries: { a: { thinking: "off" } }, warnings: [] });
  });
});
