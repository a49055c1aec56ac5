/**
 * Argument completion for the task commands: after `/subagent-cancel ` (or watch, or result) pi's editor
 * offers the task ids that start with what is typed, each with its agent, status and task. Cancel and watch
 * offer this pi's running and queued tasks; result offers those and the most recent finished ones on disk.
 * The finished list is read from disk at most once every few seconds, since pi asks on every key.
 */
import type { AutocompleteItem } from "@mariozechner/pi-tui";
import { formatElapsed, oneLine } from "../shared/format.ts";
import type { TaskSnapshot } from "../tasks/registry.ts";
import type { TaskRecord } from "../records/types.ts";
import { statusWithCause } from "./result-text.ts";
import type { TaskSources } from "./task-lookup.ts";
import { idMatches, normalizeTaskInput } from "./task-prefix.ts";
import { shortTaskId } from "../shared/short-id.ts";

/** At most this many suggestions (the newest). */
export const COMPLETIONS_MAX = 20;
/** How many finished tasks /subagent-result offers. */
export const RECENT_FINISHED_MAX = 20;
const FINISHED_CACHE_MS = 3000;
const PREVIEW_MAX = 60;
/**
 * The id part of a suggestion's label: pi shows labels in a column of about 30 characters, too narrow for a
 * whole id and an agent. Its first 8 characters (the time) and the short id the widget shows (its random end):
 * `01912345…3f9a2c7d`; the full id is what gets inserted.
 */
export function labelId(taskId: string): string {
  return `${taskId.slice(0, 8)}…${shortTaskId(taskId)}`;
}

export interface CompletionTask {
  taskId: string;
  agent: string;
  status: string;
  task: string;
}

export function runningCompletionTask(task: TaskSnapshot, now: number): CompletionTask {
  const status = task.status === "queued" ? "queued" : `running ${formatElapsed(now - (task.startedAt ?? task.dispatchedAt))}`;
  return { taskId: task.taskId, agent: task.agent, status, task: task.task };
}

export function finishedCompletionTask(record: TaskRecord): CompletionTask {
  return { taskId: record.taskId, agent: record.agent, status: statusWithCause(record), task: record.task };
}

/** The tasks whose id starts or ends with what is typed (each id once, in the order given), as editor suggestions. */
export function completionItems(typed: string, tasks: readonly CompletionTask[]): AutocompleteItem[] | null {
  const prefix = normalizeTaskInput(typed);
  const seen: Set<string> = new Set();
  const items: AutocompleteItem[] = [];
  for (const task of tasks) {
    if (items.length >= COMPLETIONS_MAX) break;
    if (!idMatches(task.taskId, prefix) || seen.has(task.taskId)) continue;
    seen.add(task.taskId);
    items.push({
      value: task.taskId,
      label: `${labelId(task.taskId)} ${task.agent}`,
      description: `${task.status} · ${oneLine(task.task, PREVIEW_MAX)}`,
    });
  }
  return items.length > 0 ? items : null;
}

/** Each batch or chain with a part in flight, once, after its parts: `/subagent-cancel` takes its id too. */
export function workflowCompletionTasks(running: readonly TaskSnapshot[]): CompletionTask[] {
  const seen: Map<string, { kind: string; total: number; inFlight: number }> = new Map();
  for (const task of running) {
    if (!task.workflow) continue;
    const entry = seen.get(task.workflow.id) ?? { kind: task.workflow.kind, total: task.workflow.total, inFlight: 0 };
    entry.inFlight += 1;
    seen.set(task.workflow.id, entry);
  }
  return [...seen].map(([taskId, entry]) => ({ taskId, agent: `${entry.kind} of ${entry.total}`, status: `${entry.inFlight} in flight`, task: `every part of the ${entry.kind}` }));
}

export interface TaskCompletions {
  running: (typed: string) => AutocompleteItem[] | null;
  /** The running tasks and the batches and chains they belong to (for `/subagent-cancel`). */
  cancellable: (typed: string) => AutocompleteItem[] | null;
  runningAndRecent: (typed: string) => AutocompleteItem[] | null;
}

export function taskCompletions(sources: TaskSources, now: () => number = Date.now): TaskCompletions {
  let cached: { at: number; tasks: CompletionTask[] } | undefined;
  const recent = (): CompletionTask[] => {
    const at = now();
    if (!cached || at - cached.at > FINISHED_CACHE_MS) {
      cached = { at, tasks: sources.recentRecords(RECENT_FINISHED_MAX).map(finishedCompletionTask) };
    }
    return cached.tasks;
  };
  const running = () => sources.running().map((task) => runningCompletionTask(task, now()));
  return {
    running: (typed) => completionItems(typed, running()),
    cancellable: (typed) => {
      const tasks = sources.running();
      return completionItems(typed, [...tasks.map((task) => runningCompletionTask(task, now())), ...workflowCompletionTasks(tasks)]);
    },
    runningAndRecent: (typed) => completionItems(typed, [...running(), ...recent()]),
  };
}
