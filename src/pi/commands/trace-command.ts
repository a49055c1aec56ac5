/**
 * `/subagent-trace [id] [--json <file>]`'s body, loaded when the command first runs: the trace read from disk
 * (src/trace/trace-store.ts), shown as text in print mode and RPC, in a scrollable viewer in the TUI (refreshed
 * while the delegation runs), or written as OpenTelemetry spans. Without an id: the recent delegations, one a
 * line, or a picker in the TUI.
 */
import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import type { ExtensionCommandContext } from "@mariozechner/pi-coding-agent";
import type { SelectItem } from "@mariozechner/pi-tui";
import { oneLine, shortTaskId } from "../../shared/text.ts";
import { agentDir } from "../../shared/this-process.ts";
import { prefixAmbiguous, prefixTooShort } from "../../commands/task-commands.ts";
import { buildTrace, type Trace } from "../../trace/trace.ts";
import { traceLines } from "../../trace/trace-text.ts";
import { spanLines, traceSpans } from "../../trace/trace-spans.ts";
import { lookupTrace, recentTraces, type RecentTrace, type TraceReader } from "../../trace/trace-store.ts";
import {
  NO_TRACES,
  TRACE_PICKER_TITLE,
  TRACE_USAGE,
  noTrace,
  parseTraceArgs,
  spansNotWritten,
  spansWritten,
} from "../../trace/trace-args.ts";
import { FULL_SCREEN } from "../ui/views.ts";
import { TraceView } from "../ui/trace-view.ts";
import { pickTask, type CommandIo, type TaskCommandDeps } from "./command-io.ts";

/** How often an open viewer re-reads a running delegation. */
export const TRACE_REFRESH_MS = 1000;
const RECENT_TRACES_MAX = 20;

type TraceContext = Pick<ExtensionCommandContext, "hasUI" | "ui" | "cwd">;

function readerOf(deps: TaskCommandDeps): TraceReader {
  return { agentDir: agentDir(), sources: deps.sources, now: deps.now };
}

/** The trace of a typed id, or undefined after saying why there is none. */
function traceOf(reader: TraceReader, typed: string, io: CommandIo): Trace | undefined {
  const found = lookupTrace(reader, typed);
  if (found.kind === "found") return buildTrace(found.input);
  if (found.kind === "missing") io.notice(noTrace(found.id), "warning");
  else if (found.found.kind === "too-short") io.notice(prefixTooShort(found.found.prefix), "warning");
  else if (found.found.kind === "ambiguous")
    io.notice(prefixAmbiguous(found.found.prefix, found.found.matches), "warning");
  else if (found.found.kind === "unknown") io.notice(noTrace(found.found.prefix), "warning");
  io.failed();
  return undefined;
}

function recentLine(trace: RecentTrace): string {
  const at = new Date(trace.at).toISOString().replace("T", " ").slice(0, 19);
  return `${trace.id}  ${at}  ${trace.kind === "task" ? "" : `${trace.kind} · `}${trace.title} · ${oneLine(trace.task, 80)}`;
}

function recentItems(traces: readonly RecentTrace[]): SelectItem[] {
  return traces.map((trace) => ({
    value: trace.id,
    label: `${trace.title} · ${shortTaskId(trace.id)} · ${oneLine(trace.task, 100)}`,
  }));
}

async function showInTui(ctx: TraceContext, reader: TraceReader, typed: string, first: Trace): Promise<void> {
  let timer: ReturnType<typeof setInterval> | undefined;
  await ctx.ui.custom<void>((tui, theme, _keybindings, done) => {
    const view = new TraceView({
      trace: first,
      theme,
      rows: () => tui.terminal.rows,
      now: reader.now,
      onClose: () => {
        if (timer !== undefined) clearInterval(timer);
        done(undefined);
      },
      requestRender: () => tui.requestRender(),
    });
    if (view.live) {
      // Re-read the disk while the delegation runs; stop once it ended (its last state stays on screen).
      timer = setInterval(() => {
        const found = lookupTrace(reader, typed);
        if (found.kind !== "found") return;
        view.update(buildTrace(found.input));
        if (!view.live && timer !== undefined) clearInterval(timer);
      }, TRACE_REFRESH_MS);
      timer.unref?.();
    }
    return view;
  }, FULL_SCREEN);
  if (timer !== undefined) clearInterval(timer);
}

export async function traceCommand(args: string, ctx: TraceContext, deps: TaskCommandDeps): Promise<void> {
  const io = deps.io(ctx);
  const parsed = parseTraceArgs(args);
  if ("error" in parsed) {
    io.notice(parsed.error, "warning");
    io.failed();
    return;
  }
  const reader = readerOf(deps);
  let typed = parsed.id;
  if (typed === "") {
    const recent = recentTraces(reader, RECENT_TRACES_MAX);
    if (recent.length === 0) {
      io.notice(NO_TRACES);
      return;
    }
    if (io.surface !== "tui" || parsed.jsonFile) {
      const lines = recent.map(recentLine);
      if (io.surface === "rpc") io.notice([TRACE_USAGE, ...lines].join("\n"));
      else {
        io.notice(TRACE_USAGE);
        io.stdout(
          io.mode === "json"
            ? `${JSON.stringify({ type: "subagent_traces", traces: recent })}\n`
            : `${lines.join("\n")}\n`,
        );
      }
      return;
    }
    const picked = await pickTask(ctx, { title: TRACE_PICKER_TITLE, items: recentItems(recent) });
    if (!picked) return;
    typed = picked;
  }
  const trace = traceOf(reader, typed, io);
  if (!trace) return;
  if (parsed.jsonFile) {
    const file = resolve(ctx.cwd, parsed.jsonFile);
    const spans = traceSpans(trace, deps.now());
    try {
      writeFileSync(file, spanLines(spans), { mode: 0o600 });
    } catch (error) {
      io.notice(spansNotWritten(file, error), "error");
      io.failed();
      return;
    }
    io.notice(spansWritten(spans.length, file, `${trace.kind} ${trace.id}`));
    return;
  }
  if (io.surface === "tui") {
    await showInTui(ctx, reader, trace.id, trace);
    return;
  }
  // JSON mode: the tree itself, one line, for scripts.
  if (io.mode === "json") {
    io.stdout(`${JSON.stringify({ type: "subagent_trace", trace })}\n`);
    return;
  }
  const text = traceLines(trace, deps.now()).join("\n");
  if (io.surface === "rpc") io.notice(text);
  else io.stdout(`${text}\n`);
}
