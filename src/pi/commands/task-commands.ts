/**
 * The bodies of the task commands: cancel, message, result and watch.
 */
import { CANCEL_TOO_LATE_STATUS, type TaskSnapshot, type MessageOutcome } from "../../tasks/registry.ts";
import {
  runningTaskItems,
  FULL_SCREEN,
  ResultViewer,
  finishedTaskItems,
  namedTaskItems,
  frameOf,
  WATCH_REFRESH_MS,
  WatchView,
  type ViewerExit,
} from "../ui/views.ts";
import { CANCEL_ALL_COMMAND, CANCEL_COMMAND, MESSAGE_COMMAND, WATCH_COMMAND } from "../../commands/descriptions.ts";
import {
  alreadyFinished,
  cancelAlreadyRequested,
  cancelledCount,
  cancelOutsideTui,
  cancelSent,
  noRunningTaskMatches,
  NOTHING_TO_CANCEL,
  workflowCancelSent,
  normalizeTaskInput,
  RECENT_FINISHED_MAX,
  NO_FINISHED_TASKS,
  noFinalOutput,
  noTaskRecord,
  prefixAmbiguous,
  prefixTooShort,
  RESULT_STILL_RUNNING,
  RESULT_USAGE,
  workflowResultNotice,
  recentResultLines,
  resultJsonLine,
  resultPlainText,
  NOTHING_TO_WATCH,
  watchOutsideTui,
  statusWithCause,
  type NamedTask,
} from "../../commands/task-commands.ts";
import {
  chooseRunningTask,
  pickTask,
  type CommandIo,
  type TaskCommandContext,
  type TaskCommandDeps,
  type LiveTasks,
} from "./command-io.ts";
import { childTextProblem } from "../../run/rpc.ts";
import type { AppMode } from "../../shared/pi-process.ts";
import { shortTaskId } from "../../shared/text.ts";
import type { TaskRecord } from "../../records/record.ts";
import { lookupResult } from "../../commands/task-lookup.ts";
import type { Component } from "@mariozechner/pi-tui";

/*
 * /subagent-cancel and /subagent-cancel-all: the person stops background tasks without asking the model. A
 * cancel is recorded `cancelledBy: user`; the task's whole process tree is stopped and its cancelled
 * `[subagent-result]` envelope (which tells the main agent not to re-dispatch without asking) is sent by the
 * background tasks as for any other end. Background tasks exist only in the interactive TUI; elsewhere both
 * commands say so.
 */
export const CANCEL_PICKER_TITLE = "Cancel a subagent task";

export async function cancelCommand(args: string, ctx: TaskCommandContext, deps: TaskCommandDeps): Promise<void> {
  const io = deps.io(ctx);
  if (io.surface !== "tui") {
    io.notice(cancelOutsideTui(CANCEL_COMMAND, io.mode));
    return;
  }
  if (normalizeTaskInput(args) === "") {
    const running = deps.sources.running();
    if (running.length === 0) {
      io.notice(NOTHING_TO_CANCEL);
      return;
    }
    const picked = await pickTask(ctx, {
      title: CANCEL_PICKER_TITLE,
      items: runningTaskItems(running, deps.now()),
      refreshItems: () => runningTaskItems(deps.sources.running(), deps.now()),
    });
    if (picked) cancelOne(picked, io, deps);
    return;
  }
  const picked = await chooseRunningTask(args, ctx, io, deps, {
    command: CANCEL_COMMAND,
    verb: "cancel",
    pickPrompt: "Pick the one to cancel:",
    // A batch's or chain's id (whole or the end the widget shows) cancels every part of it still in flight.
    onWorkflow: (found) => {
      const workflow = deps.live()?.cancelWorkflowByUser?.(found.workflowId);
      if (workflow) io.notice(workflowCancelSent(workflow.kind, found.workflowId, workflow.cancelled));
      else io.notice(noRunningTaskMatches(found.workflowId, CANCEL_COMMAND), "warning");
    },
  });
  if (picked) cancelOne(picked, io, deps);
}

