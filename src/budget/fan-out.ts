/**
 * The fan-out gate: its two caps, its decision, and the per-run count it decides from.
 */
import { counted, oneLine } from "../shared/text.ts";
import type { ExtensionContext } from "@mariozechner/pi-coding-agent";

/**
 * The fan-out gate's two caps: tasks dispatched per run of the main agent, and tasks in flight (running plus
 * queued, background and blocking). From the environment (`PI_SUBAGENT_MAX_TASKS_PER_TURN`,
 * `PI_SUBAGENT_MAX_TASKS_IN_FLIGHT`), else the user file's `$maxTasksPerTurn` / `$maxTasksInFlight`, else the
 * defaults 16 and 32, which a normal session never reaches; a project file's value counts only where it is lower
 * (a repository may tighten the person's caps, never lift them). Pure.
 */
const MAX_PER_TURN_ENV = "PI_SUBAGENT_MAX_TASKS_PER_TURN";
const MAX_IN_FLIGHT_ENV = "PI_SUBAGENT_MAX_TASKS_IN_FLIGHT";
export const MAX_PER_TURN_KEY = "$maxTasksPerTurn";
export const MAX_IN_FLIGHT_KEY = "$maxTasksInFlight";
const DEFAULT_MAX_PER_TURN = 16;
const DEFAULT_MAX_IN_FLIGHT = 32;

export interface FanOutLimits {
  perTurn: number;
  inFlight: number;
}

/** The caps a config file sets (already validated). */
export interface FanOutSettings {
  maxTasksPerTurn?: number;
  maxTasksInFlight?: number;
}

const isCap = (value: unknown): value is number =>
  typeof value === "number" && Number.isSafeInteger(value) && value >= 1;

const CAP_RULE = "must be a whole number of at least 1";

/** Reads one config file's caps; a bad value is reported and ignored. */
export function readFanOutSetting(key: string, value: unknown, settings: FanOutSettings, problems: string[]): void {
  if (!isCap(value)) {
    problems.push(`"${key}" ${CAP_RULE}; ignored`);
    return;
  }
  if (key === MAX_PER_TURN_KEY) settings.maxTasksPerTurn = value;
  else settings.maxTasksInFlight = value;
}

export function resolveFanOutLimits(
  env: NodeJS.ProcessEnv,
  files: { user?: FanOutSettings; project?: FanOutSettings },
): { limits: FanOutLimits; warnings: string[] } {
  const warnings: string[] = [];
  const fromEnv = (name: string): number | undefined => {
    const raw = env[name]?.trim();
    if (!raw) return undefined;
    const value = /^\d+$/.test(raw) ? Number(raw) : NaN;
    if (isCap(value)) return value;
    warnings.push(`pi-subagent-dispatch: ${name}=${JSON.stringify(raw.slice(0, 40))} ${CAP_RULE}; ignored`);
    return undefined;
  };
  // The person's cap (their environment, their file, the default); a project's only ever lowers it.
  const lower = (own: number, project: number | undefined): number =>
    project !== undefined && project < own ? project : own;
  const perTurn = lower(
    fromEnv(MAX_PER_TURN_ENV) ?? files.user?.maxTasksPerTurn ?? DEFAULT_MAX_PER_TURN,
    files.project?.maxTasksPerTurn,
  );
  const inFlight = lower(
    fromEnv(MAX_IN_FLIGHT_ENV) ?? files.user?.maxTasksInFlight ?? DEFAULT_MAX_IN_FLIGHT,
    files.project?.maxTasksInFlight,
  );
  return { limits: { perTurn, inFlight }, warnings };
}

/*
 * The fan-out gate's decision (pure): may one more task be dispatched, given the caps, what this run of the
 * main agent has dispatched so far, and what is in flight? And the refusal the model reads when not: the cap,
 * where it is set, and what is running, so it can wait for results or cancel instead of retrying blindly.
 */
/**
 * A cap the next dispatch would pass: `dispatched` this run so far, `asked` the places the call wants at once (a
 * batch's or a background chain's parts are admitted together, so four batches sent in one message do not each
 * take a few places and all fail).
 */
export interface FanOutHit {
  cap: "turn" | "in-flight";
  limit: number;
  dispatched: number;
  asked: number;
}

export interface InFlightTaskLine {
  taskId: string;
  agent: string;
  task: string;
  status: "running" | "queued";
}

export function fanOutHit(
  limits: FanOutLimits,
  dispatchedThisTurn: number,
  inFlight: number,
  asked = 1,
): FanOutHit | undefined {
  if (dispatchedThisTurn + asked > limits.perTurn)
    return { cap: "turn", limit: limits.perTurn, dispatched: dispatchedThisTurn, asked };
  if (inFlight + asked > limits.inFlight)
    return { cap: "in-flight", limit: limits.inFlight, dispatched: dispatchedThisTurn, asked };
  return undefined;
}

/** Most tasks listed in a refusal (the rest are counted). */
const LISTED_MAX = 10;

