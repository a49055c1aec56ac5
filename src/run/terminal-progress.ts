/**
 * What a blocking run tells the terminal on stderr in print and JSON mode, so a person is never in front of a
 * silent terminal while a child works: a line when the child starts (agent, task id), a progress line when it
 * made tool calls since the last line (at most one every PROGRESS_LINE_MIN_MS) or, when nothing new happened,
 * one every QUIET_LINE_MS, and a line when it ends. Pure: the caller feeds it the run's state once a second and
 * writes what it returns. Every line has the terminal's control sequences removed (a tool's arguments are the
 * child's to choose).
 *
 *   subagent worker started · task 01a24177-831b-70e9-9b68-dc543ba7b57b
 *   subagent worker …a7b57b · 00:06 · ⚡ bash: npm test · 1 tool call
 *   subagent worker succeeded · 00:09 · 2 turns/↑1.2k/↓300 · task 01a24177-831b-70e9-9b68-dc543ba7b57b
 */
import { formatElapsed } from "../shared/format.ts";
import { stripTerminalControls } from "../shared/terminal-text.ts";

/** The least time between two lines of one run (a start line counts). */
export const PROGRESS_LINE_MIN_MS = 5_000;
/** The longest a run stays silent while it works: a line is written even when nothing new happened. */
export const QUIET_LINE_MS = 30_000;
/** Characters of a progress line's activity (a long command is cut). */
const ACTIVITY_MAX = 120;

/** `PI_SUBAGENT_PROGRESS`: `0`, `off`, `false` or `no` silence the lines; anything else (or unset) keeps them. */
export const PROGRESS_ENV = "PI_SUBAGENT_PROGRESS";

export function progressLinesWanted(env: NodeJS.ProcessEnv): boolean {
  const value = env[PROGRESS_ENV]?.trim().toLowerCase();
  return !(value === "0" || value === "off" || value === "false" || value === "no");
}

/** A run's state as the reporter needs it. */
export interface ProgressSnapshot {
  elapsedMs: number;
  /** `⚡ bash: npm test`, `thinking`, `waiting for the model` (phase-label.ts). */
  phase: string;
  /** The last tool call, `bash: npm test`, if any. */
  lastTool?: string;
  toolCalls: number;
}

function clean(text: string): string {
  return stripTerminalControls(text).replace(/\s+/g, " ").trim();
}

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

function toolCallsText(count: number): string {
  return `${count} tool ${count === 1 ? "call" : "calls"}`;
}

export function startLine(agent: string, taskId: string): string {
  return `subagent ${clean(agent)} started · task ${clean(taskId)}`;
}

/** `subagent worker succeeded · 00:09 · 2 turns/↑1.2k/↓300 · task <id>` */
export function endLine(agent: string, taskId: string, status: string, durationMs: number, usage: string): string {
  return `subagent ${clean(agent)} ${clean(status)} · ${formatElapsed(durationMs)} · ${clean(usage)} · task ${clean(taskId)}`;
}

export function progressLine(agent: string, taskId: string, snapshot: ProgressSnapshot): string {
  const phase = clean(snapshot.phase);
  // Between tool calls the phase says little: the last call says what the child was doing.
  const activity = phase.startsWith("⚡") || !snapshot.lastTool ? phase : `${phase} (last: ${clean(snapshot.lastTool)})`;
  return `subagent ${clean(agent)} …${clean(taskId).slice(-6)} · ${formatElapsed(snapshot.elapsedMs)} · ${cut(activity, ACTIVITY_MAX)} · ${toolCallsText(snapshot.toolCalls)}`;
}

/** One run's lines: when to write a progress line. */
export class TerminalProgress {
  private lastLineAt: number;
  private toolCallsShown = 0;

  constructor(
    private readonly agent: string,
    private readonly taskId: string,
    startedAtMs = 0,
  ) {
    this.lastLineAt = startedAtMs;
  }

  start(): string {
    return startLine(this.agent, this.taskId);
  }

  /** The progress line due at `snapshot.elapsedMs` (time since the start), if one is. */
  tick(snapshot: ProgressSnapshot): string | undefined {
    const since = snapshot.elapsedMs - this.lastLineAt;
    if (since < PROGRESS_LINE_MIN_MS) return undefined;
    if (snapshot.toolCalls === this.toolCallsShown && since < QUIET_LINE_MS) return undefined;
    this.lastLineAt = snapshot.elapsedMs;
    this.toolCallsShown = snapshot.toolCalls;
    return progressLine(this.agent, this.taskId, snapshot);
  }

  end(status: string, durationMs: number, usage: string): string {
    return endLine(this.agent, this.taskId, status, durationMs, usage);
  }
}
