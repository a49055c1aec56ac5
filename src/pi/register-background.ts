/**
 * Wires background tasks to pi: created on first use in the interactive TUI, results sent with steer delivery,
 * delivery acknowledged when the message enters the conversation, unacknowledged results sent again at the
 * next safe moment (a run of the main agent ended and pi is idle), undelivered results of a session sent
 * again when it starts (startup, /reload, /resume), every running child stopped on `session_shutdown`, and
 * a result that entered twice kept from the model.
 */
import type { ExtensionAPI, ExtensionContext } from "@mariozechner/pi-coding-agent";
import { withoutDuplicateResults } from "../delivery/result-context.ts";
import { detectAppMode } from "../shared/mode.ts";
import { agentDir } from "../shared/paths.ts";
import { readRunSettings } from "../shared/run-settings.ts";
import { BackgroundTasks, RESULT_CUSTOM_TYPE } from "../tasks/background-tasks.ts";
import type { QuestionBoard } from "../dialogs/question-board.ts";
import { eventBusSink } from "../delivery/lifecycle-events.ts";
import { afterStartupSweep } from "../delivery/startup-sweep-state.ts";

export interface BackgroundHandle {
  /** The extension instance's background tasks (created on first call). */
  tasks: () => BackgroundTasks;
  /** The instance if it exists (never creates one). */
  existing: () => BackgroundTasks | undefined;
  /**
   * Called with each newly created instance
   * (the UI attaches its widget).
   */
  onCreated: (listener: (tasks: BackgroundTasks) => void) => void;
}

/** True when the run's last model call failed or was aborted (pi may then still hold queued messages). */
export function endedAbnormally(messages: readonly unknown[]): boolean {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = (messages[i] as { role?: string; stopReason?: string });
    if (message?.role === "assistant") return message.stopReason === "error" || message.stopReason === "aborted";
  }
  return false;
}

export function registerBackgroundTasks(pi: ExtensionAPI, options: { questions?: QuestionBoard } = {}): BackgroundHandle {
  let instance: BackgroundTasks | undefined;
  let session: ExtensionContext | undefined;
  const createdListeners: Array<(tasks: BackgroundTasks) => void> = [];
  const tasks = () => {
    if (!instance) {
      instance = new BackgroundTasks({
        agentDir: agentDir(),
        settings: readRunSettings(),
        send: (message) => pi.sendMessage(message, { deliverAs: "steer", triggerTurn: true }),
        // No context yet means nothing has run: pi is idle.
        isIdle: () => session?.isIdle() ?? true,
        notify: (text) => session?.ui.notify(text, "warning"),
        questions: options.questions,
        events: eventBusSink(pi.events),
      });
      for (const listener of createdListeners) listener(instance);
    }
    return instance;
  };
  const interactive = (ctx: ExtensionContext) => ctx.hasUI && detectAppMode() === "interactive";

  pi.on("session_start", (_event, ctx) => {
    if (!interactive(ctx)) return;
    session = ctx;
    const sessionId = ctx.sessionManager.getSessionId();
    // After start-up work is done: pi is idle then, so a redelivered result starts a turn of its own. The
    // start-up sweep goes first: what it records of a hard-killed pi's runs is delivered in the same pass.
    void afterStartupSweep().then(() =>
      setImmediate(() => {
        try {
          tasks().redeliver(sessionId);
        } catch {
          // a stale context after a quick /reload: the next session start delivers them
        }
      }),
    );
  });

  pi.on("agent_start", (_event, ctx) => {
    if (interactive(ctx)) session = ctx;
    instance?.delivery.runStarted();
  });

  // The safe moment after a run: pi idle. pi marks itself idle right after its agent_end listeners (0.73.1)
  // or after settling (1.x: retries, compaction, queued continuations); a message sent before that would wait
  // in the steer queue of a run that has ended. So the check waits a moment, and a few growing moments more
  // while pi is still busy; if a new run has started by then, its own end is the next chance.
  let safeMoment: { timer: NodeJS.Timeout; abnormal: boolean; tries: number; ctx: ExtensionContext } | undefined;
  const SAFE_MOMENT_TRIES = 6;
  const checkSafeMoment = () => {
    const pending = safeMoment;
    safeMoment = undefined;
    if (!pending || !instance) return;
    try {
      if (!pending.ctx.isIdle()) {
        if (pending.tries + 1 < SAFE_MOMENT_TRIES) arm(pending.ctx, pending.abnormal, pending.tries + 1);
        return;
      }
      instance.afterRun(pending.ctx.sessionManager.getSessionId(), pending.abnormal);
    } catch {
      // a stale context (reload, session switch): the next session start delivers what is left
    }
  };
  const arm = (ctx: ExtensionContext, abnormal: boolean, tries: number) => {
    const timer = setTimeout(checkSafeMoment, tries === 0 ? 0 : 50 * 2 ** tries);
    timer.unref();
    safeMoment = { timer, abnormal, tries, ctx };
  };
  const scheduleSafeMoment = (ctx: ExtensionContext, abnormal: boolean) => {
    if (!instance || !interactive(ctx)) return;
    if (safeMoment) clearTimeout(safeMoment.timer);
    arm(ctx, abnormal || (safeMoment?.abnormal ?? false), 0);
  };
  let lastEndAbnormal = false;

  pi.on("agent_end", (event, ctx) => {
    lastEndAbnormal = endedAbnormally(event.messages);
    scheduleSafeMoment(ctx, lastEndAbnormal);
  });
  // pi 1.x only: fired once a run has fully settled (no retry, compaction or continuation to come).
  (pi.on as (event: string, handler: (event: unknown, ctx: ExtensionContext) => void) => void)("agent_settled", (_event, ctx) =>
    scheduleSafeMoment(ctx, lastEndAbnormal),
  );

  type ResultLike = { role?: string; customType?: string; details?: { taskId?: unknown; duplicate?: boolean } };
  const resultTaskId = (message: ResultLike): string | undefined =>
    message.role === "custom" && message.customType === RESULT_CUSTOM_TYPE && typeof message.details?.taskId === "string"
      ? message.details.taskId
      : undefined;

  // pi draws the message when it starts and persists it when it ends, both after its extension listeners, on
  // this same object: a copy of a result already in the conversation is marked here, so it is drawn as a
  // duplicate, stored marked, and kept from the model (see the context handler).
  pi.on("message_start", (event) => {
    const message = (event.message as ResultLike);
    const taskId = resultTaskId(message);
    if (taskId && instance?.delivery.isAcknowledged(taskId)) (message.details as NonNullable<ResultLike["details"]>).duplicate = true;
  });

  pi.on("message_end", (event) => {
    const message = (event.message as ResultLike);
    const taskId = resultTaskId(message);
    if (!taskId) return;
    if (tasks().confirmDelivered(taskId) === "duplicate") (message.details as NonNullable<ResultLike["details"]>).duplicate = true;
  });

  pi.on("context", (event) => {
    const messages = withoutDuplicateResults(event.messages);
    return messages ? { messages } : undefined;
  });

  pi.on("session_shutdown", async () => {
    session = undefined;
    if (safeMoment) clearTimeout(safeMoment.timer);
    safeMoment = undefined;
    await instance?.shutdown();
  });

  return {
    tasks,
    existing: () => instance,
    onCreated: (listener) => {
      createdListeners.push(listener);
      if (instance) listener(instance);
    },
  };
}
