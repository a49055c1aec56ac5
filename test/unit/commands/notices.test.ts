import { describe, expect, it } from "vitest";
import {
  alreadyFinished,
  cancelledCount,
  cancelOutsideTui,
  noFinalOutput,
  noRunningTaskMatches,
  noTaskRecord,
  NOTHING_TO_CANCEL,
  prefixAmbiguous,
  prefixTooShort,
  RESULT_STILL_RUNNING,
  watchEnded,
  watchOutsideTui,
} from "../../../src/commands/task-commands.ts";

describe("the spec's notices, to the letter", () => {
  it("cancel-all", () => {
    expect(cancelledCount(2)).toBe("Cancelled 2 running subagent task(s).");
    expect(NOTHING_TO_CANCEL).toBe("No running subagent tasks to cancel.");
  });

  it("result", () => {
    expect(RESULT_STILL_RUNNING).toBe("Task still running — view it after it finishes");
    expect(noTaskRecord("0191abcd")).toBe("No task record for: 0191abcd");
    expect(noFinalOutput("/a/b/session.jsonl")).toBe("Task has no final output (session file: /a/b/session.jsonl)");
  });
});

describe("our notices", () => {
  it("say how long a prefix must be", () => {
    expect(prefixTooShort("01")).toBe('Task id "01" is too short: type at least 4 characters of the taskId.');
  });

  it("list the matches of an ambiguous prefix, at most 8 by name", () => {
    const two = [{ taskId: "0191-a", agent: "coder" }, { taskId: "0191-b" }];
    expect(prefixAmbiguous("0191", two)).toBe(
      '"0191" matches 2 tasks: 0191-a (coder), 0191-b. Type more of the taskId.',
    );
    const many = Array.from({ length: 11 }, (_, i) => ({ taskId: `0191-${i}` }));
    expect(prefixAmbiguous("0191", many)).toContain("0191-7 and 3 more.");
    expect(prefixAmbiguous("0191", many)).not.toContain("0191-8");
  });

  it("name what runs when an id matches nothing running", () => {
    expect(noRunningTaskMatches("abcd", "subagent-cancel")).toBe("No running subagent task matches: abcd");
    expect(noRunningTaskMatches("abcd", "subagent-watch", [{ taskId: "0191-a", agent: "coder" }])).toBe(
      "No running subagent task matches: abcd. Running subagent tasks: 0191-a (coder). Use /subagent-watch <taskId>.",
    );
  });

  it("point a finished task and an ended watch to /subagent-result", () => {
    expect(alreadyFinished("0191-a", "succeeded")).toBe(
      "Task 0191-a already finished (succeeded). Its result: /subagent-result 0191-a",
    );
    expect(watchEnded("0191-a", "failed")).toBe("Task ended (failed). Full result: /subagent-result 0191-a");
    expect(watchEnded("0191-a", undefined)).toBe("Task ended. Full result: /subagent-result 0191-a");
  });

  it("say what each command can and cannot do outside the TUI, on one line", () => {
    const cancel = cancelOutsideTui("subagent-cancel", "print");
    expect(cancel).toBe(
      "/subagent-cancel stops background subagent tasks, which exist only in the interactive TUI; in print mode each delegation runs synchronously inside its subagent tool call and ends with it, so there is nothing to cancel here.",
    );
    expect(cancelOutsideTui("subagent-cancel-all", "rpc")).toContain(
      "in rpc mode each delegation runs synchronously inside its subagent tool call (abort the call to stop it)",
    );
    expect(watchOutsideTui("json")).toBe(
      "/subagent-watch is a live view of a background task and needs the interactive TUI; in json mode read a finished task with /subagent-result <taskId>.",
    );
    for (const text of [cancel, watchOutsideTui("print")]) expect(text).not.toContain("\n");
  });
});