function named(task: TaskSnapshot): NamedTask {
  return { taskId: task.taskId, agent: task.agent };
}

/** Cancels one task by its full id and says what happened. */
function cancelOne(taskId: string, io: CommandIo, deps: TaskCommandDeps): void {
  const live = deps.live();
  const task = live?.get(taskId);
  if (!live || !task) {
    const record = deps.sources.record(taskId);
    io.notice(
      record ? alreadyFinished(taskId, record.status) : noRunningTaskMatches(taskId, CANCEL_COMMAND),
      "warning",
    );
    return;
  }
  if (task.cancelRequested) {
    io.notice(cancelAlreadyRequested(named(task)));
    return;
  }
  // Refused when the run's answer was already complete: its result follows, so the notice must not say cancelled.
  if (!live.cancelByUser(taskId)) {
    io.notice(alreadyFinished(taskId, CANCEL_TOO_LATE_STATUS), "warning");
    return;
  }
  io.notice(cancelSent(named(task)));
}

export async function cancelAllCommand(_args: string, ctx: TaskCommandContext, deps: TaskCommandDeps): Promise<void> {
  const io = deps.io(ctx);
  if (io.surface !== "tui") {
    io.notice(cancelOutsideTui(CANCEL_ALL_COMMAND, io.mode));
    return;
  }
  const live = deps.live();
  // Tasks already being cancelled are not counted again.
  const targets = deps.sources.running().filter((task) => !task.cancelRequested);
  let cancelled = 0;
  for (const task of targets) if (live?.cancelByUser(task.taskId, "/subagent-cancel-all")) cancelled += 1;
  io.notice(cancelled === 0 ? NOTHING_TO_CANCEL : cancelledCount(cancelled));
}
/*
 * /subagent-message <id> <text>: the person sends a message to one of this pi's queued or running background
 * tasks, with the same id prefixes, completion and picker as /subagent-cancel. A running task reads it before
 * its next step (an RPC steer, marked as coming from the user); a queued one reads it with its task. Without an
 * id a picker opens; without text pi's input dialog asks for it. Outside the TUI the command explains itself.
 */
const MESSAGE_PICKER_TITLE = "Send a message to a subagent task";
const NOTHING_TO_MESSAGE = "No running subagent tasks to send a message to.";

/** The id and the text of `/subagent-message <id> <text>` (the text keeps its inner line breaks and spaces). */
export function splitIdAndText(args: string): { id: string; text: string } {
  const trimmed = args.trimStart();
  const space = trimmed.search(/\s/);
  if (space < 0) return { id: trimmed, text: "" };
  return { id: trimmed.slice(0, space), text: trimmed.slice(space + 1).trim() };
}

function messageOutsideTui(mode: AppMode): string {
  return `/${MESSAGE_COMMAND} sends a message to a background subagent task, which exist only in the interactive TUI; in ${mode} mode each delegation runs synchronously inside its subagent call, so there is nothing to send a message to.`;
}

function messageNotice(
  outcome: MessageOutcome,
  taskId: string,
  agent: string | undefined,
): { text: string; level: "info" | "warning" } {
  const who = agent ? `${taskId} (${agent})` : taskId;
  switch (outcome) {
    case "steered":
      return { text: `Message sent to subagent task ${who}; it reads it before its next step.`, level: "info" };
    case "queued":
      return {
        text: `Message added to queued subagent task ${who}; it reads it with its task when it starts.`,
        level: "info",
      };
    case "unsupported":
      return {
        text: `Subagent task ${who} runs as a JSON child (PI_SUBAGENT_CHILD_MODE=json) and cannot receive messages.`,
        level: "warning",
      };
    case "finished":
      return {
        text: `Subagent task ${who} has already finished (or is being stopped); the message was not sent. Its result: /subagent-result ${taskId}`,
        level: "warning",
      };
    case "unknown":
      return { text: noRunningTaskMatches(taskId, MESSAGE_COMMAND), level: "warning" };
    case "limit":
      // Only the main agent's messages are limited; the person's are not.
      return { text: `Subagent task ${who} takes no more messages; the message was not sent.`, level: "warning" };
  }
}

