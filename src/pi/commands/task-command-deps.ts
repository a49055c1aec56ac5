/**
 * What the task commands need from the rest of the extension, as narrow ports: the live tasks of this pi (to
 * cancel and watch), where tasks are read from (registry and disk), how to answer in the current mode, the
 * clock and the Markdown theme. `taskCommandDeps` wires them to the real parts; unit tests pass fakes.
 */
import { getMarkdownTheme, type ExtensionCommandContext } from "@mariozechner/pi-coding-agent";
import type { MarkdownTheme } from "@mariozechner/pi-tui";
import type { BackgroundTasks } from "../../tasks/background-tasks.ts";
import type { MessageOutcome, TaskSnapshot } from "../../tasks/registry.ts";
import { commandIo, type CommandIo } from "./command-io.ts";
import { taskSources, type TaskSources } from "../../commands/task-lookup.ts";

/** The part of a command's context the task commands use. */
export type TaskCommandContext = Pick<ExtensionCommandContext, "hasUI" | "ui">;

/** This pi's in-flight background tasks, as the commands act on them. */
export interface LiveTasks {
  get(taskId: string): TaskSnapshot | undefined;
  /** Cheap: whether the task is still queued or running. */
  has(taskId: string): boolean;
  /**
   * A user cancel (`cancelledBy: user`), recording the command used (`/subagent-cancel` unless said), which the
   * result card names; false when the task is no longer in flight.
   */
  cancelByUser(taskId: string, command?: UserCancelCommand): boolean;
  /**
   * A user cancel of every part of a batch or chain in flight: how many parts, or undefined when `id` is no
   * workflow in flight (absent in fakes that do not need it).
   */
  cancelWorkflowByUser?(id: string): { kind: "batch" | "chain"; cancelled: number } | undefined;
  /** A person's message to a queued or running task (absent in fakes that do not need it). */
  messageByUser?(taskId: string, text: string): MessageOutcome;
  onChange(listener: () => void): () => void;
}

/** The commands a person cancels with; a user cancel's record keeps it as its `cancelReason`. */
export type UserCancelCommand = "/subagent-cancel" | "/subagent-cancel-all";

export interface TaskCommandDeps {
  sources: TaskSources;
  /** Undefined until the first background dispatch of this session (and always outside the TUI). */
  live: () => LiveTasks | undefined;
  io: (ctx: TaskCommandContext) => CommandIo;
  now: () => number;
  markdownTheme: () => MarkdownTheme;
}

export function liveTasksOf(tasks: BackgroundTasks): LiveTasks {
  return {
    get: (taskId) => {
      const task = tasks.registry.get(taskId);
      const question = task && tasks.questionOf(taskId);
      return question ? { ...task, question } : task;
    },
    has: (taskId) => tasks.registry.has(taskId),
    cancelByUser: (taskId, command = "/subagent-cancel") => tasks.cancel(taskId, "user", command),
    cancelWorkflowByUser: (id) => {
      const kind = tasks.workflows.kindOf(id);
      const cancelled = kind && tasks.cancelWorkflow(id, "user", "/subagent-cancel");
      return kind && cancelled !== undefined ? { kind, cancelled } : undefined;
    },
    messageByUser: (taskId, text) => tasks.registry.message(taskId, "user", text),
    onChange: (listener) => tasks.onChange(listener),
  };
}

export function taskCommandDeps(background: () => BackgroundTasks | undefined, agentDir: () => string): TaskCommandDeps {
  return {
    sources: taskSources(background, agentDir),
    live: () => {
      const tasks = background();
      return tasks ? liveTasksOf(tasks) : undefined;
    },
    io: (ctx) => commandIo(ctx),
    now: Date.now,
    markdownTheme: getMarkdownTheme,
  };
}
