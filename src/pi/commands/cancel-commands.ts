/**
 * /subagent-cancel and /subagent-cancel-all: the person stops background tasks without asking the model. A
 * cancel is recorded `cancelledBy: user`; the task's whole process tree is stopped and its cancelled
 * `[subagent-result]` envelope (which tells the main agent not to re-dispatch without asking) is sent by the
 * background tasks as for any other end. Background tasks exist only in the interactive TUI; elsewhere both
 * commands say so.
 */
import { CANCEL_TOO_LATE_STATUS, type TaskSnapshot } from "../../tasks/registry.ts";
import { runningTaskItems } from "../ui/task-picker.ts";
import { CANCEL_ALL_COMMAND, CANCEL_COMMAND } from "../../commands/descriptions.ts";
import {
  alreadyFinished,
  cancelAlreadyRequested,
  cancelledCount,
  cancelOutsideTui,
  cancelSent,
  noRunningTaskMatches,
  NOTHING_TO_CANCEL,
  type NamedTask,
  workflowCancelSent,
} from "../../commands/notices.ts";
import { chooseRunningTask } from "./choose-running.ts";
import { pickTask } from "./pick-task.ts";
import type { CommandIo } from "./command-io.ts";
import type { TaskCommandContext, TaskCommandDeps } from "./task-command-deps.ts";
import { normalizeTaskInput } from "../../commands/task-prefix.ts";

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
    const picked = await pickTask(ctx, { title: CANCEL_PICKER_TITLE, items: runningTaskItems(running, deps.now()), refreshItems: () => runningTaskItems(deps.sources.running(), deps.now()) });
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
    io.notice(record ? alreadyFinished(taskId, record.status) : noRunningTaskMatches(taskId, CANCEL_COMMAND), "warning");
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
