/**
 * Turns a command's id argument into one running task, for the commands that act on running tasks
 * (/subagent-cancel, /subagent-watch, /subagent-message): a full id, or a unique start or end of one (the short
 * id the widget shows), resolves at once; an ambiguous one opens a picker of just the matching tasks; a batch's or
 * chain's id opens a picker of its parts in flight, unless the command acts on the whole workflow; every other
 * case (too short, finished, running in another pi, unknown) ends in a notice that says why.
 */
import { runningTaskItems } from "../ui/task-picker.ts";
import type { CommandIo } from "./command-io.ts";
import { alreadyFinished, noRunningTaskMatches, prefixAmbiguous, prefixTooShort, runsElsewhere } from "../../commands/notices.ts";
import { pickTask } from "./pick-task.ts";
import type { TaskCommandContext, TaskCommandDeps } from "./task-command-deps.ts";
import { lookupRunning, type LiveWorkflow } from "../../commands/task-lookup.ts";

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
export function workflowPartsTitle(workflow: LiveWorkflow, pickPrompt: string): string {
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
      return pickTask(ctx, { title: workflowPartsTitle(found.workflow, choice.pickPrompt), items: runningTaskItems(found.workflow.parts, deps.now()), refreshItems: () => runningTaskItems(deps.sources.running(), deps.now()) });
    case "ambiguous": {
      const matches = deps.sources.running().filter((task) => found.matches.some((match) => match.taskId === task.taskId));
      const title = `${prefixAmbiguous(found.prefix, found.matches)} ${choice.pickPrompt}`;
      return pickTask(ctx, { title, items: runningTaskItems(matches, deps.now()), refreshItems: () => runningTaskItems(deps.sources.running(), deps.now()) });
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
