/**
 * The loop guard (pure): watches the tool calls a child starts and says when it is going round in circles. The
 * same call (tool and normalised arguments) N times in a row, or a cycle of two or three calls repeated, gets the
 * child one nudge; if the pattern goes on after the nudge, the run is stopped.
 */
import type { RunState } from "./event-reducer.ts";
import { DEFAULT_LOOP_REPEATS, type LoopGuardSetting } from "../budget/loop-setting.ts";

/*
 * The defaults are set so that no honest task meets them. An honest child re-runs a call only after something
 * changed in between (an edit, a different argument); eight identical calls in a row, with nothing else between,
 * means the child is not taking in what the call returns. A cycle must go round more than twice as long a pair
 * (`run tests, read the same file`) may honestly repeat a few times while the child thinks: five full rounds of an
 * unchanged cycle (ten to fifteen calls) is a loop. After the nudge the child gets four more calls of the same
 * pattern to change course before it is stopped. All three counts follow from the one setting, `loopGuard` (the
 * calls in a row): a cycle trips at half of it plus one rounds, the stop comes half of it after the nudge.
 */
/** The cycle lengths watched besides a single repeated call. */
const CYCLE_LENGTHS = [2, 3] as const;
const LONGEST_CYCLE = 3;
/** The longest argument text kept per call: a `write` of a large file is compared by its start and its length. */
const MAX_KEY_CHARS = 2000;
/** How the repeated call is named in the nudge and the reason. */
const SHORT_ARGS_CHARS = 60;

export interface LoopThresholds {
  /** Identical calls in a row that get the nudge. */
  repeats: number;
  /** Full rounds of an unchanged 2- or 3-call cycle that get the nudge. */
  cycleRounds: number;
  /** Calls that continue the pattern after the nudge before the run is stopped. */
  afterNudge: number;
}

/** The three counts of one `loopGuard` setting (see the comment above). */
function loopThresholds(repeats: number): LoopThresholds {
  const half = Math.ceil(repeats / 2);
  return { repeats, cycleRounds: half + 1, afterNudge: half };
}

/** Sorts object keys and trims the ends of strings, so that `{a:1,b:" x"}` and `{b:"x",a:1}` are one call. */
function normalise(value: unknown): unknown {
  if (typeof value === "string") return value.trim();
  if (Array.isArray(value)) return value.map(normalise);
  if (value !== null && typeof value === "object") {
    const record = value as Record<string, unknown>;
    const sorted: Record<string, unknown> = {};
    for (const key of Object.keys(record).sort()) sorted[key] = normalise(record[key]);
    return sorted;
  }
  return value;
}

/** One call's identity: its tool and its normalised arguments (cut long, with the full length kept). */
export function callKey(tool: string, args: unknown): string {
  const text = JSON.stringify(normalise(args ?? {})) ?? "";
  return text.length > MAX_KEY_CHARS ? `${tool} ${text.slice(0, MAX_KEY_CHARS)}…${text.length}` : `${tool} ${text}`;
}

/** `bash echo hi`: the tool and its arguments on one short line (the first string argument when there is one). */
export function describeCall(tool: string, args: unknown): string {
  let shown = "";
  if (args !== null && typeof args === "object" && !Array.isArray(args)) {
    const first = Object.values(args as Record<string, unknown>).find((value) => typeof value === "string");
    shown = typeof first === "string" ? first : JSON.stringify(args);
  } else if (args !== undefined) shown = JSON.stringify(args) ?? "";
  shown = shown.replace(/\s+/g, " ").trim();
  if (shown.length > SHORT_ARGS_CHARS) shown = `${shown.slice(0, SHORT_ARGS_CHARS - 1)}…`;
  return shown ? `${tool} ${shown}` : tool;
}

/** What a loop looks like: the call (or cycle of calls) repeated, and how many times in all. */
export interface LoopHit {
  /** `bash ls`, or for a cycle `bash ls → read a.txt`. */
  pattern: string;
  /** Calls (for a cycle: calls, not rounds) that followed the pattern. */
  calls: number;
  cycle: boolean;
}

export type LoopVerdict = { kind: "go" } | { kind: "nudge"; hit: LoopHit } | { kind: "stop"; hit: LoopHit };

/** `loop: bash ls repeated 12 times in a row` / `loop: the cycle bash ls → read a.txt repeated over 15 calls`. */
export function loopHitText(hit: LoopHit): string {
  return hit.cycle
    ? `loop: the cycle ${hit.pattern} repeated over ${hit.calls} calls`
    : `loop: ${hit.pattern} repeated ${hit.calls} times in a row`;
}

