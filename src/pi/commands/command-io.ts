/**
 * What the task commands share: how a command answers by where pi runs, the dependencies they are given, and
 * picking or choosing a task.
 */
import { Writable } from "node:stream";
import { getMarkdownTheme, type ExtensionCommandContext } from "@mariozechner/pi-coding-agent";
import { detectAppMode, type AppMode } from "../../shared/pi-process.ts";
import type { MarkdownTheme, SelectItem } from "@mariozechner/pi-tui";
import type { BackgroundTasks } from "../../tasks/background-tasks.ts";
import type { MessageOutcome, TaskSnapshot } from "../../tasks/registry.ts";
import { taskSources, lookupRunning, type TaskSources, type LiveWorkflow } from "../../commands/task-lookup.ts";
import { TaskPicker, runningTaskItems } from "../ui/views.ts";
import {
  alreadyFinished,
  noRunningTaskMatches,
  prefixAmbiguous,
  prefixTooShort,
  runsElsewhere,
} from "../../commands/task-commands.ts";

/*
 * How a command answers, by where pi runs: in the interactive TUI and under RPC a notice is `ctx.ui.notify`
 * (RPC sends it to the client); in print and JSON mode `notify` does nothing, so notices go to stderr, and a
 * result meant for a script goes to the real stdout.
 *
 * In print and JSON mode pi replaces `process.stdout.write` with a function that writes to stderr while it
 * runs (console.log from an extension lands on stderr). The stream's own write method, taken from the
 * prototype, still writes to file descriptor 1 with the stream's buffering and ordering, the same way pi
 * writes its own answer.
 */
/** Where a command's answer goes: the TUI's widgets and dialogs, an RPC client, or the terminal's streams. */
export type Surface = "tui" | "rpc" | "stdio";

type NoticeLevel = "info" | "warning" | "error";

export interface CommandIo {
  mode: AppMode;
  surface: Surface;
  notice: (text: string, level?: NoticeLevel) => void;
  /** Print and JSON mode only: text for the real stdout. */
  stdout: (text: string) => void;
  /**
   * Print and JSON mode only: makes pi exit with status 1 (the command could not give
   * what was asked).
   */
  failed: () => void;
}

export function surfaceOf(hasUI: boolean, mode: AppMode): Surface {
  if (mode === "rpc") return "rpc";
  return hasUI && mode === "interactive" ? "tui" : "stdio";
}

/** Writes to file descriptor 1 even while pi redirects `process.stdout.write` to stderr. */
function writeRealStdout(text: string): void {
  Writable.prototype.write.call(process.stdout, text, "utf8");
}

export interface CommandIoOptions {
  mode?: () => AppMode;
  stdout?: (text: string) => void;
  stderr?: (text: string) => void;
  setExitCode?: (code: number) => void;
}

export function commandIo(
  ctx: Pick<ExtensionCommandContext, "hasUI" | "ui">,
  options: CommandIoOptions = {},
): CommandIo {
  const mode = (options.mode ?? detectAppMode)();
  const surface = surfaceOf(ctx.hasUI, mode);
  const stderr = options.stderr ?? ((text: string) => void process.stderr.write(text));
  return {
    mode,
    surface,
    notice: (text, level = "info") => {
      if (surface === "stdio") stderr(`${text}\n`);
      else ctx.ui.notify(text, level);
    },
    stdout: options.stdout ?? writeRealStdout,
    failed: () => {
      if (surface !== "stdio") return;
      if (options.setExitCode) options.setExitCode(1);
      else process.exitCode = 1;
    },
  };
}

/*
 * What the task commands need from the rest of the extension, as narrow ports: the live tasks of this pi (to
 * cancel and watch), where tasks are read from (registry and disk), how to answer in the current mode, the
 * clock and the Markdown theme. `taskCommandDeps` wires them to the real parts; unit tests pass fakes.
 */
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
type UserCancelCommand = "/subagent-cancel" | "/subagent-cancel-all";

export interface TaskCommandDeps {
  sources: TaskSources;
  /** Undefined until the first background dispatch of this session (and always outside the TUI). */
  live: () => LiveTasks | undefined;
  io: (ctx: TaskCommandContext) => CommandIo;
  now: () => number;
  markdownTheme: () => MarkdownTheme;
}

