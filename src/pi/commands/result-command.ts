/**
 * /subagent-result: the full final result of a finished task, read from its record on disk, so it works for
 * background and synchronous runs, after /reload and after pi restarts. In the TUI it opens the full-screen
 * viewer (without an id: a picker of the most recent finished tasks, which it returns to when the viewer
 * closes). In print mode it writes the record and the whole output to stdout for scripts; in JSON mode one
 * JSON line; under RPC a notice to the client.
 */
import type { TaskRecord } from "../../records/types.ts";
import { FULL_SCREEN, ResultViewer, type ViewerExit } from "../ui/result-viewer.ts";
import { finishedTaskItems, namedTaskItems } from "../ui/task-picker.ts";
import type { CommandIo } from "./command-io.ts";
import { RECENT_FINISHED_MAX } from "../../commands/completions.ts";
import {
  NO_FINISHED_TASKS,
  noFinalOutput,
  noTaskRecord,
  prefixAmbiguous,
  prefixTooShort,
  RESULT_STILL_RUNNING,
  RESULT_USAGE,
  workflowResultNotice,
} from "../../commands/notices.ts";
import { pickTask } from "./pick-task.ts";
import { recentResultLines, resultJsonLine, resultPlainText } from "../../commands/result-text.ts";
import type { TaskCommandContext, TaskCommandDeps } from "./task-command-deps.ts";
import { lookupResult } from "../../commands/task-lookup.ts";
import { normalizeTaskInput } from "../../commands/task-prefix.ts";

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
      io.notice(workflow ? workflowResultNotice(workflow.workflowId, workflow.details.agent, workflow.details.workflow.parts) : RESULT_STILL_RUNNING, "warning");
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
        await browseResults(ctx, io, deps, `${prefixAmbiguous(found.prefix, found.matches)} Pick one:`, () => namedTaskItems(found.matches));
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
  return { taskId: record.taskId, agent: record.agent, status: record.status, finishedAt: record.finishedAt, task: record.task };
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
async function showRecord(record: TaskRecord, ctx: TaskCommandContext, io: CommandIo, deps: TaskCommandDeps, fromList = false): Promise<ViewerExit | undefined> {
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
