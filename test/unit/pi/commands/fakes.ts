/**
 * Fakes for the task commands' unit tests: tasks and records, a theme that leaves text unchanged, a ctx whose
 * `ui.custom` builds the component and lets the test press keys on it, and deps with in-memory sources.
 */
import type { MarkdownTheme } from "@mariozechner/pi-tui";
import type { Theme } from "@mariozechner/pi-coding-agent";
import type {
  CommandIo,
  Surface,
  LiveTasks,
  TaskCommandContext,
  TaskCommandDeps,
} from "../../../../src/pi/commands/command-io.ts";
import type { TaskSources } from "../../../../src/commands/task-lookup.ts";
import { emptyUsage } from "../../../../src/shared/text.ts";
import type { AppMode } from "../../../../src/shared/pi-process.ts";
import { initialRunState } from "../../../../src/run/event-reducer.ts";
import type { TaskSnapshot } from "../../../../src/tasks/registry.ts";
import type { TaskRecord, WorkflowRecord } from "../../../../src/records/record.ts";

export const KEY = {
  up: "\x1b[A",
  down: "\x1b[B",
  enter: "\r",
  escape: "\x1b",
  pageUp: "\x1b[5~",
  pageDown: "\x1b[6~",
  home: "\x1b[H",
  end: "\x1b[F",
} as const;

/** Ids as UUID v7 makes them: the same millisecond prefix for tasks dispatched together. */
export const ID_A = "01912345-6789-7abc-8def-0123456789ab";
export const ID_B = "01912345-6789-7abc-9def-0123456789cd";
export const ID_C = "01912399-0000-7000-8000-000000000001";
export const ID_OLD = "01900000-0000-7000-8000-0000000000ff";

export const plainTheme = {
  fg: (_color: string, text: string) => text,
  bold: (text: string) => text,
} as unknown as Theme;

const same = (text: string) => text;
export const plainMarkdownTheme: MarkdownTheme = {
  heading: same,
  link: same,
  linkUrl: same,
  code: same,
  codeBlock: same,
  codeBlockBorder: same,
  quote: same,
  quoteBorder: same,
  hr: same,
  listBullet: same,
  bold: same,
  italic: same,
  strikethrough: same,
  underline: same,
};

export function snapshot(taskId: string, fields: Partial<TaskSnapshot> = {}): TaskSnapshot {
  return {
    taskId,
    agent: "worker",
    task: `Job for ${taskId.slice(-2)}`,
    status: "running",
    dispatchedAt: 1_000,
    startedAt: 1_000,
    state: initialRunState(1_000),
    ...fields,
  };
}

export function record(taskId: string, fields: Partial<TaskRecord> = {}): TaskRecord {
  return {
    version: 1,
    taskId,
    agent: "coder",
    task: "Refactor the auth middleware.",
    mode: "async",
    status: "succeeded",
    exitCode: 0,
    stopReason: "stop",
    usage: { ...emptyUsage(), turns: 5, input: 12_500, output: 3_200, cost: 0.0042 },
    model: "fake/fake-model",
    durationMs: 154_000,
    dispatchedAt: 1_000,
    startedAt: 1_000,
    finishedAt: 155_000,
    output: "# Done\n\nThree files changed.",
    sessionFile: `/agent/subagent-sessions/${taskId}/session.jsonl`,
    cwd: "/work",
    envelope: "## [subagent-result] coder succeeded",
    delivered: true,
    ...fields,
  };
}

/** In-memory task sources: running tasks, records by id, and ids whose run lock a live process holds. */
export class FakeSources implements TaskSources {
  running_: TaskSnapshot[] = [];
  records = new Map<string, TaskRecord>();
  /** Task folders on disk without a record (running elsewhere, or crashed). */
  bareFolders: string[] = [];
  locked = new Set<string>();

  running(): TaskSnapshot[] {
    return [...this.running_];
  }
  storedIds(): string[] {
    const ids = new Set([...this.records.keys(), ...this.bareFolders, ...this.running_.map((t) => t.taskId)]);
    return [...ids].sort().reverse();
  }
  record(taskId: string): TaskRecord | undefined {
    return this.records.get(taskId);
  }
  runLockHeld(taskId: string): boolean {
    return this.locked.has(taskId);
  }
  recentRecords(limit: number): TaskRecord[] {
    return [...this.records.values()].sort((a, b) => b.finishedAt - a.finishedAt).slice(0, limit);
  }
  /** Batches and chains whose record is on disk, by id. */
  workflows = new Map<string, WorkflowRecord>();
  workflow(workflowId: string): WorkflowRecord | undefined {
    return this.workflows.get(workflowId);
  }
  storedWorkflowIds(): string[] {
    return [...this.workflows.keys()].sort().reverse();
  }
  add(...records: TaskRecord[]): this {
    for (const r of records) this.records.set(r.taskId, r);
    return this;
  }
}

