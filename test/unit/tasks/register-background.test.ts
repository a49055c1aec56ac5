import { describe, expect, it } from "vitest";
import { endedAbnormally } from "../../../src/tasks/register-background.ts";

describe("how a run of the main agent ended", () => {
  it("is abnormal when its last model call failed or was aborted (pi may still hold queued messages)", () => {
    expect(endedAbnormally([{ role: "user" }, { role: "assistant", stopReason: "error" }])).toBe(true);
    expect(endedAbnormally([{ role: "assistant", stopReason: "aborted" }, { role: "toolResult" }])).toBe(true);
  });

  it("is normal when the last model call finished (pi's loop drained its steer queue)", () => {
    expect(endedAbnormally([{ role: "assistant", stopReason: "error" }, { role: "assistant", stopReason: "stop" }])).toBe(false);
    expect(endedAbnormally([{ role: "assistant", stopReason: "toolUse" }, { role: "toolResult" }])).toBe(false);
    expect(endedAbnormally([])).toBe(false);
  });
});