export async function messageCommand(args: string, ctx: TaskCommandContext, deps: TaskCommandDeps): Promise<void> {
  const io = deps.io(ctx);
  if (io.surface !== "tui") {
    io.notice(messageOutsideTui(io.mode));
    return;
  }
  const { id, text } = splitIdAndText(args);
  let taskId: string | undefined;
  if (id === "") {
    const running = deps.sources.running();
    if (running.length === 0) {
      io.notice(NOTHING_TO_MESSAGE);
      return;
    }
    taskId = await pickTask(ctx, {
      title: MESSAGE_PICKER_TITLE,
      items: runningTaskItems(running, deps.now()),
      refreshItems: () => runningTaskItems(deps.sources.running(), deps.now()),
    });
  } else {
    taskId = await chooseRunningTask(id, ctx, io, deps, {
      command: MESSAGE_COMMAND,
      verb: "message",
      pickPrompt: "Pick the one to message:",
    });
  }
  if (!taskId) return;
  const agent = deps.live()?.get(taskId)?.agent;
  const message =
    text ||
    (
      (await ctx.ui.input(
        `Message to ${agent ?? "subagent"} ${shortTaskId(taskId)}`,
        "what the subagent should know",
      )) ?? ""
    ).trim();
  if (!message) return;
  sendOne(taskId, agent, message, io, deps);
}

function sendOne(
  taskId: string,
  agent: string | undefined,
  message: string,
  io: CommandIo,
  deps: TaskCommandDeps,
): void {
  const problem = childTextProblem(message, "message");
  if (problem) {
    io.notice(problem, "warning");
    return;
  }
  const live = deps.live();
  const outcome = live?.messageByUser ? live.messageByUser(taskId, message) : "unknown";
  if (outcome === "unknown" || outcome === "finished") {
    const record = deps.sources.record(taskId);
    if (record) {
      io.notice(alreadyFinished(taskId, record.status), "warning");
      return;
    }
  }
  const notice = messageNotice(outcome, taskId, agent);
  io.notice(notice.text, notice.level);
}

/*
 * /subagent-result: the full final result of a finished task, read from its record on disk, so it works for
 * background and synchronous runs, after /reload and after pi restarts. In the TUI it opens the full-screen
 * viewer (without an id: a picker of the most recent finished tasks, which it returns to when the viewer
 * closes). In print mode it writes the record and the whole output to stdout for scripts; in JSON mode one
 * JSON line; under RPC a notice to the client.
 */
export const RESULT_PICKER_TITLE = "Subagent results (newest first)";

export async function resultCommand(args: string, ctx: TaskCommandContext, deps: TaskCommandDeps): Promise<void> {
  const io = deps.io(ctx);
  if (normalizeTaskInput(args) === "") {
    await withoutId(ctx, io, deps);
    return;
  }
  const found = lookupResult(args, deps.sources);
  switch (found.kind) {
    case "record":
      await showRecord(found.record, ctx, io, deps);
      return;
    case "running":
      io.notice(RESULT_STILL_RUNNING);
      io.failed();
      return;
    case "no-record":
      io.notice(noTaskRecord(found.taskId), "warning");
      io.failed();
      return;
    case "workflow": {
      // A batch's or chain's id (from its receipt, card or the widget) names the parts' results.
      const workflow = found.record;
      io.notice(
        workflow
          ? workflowResultNotice(workflow.workflowId, workflow.details.agent, workflow.details.workflow.parts)
          : RESULT_STILL_RUNNING,
        "warning",
      );
      io.failed();
      return;
    }
    case "unknown":
      io.notice(noTaskRecord(normalizeTaskInput(args)), "warning");
      io.failed();
      return;
    case "too-short":
      io.notice(prefixTooShort(found.prefix), "warning");
      io.failed();
      return;
    case "ambiguous":
      if (io.surface === "tui") {
        await browseResults(ctx, io, deps, `${prefixAmbiguous(found.prefix, found.matches)} Pick one:`, () =>
          namedTaskItems(found.matches),
        );
      } else {
        io.notice(prefixAmbiguous(found.prefix, found.matches), "warning");
        io.failed();
      }
      return;
    case "empty":
      return;
  }
}

