/**
 * Wires the person's subagent questions to pi: one board for this pi's background tasks (their dialogs and
 * notices, see src/core/dialogs/), shown by the presenter in the interactive TUI, and `/subagent-answer`, which
 * opens the oldest waiting question at once (`/subagent-answer refuse [task id or prefix]` answers every question
 * of one task `cancelled` instead: the oldest question's task when no id is given). Outside the TUI there are no
 * background tasks, so nothing asks.
 */
import type { ExtensionAPI, ExtensionContext } from "@mariozechner/pi-coding-agent";
import { ANSWER_COMMAND, COMMANDS } from "../../commands/descriptions.ts";
import { commandFailed } from "../../commands/notices.ts";
import { QuestionBoard } from "../../dialogs/question-board.ts";
import { NO_QUESTION_WAITING, NO_QUESTION_OF_TASK, QUESTION_ALREADY_OPEN, questionsRefusedReply } from "../../dialogs/texts.ts";
import { parseAnswerArgs } from "../../dialogs/answer-args.ts";
import { detectAppMode } from "../../shared/mode.ts";
import { QuestionPresenter, questionPauseMs } from "./question-presenter.ts";
import { askingEvent, eventBusSink, LIFECYCLE_CHANNELS } from "../../delivery/lifecycle-events.ts";

export function registerQuestions(pi: ExtensionAPI): QuestionBoard {
  const events = eventBusSink(pi.events);
  let session: ExtensionContext | undefined;
  const board = new QuestionBoard({
    notify: (text, level) => {
      try {
        session?.ui.notify(text, level);
      } catch {
        // a stale context: the notice has nowhere to go
      }
    },
    asked: (question) => events(LIFECYCLE_CHANNELS.asking, askingEvent(question, Date.now())),
  });
  const presenter = new QuestionPresenter(board, () => session, { gapMs: questionPauseMs() });
  const capture = (ctx: ExtensionContext) => {
    if (!ctx.hasUI || detectAppMode() !== "interactive") return;
    session = ctx;
    presenter.poke();
  };
  pi.on("session_start", (_event, ctx) => capture(ctx));
  pi.on("agent_start", (_event, ctx) => capture(ctx));
  pi.on("agent_end", (_event, ctx) => capture(ctx));
  pi.on("session_shutdown", () => {
    session = undefined;
    presenter.detach();
  });

  pi.registerCommand(ANSWER_COMMAND, {
    description: COMMANDS.answer.description,
    handler: async (args, ctx) => {
      try {
        if (!ctx.hasUI) return;
        const parsed = parseAnswerArgs(args);
        if (parsed.kind === "refuse") {
          const taskId = parsed.task === undefined ? undefined : board.queue.pending().find((question) => question.taskId.startsWith(parsed.task ?? ""))?.taskId;
          const refused = parsed.task !== undefined && taskId === undefined ? undefined : board.refuseTask(taskId);
          if (refused) ctx.ui.notify(questionsRefusedReply(refused.asker, refused.count), "info");
          else ctx.ui.notify(parsed.task === undefined ? NO_QUESTION_WAITING : NO_QUESTION_OF_TASK, "info");
          return;
        }
        if (parsed.kind === "unknown") {
          ctx.ui.notify(parsed.message, "warning");
          return;
        }
        const opened = presenter.open(ctx);
        if (opened === "none") ctx.ui.notify(NO_QUESTION_WAITING, "info");
        else if (opened === "already-open") ctx.ui.notify(QUESTION_ALREADY_OPEN, "info");
      } catch (error) {
        try {
          ctx.ui.notify(commandFailed(ANSWER_COMMAND, error), "error");
        } catch {
          // nowhere left to report it
        }
      }
    },
  });
  return board;
}