export function fanOutRefusal(hit: FanOutHit, inFlight: readonly InFlightTaskLine[], blockingInFlight: number): string {
  const asks = hit.asked > 1 ? `this call asks for ${hit.asked} at once` : "";
  const cap =
    hit.cap === "turn"
      ? `Fan-out cap reached: at most ${hit.limit} subagent tasks may be dispatched in one run of the main agent (${MAX_PER_TURN_ENV} or "${MAX_PER_TURN_KEY}" in subagent-isolation.json), ${asks ? `this run has dispatched ${hit.dispatched}, and ${asks}` : `and this run has dispatched ${hit.dispatched}`}.`
      : `Fan-out cap reached: at most ${hit.limit} subagent tasks may be in flight (running or queued) at once (${MAX_IN_FLIGHT_ENV} or "${MAX_IN_FLIGHT_KEY}" in subagent-isolation.json)${asks ? `, and ${asks}` : ""}.`;
  const total = inFlight.length + blockingInFlight;
  const lines = [cap, `In flight now: ${total} ${total === 1 ? "task" : "tasks"}.`];
  for (const task of inFlight.slice(0, LISTED_MAX))
    lines.push(`- ${task.taskId} (${task.agent}, ${task.status}): ${oneLine(task.task, 100)}`);
  if (inFlight.length > LISTED_MAX) lines.push(`- and ${inFlight.length - LISTED_MAX} more`);
  if (blockingInFlight > 0)
    lines.push(`- ${blockingInFlight} blocking ${blockingInFlight === 1 ? "call" : "calls"} of this run`);
  lines.push(
    "Nothing was dispatched. Wait for the results in flight, or cancel tasks you no longer need, and combine the remaining work into fewer tasks.",
  );
  return lines.join("\n");
}

const FAN_OUT_CONFIRM_TITLE = "Allow more subagents?";

export function fanOutQuestion(hit: Pick<FanOutHit, "cap" | "limit">): string {
  return hit.cap === "turn"
    ? `The model wants to dispatch more than ${counted(hit.limit, "subagent task")} in this run. Allow more until this run ends?`
    : `The model wants more than ${counted(hit.limit, "subagent task")} in flight at once. Allow more until this run ends?`;
}

/*
 * The fan-out gate at work: counts the tasks each run of the main agent dispatches (reset when a run starts)
 * and the blocking calls in flight, and decides each dispatch. Past a cap, the TUI asks the person once per run
 * (`ctx.ui.confirm`); a yes lifts the caps until the run ends, a no (or no UI) refuses the call with a message
 * that names the cap and what is in flight.
 */
export interface FanOutGateDeps {
  /** Background tasks running or queued now. */
  inFlight: () => InFlightTaskLine[];
}

export class FanOutGate {
  private readonly deps: FanOutGateDeps;
  private dispatchedThisRun = 0;
  private blocking = 0;
  /** The person's answer this run: asked at most once. */
  private decision: "allowed" | "declined" | undefined;

  constructor(deps: FanOutGateDeps) {
    this.deps = deps;
  }

  /** A new run of the main agent: its own count and its own question. */
  runStarted(): void {
    this.dispatchedThisRun = 0;
    this.decision = undefined;
  }

  /**
   * Admits `count` dispatches at once (a batch's parts together, so calls sent side by side cannot each take a few
   * places and all fail), or returns the refusal message. They are counted before any await, so parallel calls are
   * counted one after another.
   */
  async admit(
    limits: FanOutLimits,
    ctx: Pick<ExtensionContext, "hasUI" | "ui">,
    askPerson: boolean,
    count = 1,
  ): Promise<string | undefined> {
    const inFlight = this.deps.inFlight();
    const hit =
      this.decision === "allowed"
        ? undefined
        : fanOutHit(limits, this.dispatchedThisRun, inFlight.length + this.blocking, count);
    if (!hit) {
      this.dispatchedThisRun += count;
      return undefined;
    }
    if (askPerson && ctx.hasUI && this.decision === undefined) {
      this.decision = "declined";
      let allowed = false;
      try {
        allowed = await ctx.ui.confirm(FAN_OUT_CONFIRM_TITLE, fanOutQuestion(hit));
      } catch {
        allowed = false;
      }
      if (allowed) {
        this.decision = "allowed";
        this.dispatchedThisRun += count;
        return undefined;
      }
    }
    return fanOutRefusal(hit, inFlight, this.blocking);
  }

  /**
   * Gives back admitted dispatches that never started (a batch or chain whose later part was refused starts
   * none): they no longer count toward this run's cap, so a refused batch does not starve the next.
   */
  withdraw(count = 1): void {
    this.dispatchedThisRun = Math.max(0, this.dispatchedThisRun - count);
  }

  /** Counts a blocking run as in flight until the returned function is called (once; later calls do nothing). */
  beginBlockingRun(): () => void {
    this.blocking += 1;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.blocking -= 1;
    };
  }
}
