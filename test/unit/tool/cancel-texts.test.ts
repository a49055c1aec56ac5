/**
 * What the main agent reads when its `action: "cancel"` carries something that is not a task id: the rule, as for
 * the sessionId error, and no example id it could copy into its next call.
 */
import { describe, expect, it } from "vitest";
import { cancelInvalidTaskId } from "../../../src/tool/validate.ts";

describe("the malformed-taskId refusal of action=cancel", () => {
  it("states the rule without an example id or a hint at the id's shape", () => {
    for (const bad of ["../../project", "task-1", "019A0B1C-2D3E-7F40-8A5B-6C7D8E9F0A1B"]) {
      const message = cancelInvalidTaskId(bad);
      expect(message).toBe(
        `"${bad}" is not a taskId this tool handed out. Pass exactly the taskId of a dispatch receipt (\`Dispatched <agent>. taskId: <id>\`) of a running background task; never make one up. Nothing was cancelled.`,
      );
      // Nothing shaped like an id but the echoed value itself.
      expect(message.replace(bad, "")).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-/i);
      expect(message).not.toMatch(/uuid|v7|lowercase|hex|such as/i);
    }
  });
});
