/**
 * /subagent-watch: a live, full-screen view of one running background task (its tool calls and streamed
 * text), refreshed about once a second. When the task ends the view stops updating and pins a line pointing
 * to /subagent-result. Without an id: a picker of the running tasks, which it returns to when the view closes
 * (while any still run). Only the interactive TUI has background tasks; elsewhere the command says so.
 */
import type { Component } from "@mariozechner/pi-tui";
import { FULL_SCREEN, type ViewerExit } from "../ui/result-viewer.ts";
import { runningTaskItems } from "../ui/task-picker.ts";
import { frameOf, WATCH_REFRESH_MS, WatchView } from "../ui/watch-view.ts";
import type { CommandIo } from "./command-io.ts";
import { WATCH_COMMAND } from "../../commands/descriptions.ts";
import {
  alreadyFinished,
  noRunningTaskMatches,
  NOTHING_TO_WATCH,
  watchOutsideTui,
} from "../../commands/notices.ts";
import { chooseRunningTask } from "./choose-running.ts";
import { pickTask } from "./pick-task.ts";
import { statusWithCause } from "../../commands/result-text.ts";
import type { LiveTasks, TaskCommandContext, TaskCommandDeps } from "./task-command-deps.ts";
import { normalizeTaskInput } from "../../commands/task-prefix.ts";

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
  const picked = await chooseRunningTask(args, ctx, io, deps, { command: WATCH_COMMAND, verb: "watch", pickPrompt: "Pick one to watch:" });
  if (picked) await watch(picked, ctx, io, deps);
}

/** Picker of the running tasks, the view, back to the picker while anything runs. */
async function browseRunning(ctx: TaskCommandContext, io: CommandIo, deps: TaskCommandDeps, title: string, last: string | undefined): Promise<void> {
  for (;;) {
    const running = deps.sources.running();
    if (running.length === 0) {
      if (last === undefined) io.notice(NOTHING_TO_WATCH);
      return;
    }
    const picked = await pickTask(ctx, { title, items: runningTaskItems(running, deps.now()), refreshItems: () => runningTaskItems(deps.sources.running(), deps.now()), initialTaskId: last });
    if (!picked) return;
    last = picked;
    // Esc goes back to the picker; q (or Enter) closes both, so the next prompt lands in the editor.
    if ((await watch(picked, ctx, io, deps, true)) !== "back") return;
  }
}

/** Shows the live view until it is left; how it was left (undefined when no view opened). */
async function watch(taskId: string, ctx: TaskCommandContext, io: CommandIo, deps: TaskCommandDeps, fromList = false): Promise<ViewerExit | undefined> {
  const live = deps.live();
  const first = live?.get(taskId);
  if (!live || !first) {
    const record = deps.sources.record(taskId);
    io.notice(record ? alreadyFinished(taskId, record.status) : noRunningTaskMatches(taskId, WATCH_COMMAND), "warning");
    return undefined;
  }
  return ctx.ui.custom<ViewerExit>((tui, theme, _keybindings, done) => {
    const view = new WatchView({ frame: frameOf(first, deps.now()), theme, rows: () => tui.terminal.rows, onClose: done, fromList });
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
