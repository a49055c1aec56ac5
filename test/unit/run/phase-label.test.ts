import { describe, expect, it } from "vitest";
import { phaseLabel } from "../../../src/run/event-reducer.ts";

describe("phaseLabel", () => {
  it("names each phase", () => {
    const base = { retryAttempts: 0 };
    expect(phaseLabel({ ...base, phase: "starting" })).toBe("starting");
    expect(phaseLabel({ ...base, phase: "thinking" })).toBe("thinking");
    expect(phaseLabel({ ...base, phase: "writing" })).toBe("writing");
    expect(phaseLabel({ ...base, phase: "waiting" })).toBe("waiting for the model");
    expect(phaseLabel({ ...base, phase: "done" })).toBe("done");
    expect(phaseLabel({ phase: "retrying", retryAttempts: 2 })).toBe("retrying (2)");
  });

  it("shows the running tool with its summary", () => {
    expect(
      phaseLabel({ phase: "tool", retryAttempts: 0, currentTool: { name: "bash", summary: "npm test", at: 0 } }),
    ).toBe("⚡ bash: npm test");
    expect(phaseLabel({ phase: "tool", retryAttempts: 0, currentTool: { name: "ls", summary: "", at: 0 } })).toBe(
      "⚡ ls",
    );
    expect(phaseLabel({ phase: "tool", retryAttempts: 0 })).toBe("⚡ tool");
  });
});
