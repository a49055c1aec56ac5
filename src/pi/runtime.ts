/**
 * The whole runtime in the TUI: what it registers (the tool's part, steer delivery, the questions, the ledger, the UI and the commands).
 */
import type { ExtensionAPI, ExtensionContext, ExtensionCommandContext } from "@mariozechner/pi-coding-agent";
import { FanOutGate } from "../budget/fan-out.ts";
import {
  registerTaskCommands,
  registerWorktreesCommand,
  registerTraceCommand,
  registerSubagentConfigCommand,
  registerAgentsCommand,
} from "./commands/commands.ts";
import { commandIo } from "./commands/command-io.ts";
import { agentDir, perProcessIfMade } from "../shared/this-process.ts";
import type { WarmPool } from "../warm/warm-pool.ts";
import type { WarmChildView } from "../warm/warm-launch.ts";
import { createBackgroundDispatcher } from "./tool/background-dispatch.ts";
import { registerSubagentTool } from "./tool/execute.ts";
import { exportWhenEnded } from "../trace/otlp-seam.ts";
import { registerUi } from "./ui/progress.ts";
import { resultRun, withoutDuplicateResults } from "../delivery/delivery-tracker.ts";
import { detectAppMode } from "../shared/pi-process.ts";
import { readRunSettings } from "../shared/run-settings.ts";
import { BackgroundTasks, RESULT_CUSTOM_TYPE } from "../tasks/background-tasks.ts";
import {
  NO_QUESTION_WAITING,
  NO_QUESTION_OF_TASK,
  QUESTION_ALREADY_OPEN,
  questionsRefusedReply,
  parseAnswerArgs,
  QuestionBoard,
} from "../dialogs/question-board.ts";
import { eventBusSink, askingEvent, LIFECYCLE_CHANNELS } from "../delivery/lifecycle-events.ts";
import { afterStartupSweep } from "../run/startup-work.ts";
import { ANSWER_COMMAND, COMMANDS, USAGE_COMMAND } from "../commands/descriptions.ts";
import { commandFailed } from "../commands/task-commands.ts";
import { QuestionPresenter, questionPauseMs } from "./dialogs/question-presenter.ts";
import {
  ledgerEntriesOf,
  ledgerEntryOf,
  summarize,
  ledgerFooterText,
  ledgerReportLines,
  appendLedgerEntry,
  type LedgerEntry,
} from "../budget/usage.ts";
import { UsageView } from "./ui/views.ts";

/*
 * The extension's runtime: every part that does the work (dispatch, background tasks, UI, command bodies, the
 * config editor), wired to pi exactly as an eager extension would wire them. The entry (extension.ts) imports
 * this module on first use only; see src/start/lazy-extension.ts for when, and src/start/main-pi.ts for what pi sees
 * before. Whatever is registered here (a tool, a command, an event hook, a message renderer) needs its line
 * in the manifest too; test/unit/start/manifest.test.ts checks that.
 */
export function register(pi: ExtensionAPI): void {
  registerSubagentConfigCommand(pi);
  const background = registerBackgroundTasks(pi, { questions: registerQuestions(pi) });
  const ledger = registerLedger(pi);
  background.onCreated((tasks) => tasks.onRecord((record) => ledger.record(record)));
  const fanOutGate = new FanOutGate({
    inFlight: () =>
      (background.existing()?.snapshot() ?? []).map(({ taskId, agent, task, status }) => ({
        taskId,
        agent,
        task,
        status,
      })),
  });
  pi.on("agent_start", () => fanOutGate.runStarted());
  const ui = registerUi(pi, background);
  registerTaskCommands(pi, background);
  registerWorktreesCommand(pi);
  registerAgentsCommand(pi);
  registerTraceCommand(pi, background);
  registerSubagentTool(pi, {
    background: createBackgroundDispatcher(background.tasks, agentDir),
    renderers: ui.toolRenderers,
    onRecorded: (record) => ledger.record(record),
    fanOutGate,
  });
}

/*
 * Wires background tasks to pi: created on first use in the interactive TUI, results sent with steer delivery,
 * delivery acknowledged when the message enters the conversation, unacknowledged results sent again at the
 * next safe moment (a run of the main agent ended and pi is idle), undelivered results of a session sent
 * again when it starts (startup, /reload, /resume), every running child stopped on `session_shutdown`, and
 * a result that entered twice kept from the model.
 */
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
    const message = messages[i] as { role?: string; stopReason?: string };
    if (message?.role === "assistant") return message.stopReason === "error" || message.stopReason === "aborted";
  }
  return false;
}

