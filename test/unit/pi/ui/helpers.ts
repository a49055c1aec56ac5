/**
 * Helpers for the UI tests: a plain styler (formatters' output is then plain text), pi's real dark theme for
 * rendering pi-tui components, ANSI stripping, and task snapshots.
 */
import { initialRunState, type RunState } from "../../../../src/run/event-reducer.ts";
import { initTheme, type Theme } from "@mariozechner/pi-coding-agent";
import type { TaskSnapshot } from "../../../../src/tasks/registry.ts";
import type { Styler } from "../../../../src/shared/text.ts";

export const plain: Styler = { fg: (_colour, text) => text, bold: (text) => text };

/** pi's dark theme, as pi hands it to renderers (pi keeps the instance on globalThis). */
export function darkTheme(): Theme {
  initTheme("dark");
  const instance = (globalThis as Record<symbol, unknown>)[Symbol.for("@mariozechner/pi-coding-agent:theme")];
  if (!instance) throw new Error("pi's theme was not initialised");
  return instance as Theme;
}

// eslint-disable-next-line no-control-regex
const ANSI = /\x1b\[[0-9;]*m|\x1b\]8;;[^\x07\x1b]*(?:\x07|\x1b\\)/g;

export function stripAnsi(text: string): string {
  return text.replace(ANSI, "");
}

/** Rendered lines without colours and without trailing padding. */
export function plainLines(lines: readonly string[]): string[] {
  return lines.map((line) => stripAnsi(line).replace(/\s+$/, ""));
}

/** A live run state as the reducer starts it, thinking and with one event seen, plus `overrides`. */
export function runState(overrides: Partial<RunState> = {}): RunState {
  return { ...initialRunState(0), phase: "thinking", events: 1, ...overrides };
}

let counter = 0;

/**
 * A UUID-v7-like id unique to the test run: tasks dispatched a millisecond apart (`01912345-0001-...`), each with
 * its own (deterministic) random end, as real ids have.
 */
function nextTaskId(): string {
  counter += 1;
  const tail = (Math.imul(counter, 0x9e3779b1) >>> 0).toString(16).padStart(8, "0");
  return `01912345-${counter.toString(16).padStart(4, "0")}-7abc-8def-0123${tail}`;
}

/** A running task, thinking, dispatched at time 0. */
export function runningTask(overrides: Partial<TaskSnapshot> = {}): TaskSnapshot {
  return {
    taskId: nextTaskId(),
    agent: "coder",
    task: "Do the thing.",
    status: "running",
    dispatchedAt: 0,
    startedAt: 0,
    state: runState(),
    ...overrides,
  };
}

export function queuedTask(overrides: Partial<TaskSnapshot> = {}): TaskSnapshot {
  return runningTask({ status: "queued", startedAt: undefined, state: undefined, ...overrides });
}