/** Live tasks over FakeSources: a cancel marks the task as cancel-requested; `finish` ends it. */
export class FakeLive implements LiveTasks {
  readonly cancelled: string[] = [];
  private readonly listeners = new Set<() => void>();

  constructor(private readonly sources: FakeSources) {}

  get(taskId: string): TaskSnapshot | undefined {
    return this.sources.running_.find((t) => t.taskId === taskId);
  }
  has(taskId: string): boolean {
    return this.get(taskId) !== undefined;
  }
  /** The command of each cancel, in order. */
  readonly commands: string[] = [];
  cancelByUser(taskId: string, command = "/subagent-cancel"): boolean {
    const task = this.get(taskId);
    if (!task) return false;
    this.cancelled.push(taskId);
    this.commands.push(command);
    task.cancelRequested = { by: "user", reason: command };
    return true;
  }
  /** Every part in flight of the batch or chain with this full id (as the real registry does). */
  cancelWorkflowByUser(id: string): { kind: "batch" | "chain"; cancelled: number } | undefined {
    const parts = this.sources.running_.filter((t) => t.workflow?.id === id);
    const kind = parts[0]?.workflow?.kind;
    if (!kind) return undefined;
    for (const part of parts) this.cancelByUser(part.taskId);
    return { kind, cancelled: parts.length };
  }
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  get listenerCount(): number {
    return this.listeners.size;
  }
  /** The task ends: it leaves the running list and its record appears. */
  finish(taskId: string, fields: Partial<TaskRecord> = {}): void {
    const task = this.get(taskId);
    this.sources.running_ = this.sources.running_.filter((t) => t.taskId !== taskId);
    this.sources.add(record(taskId, { agent: task?.agent ?? "worker", task: task?.task ?? "", ...fields }));
    this.changed();
  }
  changed(): void {
    for (const listener of this.listeners) listener();
  }
}

export interface RecordedIo extends CommandIo {
  notices: Array<{ text: string; level: string }>;
  out: string[];
  failures: number;
}

export function recordingIo(surface: Surface, mode: AppMode): RecordedIo {
  const io: RecordedIo = {
    mode,
    surface,
    notices: [],
    out: [],
    failures: 0,
    notice: (text, level = "info") => void io.notices.push({ text, level }),
    stdout: (text) => void io.out.push(text),
    failed: () => void (io.failures += 1),
  };
  return io;
}

/** A component shown with ctx.ui.custom, and how the test drives it. */
interface Shown {
  component: { render(width: number): string[]; handleInput?(data: string): void; dispose?(): void };
  options: unknown;
  /** Resolves with what `done` was called with. */
  result: Promise<unknown>;
  closed: boolean;
  press(...keys: string[]): void;
  screen(width?: number): string;
}

export interface FakeCtx extends TaskCommandContext {
  shown: Shown[];
  renders: number;
  /** Resolves when the n-th component (1-based) is shown. */
  waitForShown(count: number): Promise<Shown>;
}

export function fakeCtx(rows = 24): FakeCtx {
  const shown: Shown[] = [];
  const waiters: Array<{ count: number; resolve: (s: Shown) => void }> = [];
  const ctx = {
    hasUI: true,
    shown,
    renders: 0,
    ui: {
      notify: () => undefined,
      custom: (factory: (...args: unknown[]) => Shown["component"], options?: unknown) =>
        new Promise((resolve) => {
          const entry = { options, closed: false } as Shown;
          let settle!: (value: unknown) => void;
          entry.result = new Promise((r) => (settle = r));
          const tui = { terminal: { rows, columns: 100 }, requestRender: () => void (ctx.renders += 1) };
          const done = (value: unknown) => {
            if (entry.closed) return;
            entry.closed = true;
            entry.component.dispose?.();
            settle(value);
            resolve(value);
          };
          entry.component = factory(tui, plainTheme, {}, done);
          entry.press = (...keys) => {
            for (const key of keys) entry.component.handleInput?.(key);
          };
          entry.screen = (width = 100) => entry.component.render(width).join("\n");
          shown.push(entry);
          for (const waiter of waiters.filter((w) => w.count === shown.length)) waiter.resolve(entry);
        }),
    },
    waitForShown: (count: number) =>
      new Promise<Shown>((resolve) => {
        if (shown.length >= count) resolve(shown[count - 1]!);
        else waiters.push({ count, resolve });
      }),
  };
  return ctx as unknown as FakeCtx;
}

export function fakeDeps(
  sources: FakeSources,
  io: CommandIo,
  live: LiveTasks | undefined,
  now = 61_000,
): TaskCommandDeps {
  return { sources, live: () => live, io: () => io, now: () => now, markdownTheme: () => plainMarkdownTheme };
}
