/**
 * /subagent-message <id> <text>: the person sends a message to one of this pi's queued or running background
 * tasks, with the same id prefixes, completion and picker as /subagent-cancel. A running task reads it before
 * its next step (an RPC steer, marked as coming from the user); a queued one reads it with its task. Without an
 * id a picker opens; without text pi's input dialog asks for it. Outside the TUI the command explains itself.
 */
import type { MessageOutcome } from "../../tasks/registry.ts";
import { runningTaskItems } from "../ui/task-picker.ts";
import { childTextProblem } from "../../run/task-text.ts";
import { chooseRunningTask } from "./choose-running.ts";
import type { CommandIo } from "./command-io.ts";
import { alreadyFinished, noRunningTaskMatches } from "../../commands/notices.ts";
import { pickTask } from "./pick-task.ts";
import type { TaskCommandContext, TaskCommandDeps } from "./task-command-deps.ts";
import type { AppMode } from "../../shared/mode.ts";
import { shortTaskId } from "../../shared/short-id.ts";

import { MESSAGE_COMMAND } from "../../commands/descriptions.ts";

export { MESSAGE_COMMAND };
export const MESSAGE_PICKER_TITLE = "Send a message to a subagent task";
export const NOTHING_TO_MESSAGE = "No running subagent tasks to send a message to.";

/** The id and the text of `/subagent-message <id> <text>` (the text keeps its inner line breaks and spaces). */
export function splitIdAndText(args: string): { id: string; text: string } {
  const trimmed = args.trimStart();
  const space = trimmed.search(/\s/);
  if (space < 0) return { id: trimmed, text: "" };
  return { id: trimmed.slice(0, space), text: trimmed.slice(space + 1).trim() };
}

export function messageOutsideTui(mode: AppMode): string {
  return `/${MESSAGE_COMMAND} sends a message to a background subagent task, which exist only in the interactive TUI; in ${mode} mode each delegation runs synchronously inside its subagent call, so there is nothing to send a message to.`;
}

export function messageNotice(outcome: MessageOutcome, taskId: string, agent: string | undefined): { text: string; level: "info" | "warning" } {
  const who = agent ? `${taskId} (${agent})` : taskId;
  switch (outcome) {
    case "steered":
      return { text: `Message sent to subagent task ${who}; it reads it before its next step.`, level: "info" };
    case "queued":
      return { text: `Message added to queued subagent task ${who}; it reads it with its task when it starts.`, level: "info" };
    case "unsupported":
      return { text: `Subagent task ${who} runs as a JSON child (PI_SUBAGENT_CHILD_MODE=json) and cannot receive messages.`, level: "warning" };
    case "finished":
      return { text: `Subagent task ${who} has already finished (or is being stopped); the message was not sent. Its result: /subagent-result ${taskId}`, level: "warning" };
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
    taskId = await pickTask(ctx, { title: MESSAGE_PICKER_TITLE, items: runningTaskItems(running, deps.now()), refreshItems: () => runningTaskItems(deps.sources.running(), deps.now()) });
  } else {
    taskId = await chooseRunningTask(id, ctx, io, deps, { command: MESSAGE_COMMAND, verb: "message", pickPrompt: "Pick the one to message:" });
  }
  if (!taskId) return;
  const agent = deps.live()?.get(taskId)?.agent;
  const message = text || ((await ctx.ui.input(`Message to ${agent ?? "subagent"} ${shortTaskId(taskId)}`, "what the subagent should know")) ?? "").trim();
  if (!message) return;
  sendOne(taskId, agent, message, io, deps);
}

function sendOne(taskId: string, agent: string | undefined, message: string, io: CommandIo, deps: TaskCommandDeps): void {
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
