import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { endedAbnormally, registerBackgroundTasks } from "../../../src/pi/runtime.ts";

describe("how a run of the main agent ended", () => {
  it("is abnormal when its last model call failed or was aborted (pi may still hold queued messages)", () => {
    expect(endedAbnormally([{ role: "user" }, { role: "assistant", stopReason: "error" }])).toBe(true);
    expect(endedAbnormally([{ role: "assistant", stopReason: "aborted" }, { role: "toolResult" }])).toBe(true);
  });

  it("is normal when the last model call finished (pi's loop drained its steer queue)", () => {
    expect(
      endedAbnormally([
        { role: "assistant", stopReason: "error" },
        { role: "assistant", stopReason: "stop" },
      ]),
    ).toBe(false);
    expect(endedAbnormally([{ role: "assistant", stopReason: "toolUse" }, { role: "toolResult" }])).toBe(false);
    expect(endedAbnormally([])).toBe(false);
  });
});

describe("a result that enters the conversation twice", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "reg-bg-"));
    vi.stubEnv("PI_CODING_AGENT_DIR", dir);
  });
  afterEach(() => {
    vi.unstubAllEnvs();
    rmSync(dir, { recursive: true, force: true });
  });

  it("is marked duplicate when it starts (before pi draws and stores it) and kept from the model", async () => {
    const handlers = new Map<string, (event: unknown, ctx: unknown) => unknown>();
    const pi = {
      on: (name: string, handler: (event: unknown, ctx: unknown) => unknown) => void handlers.set(name, handler),
      sendMessage: () => undefined,
    };
    registerBackgroundTasks(pi as unknown as ExtensionAPI);
    const copy = () => ({
      role: "custom",
      customType: "subagent-result",
      content: "R",
      display: true,
      details: { taskId: "0190a0b0-0000-7000-8000-000000000001" },
    });
    const first = copy();
    const second = copy();
    for (const message of [first, second]) {
      await handlers.get("message_start")!({ message }, {});
      await handlers.get("message_end")!({ message }, {});
    }
    expect(first.details).not.toHaveProperty("duplicate");
    expect(second.details).toMatchObject({ duplicate: true });
    const result = (await handlers.get("context")!(
      { messages: [{ role: "user", content: "hi" }, first, second] },
      {},
    )) as { messages: unknown[] };
    expect(result.messages).toEqual([{ role: "user", content: "hi" }, first]);
  });
});
