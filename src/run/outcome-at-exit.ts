import { toolLinesOf } from "./partial-output.ts";
import type { RunHandle } from "./runner.ts";
import type { RunOutcome } from "./types.ts";

/**
 * The outcome of a run that pi's own exit ends (a signal, or `process.exit`): cancelled by shutdown, with what
 * the run had produced so far. Built synchronously from the live state, since an exiting process cannot wait.
 */
export function outcomeAtExit(handle: RunHandle, at: number): RunOutcome {
  const { state } = handle;
  return {
    status: "cancelled",
    exitCode: null,
    signal: null,
    stopReason: "killed_on_shutdown",
    errorMessage: state.errorMessage,
    output: state.lastText,
    usage: { ...state.usage },
    model: state.provider && state.model ? `${state.provider}/${state.model}` : state.model,
    startedAt: handle.startedAt,
    finishedAt: at,
    durationMs: at - handle.startedAt,
    stderrTail: "",
    partial: { text: state.lastText, tools: toolLinesOf(state.activity) },
  };
}
