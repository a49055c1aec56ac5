/**
 * The fan-out gate's decision (pure): may one more task be dispatched, given the caps, what this run of the
 * main agent has dispatched so far, and what is in flight? And the refusal the model reads when not: the cap,
 * where it is set, and what is running, so it can wait for results or cancel instead of retrying blindly.
 */
import { counted, oneLine } from "../shared/format.ts";
import { MAX_IN_FLIGHT_ENV, MAX_IN_FLIGHT_KEY, MAX_PER_TURN_ENV, MAX_PER_TURN_KEY } from "./fan-out-limits.ts";
import type { FanOutLimits } from "./fan-out-limits.ts";

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

export function fanOutHit(limits: FanOutLimits, dispatchedThisTurn: number, inFlight: number, asked = 1): FanOutHit | undefined {
  if (dispatchedThisTurn + asked > limits.perTurn) return { cap: "turn", limit: limits.perTurn, dispatched: dispatchedThisTurn, asked };
  if (inFlight + asked > limits.inFlight) return { cap: "in-flight", limit: limits.inFlight, dispatched: dispatchedThisTurn, asked };
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
  for (const task of inFlight.slice(0, LISTED_MAX)) lines.push(`- ${task.taskId} (${task.agent}, ${task.status}): ${oneLine(task.task, 100)}`);
  if (inFlight.length > LISTED_MAX) lines.push(`- and ${inFlight.length - LISTED_MAX} more`);
  if (blockingInFlight > 0) lines.push(`- ${blockingInFlight} blocking ${blockingInFlight === 1 ? "call" : "calls"} of this run`);
  lines.push("Nothing was dispatched. Wait for the results in flight, or cancel tasks you no longer need, and combine the remaining work into fewer tasks.");
  return lines.join("\n");
}

export const FAN_OUT_CONFIRM_TITLE = "Allow more subagents?";

export function fanOutQuestion(hit: Pick<FanOutHit, "cap" | "limit">): string {
  return hit.cap === "turn"
    ? `The model wants to dispatch more than ${counted(hit.limit, "subagent task")} in this run. Allow more until this run ends?`
    : `The model wants more than ${counted(hit.limit, "subagent task")} in flight at once. Allow more until this run ends?`;
}