/** The steer the child gets once, when the pattern first trips. */
export function loopNudgeText(hit: LoopHit): string {
  const what = hit.cycle ? `the same cycle of tool calls (${hit.pattern})` : `the same tool call (${hit.pattern})`;
  return (
    `You are repeating ${what}: ${hit.calls} calls with the same arguments and nothing changing. ` +
    "Change your approach, or stop calling tools and finish now with what you have. " +
    "If the pattern goes on, you will be stopped."
  );
}

interface Call {
  key: string;
  label: string;
}

/**
 * Fed each call as the child starts it. Keeps only the last few calls and the length of the current run of each
 * pattern, so its work per call is constant. The child is nudged once per run; after that, a pattern that goes
 * `afterNudge` calls past the count that trips it stops the run (the same pattern, or a new one as long).
 */
export class LoopGuard {
  private readonly thresholds: LoopThresholds;
  private readonly recent: Call[] = [];
  /** Length of the current run of identical calls. */
  private sameRun = 0;
  /** Per cycle length: calls in the current run where each call repeats the one that length back. */
  private readonly cycleRun = new Map<number, number>();
  private nudged = false;

  constructor(thresholds: LoopThresholds) {
    this.thresholds = thresholds;
  }

  /** A guard for the setting, or undefined when it is off. */
  static of(setting: LoopGuardSetting | undefined): LoopGuard | undefined {
    if (setting === "off") return undefined;
    return new LoopGuard(loopThresholds(setting ?? DEFAULT_LOOP_REPEATS));
  }

  /** The child started `tool` with `args`: go on, nudge it (once), or stop it. */
  onCall(tool: string, args: unknown): LoopVerdict {
    const call = { key: callKey(tool, args), label: describeCall(tool, args) };
    this.sameRun = this.recent.at(-1)?.key === call.key ? this.sameRun + 1 : 1;
    for (const length of CYCLE_LENGTHS) {
      const continues = this.recent.at(-length)?.key === call.key;
      // A broken run restarts with the calls that may be the first round of a new cycle.
      const run = continues ? (this.cycleRun.get(length) ?? 0) + 1 : Math.min(length, this.recent.length + 1);
      this.cycleRun.set(length, run);
    }
    this.recent.push(call);
    if (this.recent.length > LONGEST_CYCLE) this.recent.shift();

    const hit = this.currentHit(call);
    if (!hit) return { kind: "go" };
    if (!this.nudged) {
      this.nudged = true;
      return { kind: "nudge", hit: hit.hit };
    }
    return hit.hit.calls >= hit.trips + this.thresholds.afterNudge ? { kind: "stop", hit: hit.hit } : { kind: "go" };
  }

  /** The pattern the last call continues, if it has reached the count that trips the guard. */
  private currentHit(call: Call): { hit: LoopHit; trips: number } | undefined {
    const { repeats, cycleRounds } = this.thresholds;
    // A single repeated call trips first (its count is below any cycle's), so a cycle found here has two different calls.
    if (this.sameRun >= repeats)
      return { hit: { pattern: call.label, calls: this.sameRun, cycle: false }, trips: repeats };
    for (const length of CYCLE_LENGTHS) {
      const calls = this.cycleRun.get(length) ?? 0;
      const trips = length * cycleRounds;
      if (calls >= trips && this.sameRun < calls) {
        const pattern = this.recent
          .slice(-length)
          .map((each) => each.label)
          .join(" → ");
        return { hit: { pattern, calls, cycle: true }, trips };
      }
    }
    return undefined;
  }
}

/**
 * The runner's per-line hook (like the budget watch): one integer comparison per line of the child's stream, and
 * the guard fed only when a new tool call started.
 */
export class LoopWatch {
  private readonly guard: LoopGuard;
  private seenCalls = 0;

  constructor(guard: LoopGuard) {
    this.guard = guard;
  }

  /** A watch for the setting, or undefined when the guard is off. */
  static of(setting: LoopGuardSetting | undefined): LoopWatch | undefined {
    const guard = LoopGuard.of(setting);
    return guard ? new LoopWatch(guard) : undefined;
  }

  /** Call after each line was applied to `state`: the verdict on the call that has just started, if one did. */
  afterLine(state: Pick<RunState, "toolCalls" | "lastTool" | "lastToolArgs">): LoopVerdict {
    if (state.toolCalls === this.seenCalls || !state.lastTool) return { kind: "go" };
    this.seenCalls = state.toolCalls;
    return this.guard.onCall(state.lastTool.name, state.lastToolArgs);
  }
}
