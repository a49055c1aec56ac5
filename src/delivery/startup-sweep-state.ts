/**
 * Whether this process's start-up sweep (src/start/register-startup-sweep.ts) ran, and a promise that settles once
 * it has: the background part waits for it before delivering a session's waiting results, so a run the sweep just
 * recorded (a hard-killed pi's blocking call, whose continued session must hear of it) goes out in the same
 * delivery. Per process, like the sweep itself.
 */
import { perProcess } from "../shared/per-process.ts";

export interface StartupSweepState {
  done: boolean;
  /** Settles when the sweep has run, found nothing to do, or failed; never rejects. */
  readonly settled: Promise<void>;
  settle: () => void;
}

export function startupSweepState(): StartupSweepState {
  return perProcess("startup-sweep", () => {
    let settle = () => {};
    const settled = new Promise<void>((resolve) => (settle = resolve));
    return { done: false, settled, settle };
  });
}

/** How long delivery waits for the sweep at most (a sweep that never settles must not hold results back). */
export const SWEEP_WAIT_MAX_MS = 5000;

/** Settles when the sweep has, or after SWEEP_WAIT_MAX_MS, whichever comes first. */
export function afterStartupSweep(): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, SWEEP_WAIT_MAX_MS);
    timer.unref();
  });
  return Promise.race([startupSweepState().settled, bound]).finally(() => clearTimeout(timer));
}
