import { describe, expect, it } from "vitest";
import {
  callKey,
  describeCall,
  LoopGuard,
  LoopWatch,
  loopHitText,
  loopNudgeText,
  type LoopVerdict,
} from "../../../src/run/loop-guard.ts";
import { LOOP_GUARD_OFF, loopGuardValue, readEnvLoopGuard } from "../../../src/budget/loop-setting.ts";

type Call = [tool: string, args: unknown];

/** Feeds the calls to a default guard; the verdicts, one per call. */
function feed(calls: Call[], guard = LoopGuard.of(undefined) as LoopGuard): LoopVerdict[] {
  return calls.map(([tool, args]) => guard.onCall(tool, args));
}

/** The text of the loop a verdict names, or its kind when it names none. */
function hitText(verdict: LoopVerdict | undefined): string | undefined {
  return verdict && verdict.kind !== "go" ? loopHitText(verdict.hit) : verdict?.kind;
}

function kinds(verdicts: LoopVerdict[]): string {
  return verdicts.map((verdict) => verdict.kind[0]).join("");
}

const bash = (command: string): Call => ["bash", { command }];
const read = (path: string): Call => ["read", { path }];
const edit = (path: string, oldText: string, newText: string): Call => ["edit", { path, oldText, newText }];

describe("the loop guard", () => {
  it("nudges at the 8th identical call in a row and stops at the 12th", () => {
    const verdicts = feed(Array.from({ length: 14 }, () => bash("npm test")));
    expect(kinds(verdicts)).toBe("gggggggngggsss");
    const nudge = verdicts[7];
    expect(nudge).toEqual({ kind: "nudge", hit: { pattern: "bash npm test", calls: 8, cycle: false } });
    expect(verdicts[11]?.kind).toBe("stop");
    expect(hitText(verdicts[11])).toBe("loop: bash npm test repeated 12 times in a row");
  });

  it("treats key order and whitespace at the ends of strings as the same call", () => {
    expect(callKey("edit", { path: "a.ts ", oldText: "x" })).toBe(callKey("edit", { oldText: "x", path: "a.ts" }));
    expect(callKey("bash", { command: "ls -la" })).not.toBe(callKey("bash", { command: "ls  -la" }));
    const verdicts = feed(
      Array.from(
        { length: 8 },
        (_, index): Call => ["read", index % 2 ? { path: " a.txt" } : { limit: 5, path: "a.txt" }],
      ),
    );
    // Different arguments (a limit on every other call) are different calls: a cycle of two, not yet five rounds.
    expect(kinds(verdicts)).toBe("gggggggg");
  });

  it("nudges a cycle of two calls at its fifth round and stops it four calls later", () => {
    const calls = Array.from({ length: 16 }, (_, index) => (index % 2 ? read("out.log") : bash("make")));
    const verdicts = feed(calls);
    expect(kinds(verdicts)).toBe("gggggggggngggsss");
    expect(hitText(verdicts[9])).toBe("loop: the cycle bash make → read out.log repeated over 10 calls");
  });

  it("nudges a cycle of three calls at its fifth round", () => {
    const cycle = [bash("make"), read("out.log"), edit("a.c", "x", "y")];
    const verdicts = feed(Array.from({ length: 19 }, (_, index) => cycle[index % 3] as Call));
    expect(verdicts.findIndex((verdict) => verdict.kind === "nudge")).toBe(14);
    expect(verdicts.findIndex((verdict) => verdict.kind === "stop")).toBe(18);
  });

  it("nudges only once: a child that changes course and loops again is stopped, not nudged again", () => {
    const calls = [
      ...Array.from({ length: 8 }, () => bash("ls")),
      read("README.md"),
      ...Array.from({ length: 12 }, () => bash("ls")),
    ];
    const verdicts = feed(calls);
    expect(kinds(verdicts).replace(/g/g, "")).toBe("ns");
    expect(verdicts.findIndex((verdict) => verdict.kind === "stop")).toBe(8 + 1 + 11);
  });

  describe("honest patterns never trip it", () => {
    it("reading many different files", () => {
      expect(kinds(feed(Array.from({ length: 200 }, (_, index) => read(`src/file-${index}.ts`))))).not.toMatch(/[ns]/);
    });

    it("polling a build with different arguments", () => {
      const calls = Array.from({ length: 40 }, (_, index) => bash(`sleep 5; tail -n ${index + 1} build.log`));
      expect(kinds(feed(calls))).not.toMatch(/[ns]/);
    });

    it("running the tests, editing, running them again, with a different edit between each run", () => {
      const calls = Array.from({ length: 30 }, (_, index) => [
        bash("npm test"),
        edit("src/a.ts", `old ${index}`, `new ${index}`),
      ]).flat();
      expect(kinds(feed(calls))).not.toMatch(/[ns]/);
    });

    it("the same read after each edit", () => {
      const calls = Array.from({ length: 30 }, (_, index) => [
        edit("a.md", `v${index}`, `v${index + 1}`),
        read("a.md"),
      ]).flat();
      expect(kinds(feed(calls))).not.toMatch(/[ns]/);
    });

    it("checking a result a few times in a row", () => {
      expect(kinds(feed(Array.from({ length: 7 }, () => bash("git status"))))).toBe("ggggggg");
    });
  });

  it("follows the setting: 3 nudges at the 3rd call and stops at the 5th; off makes no guard", () => {
    const guard = LoopGuard.of(3) as LoopGuard;
    expect(
      kinds(
        feed(
          Array.from({ length: 5 }, () => bash("x")),
          guard,
        ),
      ),
    ).toBe("ggngs");
    expect(LoopGuard.of("off")).toBeUndefined();
  });

  it("reads the setting's values", () => {
    expect([false, 0, "0", "off", "false"].map(loopGuardValue)).toEqual(Array(5).fill(LOOP_GUARD_OFF));
    expect([3, 8, "12", 100].map(loopGuardValue)).toEqual([3, 8, 12, 100]);
    expect([true, 1, 2, -1, 2.5, "many", null].map(loopGuardValue)).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    expect(readEnvLoopGuard({})).toEqual({ value: 8 });
    expect(readEnvLoopGuard({ PI_SUBAGENT_LOOP_GUARD: "0" })).toEqual({ value: LOOP_GUARD_OFF });
    expect(readEnvLoopGuard({ PI_SUBAGENT_LOOP_GUARD: "2" })).toEqual({
      value: 8,
      warning:
        'pi-subagent-dispatch: PI_SUBAGENT_LOOP_GUARD="2" must be false, 0, or a whole number of at least 3; ignored',
    });
  });

  it("names the call short and tells the child what to do", () => {
    expect(describeCall("bash", { command: `echo ${"x".repeat(100)}\nls` })).toMatch(/^bash echo x+…$/);
    expect(describeCall("bash", { command: `echo ${"x".repeat(100)}` }).length).toBeLessThanOrEqual(65);
    expect(describeCall("custom", { count: 3 })).toBe('custom {"count":3}');
    expect(loopNudgeText({ pattern: "bash ls", calls: 8, cycle: false })).toBe(
      "You are repeating the same tool call (bash ls): 8 calls with the same arguments and nothing changing. " +
        "Change your approach, or stop calling tools and finish now with what you have. " +
        "If the pattern goes on, you will be stopped.",
    );
  });

  it("the runner's watch feeds the guard once per call started, not once per line", () => {
    const watch = LoopWatch.of(3) as LoopWatch;
    const state = {
      toolCalls: 0,
      lastTool: undefined as { name: string; summary: string; at: number } | undefined,
      lastToolArgs: undefined as unknown,
    };
    const verdicts: string[] = [];
    for (let call = 1; call <= 3; call++) {
      state.toolCalls = call;
      state.lastTool = { name: "bash", summary: "ls", at: call };
      state.lastToolArgs = { command: "ls" };
      // Other lines (the call's output, its end, the next turn) change nothing.
      for (let line = 0; line < 4; line++) verdicts.push(watch.afterLine(state).kind);
    }
    expect(verdicts.join(",")).toBe(
      ["go", "go", "go", "go", "go", "go", "go", "go", "nudge", "go", "go", "go"].join(","),
    );
    expect(LoopWatch.of("off")).toBeUndefined();
  });
});