/** No id: the TUI browses the recent results; elsewhere the usage, and the recent tasks one a line. */
async function withoutId(ctx: TaskCommandContext, io: CommandIo, deps: TaskCommandDeps): Promise<void> {
  if (io.surface === "tui") {
    const recent = () => finishedTaskItems(deps.sources.recentRecords(RECENT_FINISHED_MAX));
    if (recent().length === 0) io.notice(NO_FINISHED_TASKS);
    else await browseResults(ctx, io, deps, RESULT_PICKER_TITLE, recent);
    return;
  }
  const records = deps.sources.recentRecords(RECENT_FINISHED_MAX);
  const lines = records.length === 0 ? [NO_FINISHED_TASKS] : recentResultLines(records);
  if (io.surface === "rpc") {
    io.notice([RESULT_USAGE, ...lines].join("\n"));
    return;
  }
  io.notice(RESULT_USAGE);
  if (io.mode === "json") io.stdout(`${JSON.stringify({ type: "subagent_results", tasks: records.map(summaryOf) })}\n`);
  else if (records.length > 0) io.stdout(`${lines.join("\n")}\n`);
}

function summaryOf(record: TaskRecord) {
  return {
    taskId: record.taskId,
    agent: record.agent,
    status: record.status,
    finishedAt: record.finishedAt,
    task: record.task,
  };
}

/** Picker, viewer, back to the picker (on the same row) until the person leaves the picker. */
async function browseResults(
  ctx: TaskCommandContext,
  io: CommandIo,
  deps: TaskCommandDeps,
  title: string,
  items: () => ReturnType<typeof finishedTaskItems>,
): Promise<void> {
  let last: string | undefined;
  for (;;) {
    const picked = await pickTask(ctx, { title, items: items(), initialTaskId: last });
    if (!picked) return;
    last = picked;
    const found = lookupResult(picked, deps.sources);
    if (found.kind === "record") {
      // Esc goes back to the picker; q (or Enter) closes both, so the next prompt lands in the editor.
      if ((await showRecord(found.record, ctx, io, deps, true)) === "close") return;
    } else if (found.kind === "running") io.notice(RESULT_STILL_RUNNING);
    else io.notice(noTaskRecord(picked), "warning");
  }
}

/** Shows a record; in the TUI, how its viewer was left (undefined when none opened). */
async function showRecord(
  record: TaskRecord,
  ctx: TaskCommandContext,
  io: CommandIo,
  deps: TaskCommandDeps,
  fromList = false,
): Promise<ViewerExit | undefined> {
  const hasOutput = record.output.trim() !== "";
  if (io.surface === "tui") {
    if (!hasOutput) {
      io.notice(noFinalOutput(record.sessionFile), "warning");
      return undefined;
    }
    return ctx.ui.custom<ViewerExit>(
      (tui, theme, _keybindings, done) =>
        new ResultViewer({
          record,
          theme,
          markdownTheme: deps.markdownTheme(),
          rows: () => tui.terminal.rows,
          onClose: done,
          requestRender: () => tui.requestRender(),
          fromList,
        }),
      FULL_SCREEN,
    );
  }
  if (io.surface === "rpc") {
    io.notice(hasOutput ? resultPlainText(record) : noFinalOutput(record.sessionFile), hasOutput ? "info" : "warning");
    return;
  }
  // Print and JSON mode: the record always goes to stdout; a missing output is also said on stderr.
  io.stdout(io.mode === "json" ? resultJsonLine(record) : resultPlainText(record));
  if (!hasOutput) {
    io.notice(noFinalOutput(record.sessionFile));
    io.failed();
  }
}

/*
 * /subagent-watch: a live, full-screen view of one running background task (its tool calls and streamed
 * text), refreshed about once a second. When the task ends the view stops updating and pins a line pointing
 * to /subagent-result. Without an id: a picker of the running tasks, which it returns to when the view closes
 * (while any still run). Only the interactive TUI has background tasks; elsewhere the command says so.
 */