function liveTasksOf(tasks: BackgroundTasks): LiveTasks {
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

export function taskCommandDeps(
  background: () => BackgroundTasks | undefined,
  agentDir: () => string,
): TaskCommandDeps {
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

/*
 * Shows the task picker in place of pi's editor and resolves with the picked task id, or undefined when the
 * person left it (Esc) or pi has no TUI to show it in.
 */
export type PickerContext = Pick<ExtensionCommandContext, "ui">;

export interface PickTaskOptions {
  title: string;
  items: SelectItem[];
  initialTaskId?: string;
  /** The rows as they are now, for a picker of running tasks whose clocks move (TaskPicker's refreshItems). */
  refreshItems?: () => SelectItem[];
}

export async function pickTask(ctx: PickerContext, options: PickTaskOptions): Promise<string | undefined> {
  const picked = await ctx.ui.custom<string | undefined>(
    (tui, theme, _keybindings, done) =>
      new TaskPicker({
        ...options,
        theme,
        onPick: (taskId) => done(taskId),
        onCancel: () => done(undefined),
        requestRender: () => tui.requestRender(),
      }),
  );
  return picked ?? undefined;
}

/*
 * Turns a command's id argument into one running task, for the commands that act on running tasks
 * (/subagent-cancel, /subagent-watch, /subagent-message): a full id, or a unique start or end of one (the short
 * id the widget shows), resolves at once; an ambiguous one opens a picker of just the matching tasks; a batch's or
 * chain's id opens a picker of its parts in flight, unless the command acts on the whole workflow; every other
 * case (too short, finished, running in another pi, unknown) ends in a notice that says why.
 */
export interface RunningChoice {
  /** The command's name, for the "nothing matches" notice. */
  command: string;
  /** What the command does, for the "runs in another pi" notice. */
  verb: "cancel" | "watch" | "message";
  /** The picker's last words after an ambiguous prefix, e.g. `Pick the one to cancel:`. */
  pickPrompt: string;
  /** A command that acts on a whole batch or chain (cancel) does so here; without it, a part is picked. */
  onWorkflow?: (workflow: LiveWorkflow) => void;
}

/** The picker's title for a batch's or chain's parts: `batch 01912345-… has 2 parts in flight. Pick one to watch:`. */
function workflowPartsTitle(workflow: LiveWorkflow, pickPrompt: string): string {
  const count = workflow.parts.length;
  return `${workflow.workflowKind} ${workflow.workflowId} has ${count} ${count === 1 ? "part" : "parts"} in flight. ${pickPrompt}`;
}

/** The full id of the chosen running task, or undefined when a notice was given (or the picker left). */
export async function chooseRunningTask(
  args: string,
  ctx: TaskCommandContext,
  io: CommandIo,
  deps: TaskCommandDeps,
  choice: RunningChoice,
): Promise<string | undefined> {
  const found = lookupRunning(args, deps.sources);
  switch (found.kind) {
    case "running":
      return found.task.taskId;
    case "workflow":
      if (choice.onWorkflow) {
        choice.onWorkflow(found.workflow);
        return undefined;
      }
      return pickTask(ctx, {
        title: workflowPartsTitle(found.workflow, choice.pickPrompt),
        items: runningTaskItems(found.workflow.parts, deps.now()),
        refreshItems: () => runningTaskItems(deps.sources.running(), deps.now()),
      });
    case "ambiguous": {
      const matches = deps.sources
        .running()
        .filter((task) => found.matches.some((match) => match.taskId === task.taskId));
      const title = `${prefixAmbiguous(found.prefix, found.matches)} ${choice.pickPrompt}`;
      return pickTask(ctx, {
        title,
        items: runningTaskItems(matches, deps.now()),
        refreshItems: () => runningTaskItems(deps.sources.running(), deps.now()),
      });
    }
    case "too-short":
      io.notice(prefixTooShort(found.prefix), "warning");
      return undefined;
    case "finished":
      io.notice(alreadyFinished(found.record.taskId, found.record.status), "warning");
      return undefined;
    case "elsewhere":
      io.notice(runsElsewhere(found.taskId, choice.verb), "warning");
      return undefined;
    case "unknown": {
      const running = deps.sources.running().map((task) => ({ taskId: task.taskId, agent: task.agent }));
      io.notice(noRunningTaskMatches(found.prefix, choice.command, running), "warning");
      return undefined;
    }
    case "empty":
      return undefined;
  }
}