export function registerBackgroundTasks(
  pi: ExtensionAPI,
  options: { questions?: QuestionBoard } = {},
): BackgroundHandle {
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
        // The TUI stays up: an export takes the exporter's own timeout, in the background.
        onDelegationEnded: (rootId) =>
          exportWhenEnded(
            rootId,
            { hasUI: session !== undefined, ui: { notify: (text, type) => session?.ui.notify(text, type) } },
            false,
          ),
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
  (pi.on as (event: string, handler: (event: unknown, ctx: ExtensionContext) => void) => void)(
    "agent_settled",
    (_event, ctx) => scheduleSafeMoment(ctx, lastEndAbnormal),
  );

  type ResultLike = { role?: string; customType?: string; details?: { taskId?: unknown; duplicate?: boolean } };
  const resultTaskId = (message: ResultLike): string | undefined =>
    message.role === "custom" &&
    message.customType === RESULT_CUSTOM_TYPE &&
    typeof message.details?.taskId === "string"
      ? message.details.taskId
      : undefined;

  // pi draws the message when it starts and persists it when it ends, both after its extension listeners, on
  // this same object: a copy of a result already in the conversation (the same task's same run; a resume is a
  // new run) is marked here, so it is drawn as a duplicate, stored marked, and kept from the model (see the
  // context handler).
  pi.on("message_start", (event) => {
    const message = event.message as ResultLike;
    const taskId = resultTaskId(message);
    if (taskId && instance?.delivery.isAcknowledged(taskId, resultRun(message.details)))
      (message.details as NonNullable<ResultLike["details"]>).duplicate = true;
  });

  pi.on("message_end", (event) => {
    const message = event.message as ResultLike;
    const taskId = resultTaskId(message);
    if (!taskId) return;
    if (tasks().confirmDelivered(taskId, resultRun(message.details)) === "duplicate")
      (message.details as NonNullable<ResultLike["details"]>).duplicate = true;
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

/*
 * Wires the person's subagent questions to pi: one board for this pi's background tasks (their dialogs and
 * notices, see src/dialogs/), shown by the presenter in the interactive TUI, and `/subagent-answer`, which
 * opens the oldest waiting question at once (`/subagent-answer refuse [task id or prefix]` answers every question
 * of one task `cancelled` instead: the oldest question's task when no id is given). Outside the TUI there are no
 * background tasks, so nothing asks.
 */
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
          const taskId =
            parsed.task === undefined
              ? undefined
              : board.queue.pending().find((question) => question.taskId.startsWith(parsed.task ?? ""))?.taskId;
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

/*
 * Wires the session ledger to pi: each ended task (background or blocking) is appended to pi's session as a
 * `subagent-usage` custom entry; the footer shows the session's total once something ran (rebuilt from the
 * session's entries at every session start, so /reload and `pi -c` show the same total); /subagent-usage shows
 * the whole report (a TUI view, plain text on stdout in print mode, one JSON line in JSON mode).
 */
export const LEDGER_STATUS_KEY = "subagent-usage";

type Ended = Parameters<typeof ledgerEntryOf>[0];

export interface LedgerHandle {
  /** Adds an ended task's usage to the session (and the footer). Never throws. */
  record(record: Ended): void;
}

function sessionEntries(ctx: Pick<ExtensionContext, "sessionManager">): LedgerEntry[] {
  return ledgerEntriesOf(ctx.sessionManager.getEntries());
}

export function registerLedger(pi: ExtensionAPI): LedgerHandle {
  let entries: LedgerEntry[] = [];
  let footer: ExtensionContext | undefined;

  const showFooter = () => {
    if (!footer) return;
    try {
      footer.ui.setStatus(LEDGER_STATUS_KEY, ledgerFooterText(summarize(entries)));
    } catch {
      footer = undefined; // a stale context after /reload: the next session start sets it again
    }
  };
  const interactive = (ctx: ExtensionContext) => ctx.hasUI && detectAppMode() === "interactive";

  pi.on("session_start", (_event, ctx) => {
    try {
      entries = sessionEntries(ctx);
    } catch {
      entries = [];
    }
    footer = interactive(ctx) ? ctx : undefined;
    showFooter();
  });

  pi.registerCommand(USAGE_COMMAND, {
    description: COMMANDS.usage.description,
    handler: async (_args: string, ctx: ExtensionCommandContext) => {
      const io = commandIo(ctx);
      try {
        // The session is the truth: in print mode (`pi -c -p "/subagent-usage"`) nothing else was loaded.
        const summary = summarize(sessionEntries(ctx));
        const warm = await warmChildrenNow();
        const lines = [...ledgerReportLines(summary), ...(warm ? ["", ...warm.lines] : [])];
        if (io.surface === "tui") {
          await ctx.ui.custom<void>((_tui, theme, _keybindings, done) => new UsageView(lines, theme, () => done()));
        } else if (io.surface === "rpc") {
          io.notice(lines.join("\n"));
        } else if (io.mode === "json") {
          io.stdout(
            `${JSON.stringify({ type: "subagent_usage", ...jsonOf(summary), ...(warm ? { warmChildren: warm.children } : {}) })}\n`,
          );
        } else {
          io.stdout(`${lines.join("\n")}\n`);
        }
      } catch (error) {
        io.notice(`/${USAGE_COMMAND} failed: ${error instanceof Error ? error.message : String(error)}`, "error");
        io.failed();
      }
    },
  });

  return {
    record(record) {
      const entry = appendLedgerEntry(pi, record);
      if (!entry) return;
      entries.push(entry);
      showFooter();
    },
  };
}

/** The children waiting for a task (src/warm/warm-pool.ts), if this pi ever started one; their modules load only then. */
async function warmChildrenNow(): Promise<{ lines: string[]; children: WarmChildView[] } | undefined> {
  const pool = perProcessIfMade<WarmPool>("warm-children");
  if (!pool) return undefined;
  const { warmChildrenLines } = await import("../warm/warm-launch.ts");
  const children = pool.describe();
  return { lines: warmChildrenLines(children, pool.max), children };
}

function jsonOf(summary: ReturnType<typeof summarize>) {
  return {
    total: summary.total,
    byStatus: Object.fromEntries(summary.byStatus),
    byAgent: Object.fromEntries(summary.byAgent),
    byModel: Object.fromEntries(summary.byModel),
  };
}