export const WATCH_PICKER_TITLE = "Watch a running subagent task";

export async function watchCommand(args: string, ctx: TaskCommandContext, deps: TaskCommandDeps): Promise<void> {
  const io = deps.io(ctx);
  if (io.surface !== "tui") {
    io.notice(watchOutsideTui(io.mode));
    return;
  }
  if (normalizeTaskInput(args) === "") {
    await browseRunning(ctx, io, deps, WATCH_PICKER_TITLE, undefined);
    return;
  }
  const picked = await chooseRunningTask(args, ctx, io, deps, {
    command: WATCH_COMMAND,
    verb: "watch",
    pickPrompt: "Pick one to watch:",
  });
  if (picked) await watch(picked, ctx, io, deps);
}

/** Picker of the running tasks, the view, back to the picker while anything runs. */
async function browseRunning(
  ctx: TaskCommandContext,
  io: CommandIo,
  deps: TaskCommandDeps,
  title: string,
  last: string | undefined,
): Promise<void> {
  for (;;) {
    const running = deps.sources.running();
    if (running.length === 0) {
      if (last === undefined) io.notice(NOTHING_TO_WATCH);
      return;
    }
    const picked = await pickTask(ctx, {
      title,
      items: runningTaskItems(running, deps.now()),
      refreshItems: () => runningTaskItems(deps.sources.running(), deps.now()),
      initialTaskId: last,
    });
    if (!picked) return;
    last = picked;
    // Esc goes back to the picker; q (or Enter) closes both, so the next prompt lands in the editor.
    if ((await watch(picked, ctx, io, deps, true)) !== "back") return;
  }
}

/** Shows the live view until it is left; how it was left (undefined when no view opened). */
async function watch(
  taskId: string,
  ctx: TaskCommandContext,
  io: CommandIo,
  deps: TaskCommandDeps,
  fromList = false,
): Promise<ViewerExit | undefined> {
  const live = deps.live();
  const first = live?.get(taskId);
  if (!live || !first) {
    const record = deps.sources.record(taskId);
    io.notice(record ? alreadyFinished(taskId, record.status) : noRunningTaskMatches(taskId, WATCH_COMMAND), "warning");
    return undefined;
  }
  return ctx.ui.custom<ViewerExit>((tui, theme, _keybindings, done) => {
    const view = new WatchView({
      frame: frameOf(first, deps.now()),
      theme,
      rows: () => tui.terminal.rows,
      onClose: done,
      fromList,
    });
    const stop = followTask(taskId, view, live, deps, () => tui.requestRender());
    const component: Component & { dispose(): void } = {
      render: (width) => view.render(width),
      handleInput: (data) => view.handleInput(data),
      invalidate: () => view.invalidate(),
      dispose: stop,
    };
    return component;
  }, FULL_SCREEN);
}

/**
 * Keeps the view up to date: a copy of the task once a second while it runs; its end is noticed at once (the
 * registry's change events are cheap to check, not to draw). Returns the function that stops following.
 */
export function followTask(
  taskId: string,
  view: Pick<WatchView, "update" | "end" | "ended">,
  live: LiveTasks,
  deps: Pick<TaskCommandDeps, "now" | "sources">,
  requestRender: () => void,
): () => void {
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    clearInterval(timer);
    unsubscribe();
  };
  const refresh = () => {
    if (stopped) return;
    const task = live.get(taskId);
    if (task) {
      view.update(frameOf(task, deps.now()));
    } else {
      // The record is written before the registry reports the end, so its status is there to show.
      const record = deps.sources.record(taskId);
      view.end(record ? statusWithCause(record) : undefined);
      stop();
    }
    requestRender();
  };
  const timer = setInterval(refresh, WATCH_REFRESH_MS);
  const unsubscribe = live.onChange(() => {
    if (!stopped && !live.has(taskId)) refresh();
  });
  return stop;
}
