// @ts-check
import { toolLinesOf } from "./partial-output.js";
/** @import { RunHandle } from "./runner.js" */
/** @import { RunOutcome } from "./types.ts" */

/**
 * The outcome of a run that pi's own exit ends (a signal, or `process.exit`): cancelled by shutdown, with what
 * the run had produced so far. Built synchronously from the live state, since an exiting process cannot wait.
 * @param {RunHandle} handle
 * @param {number} at
 * @returns {RunOutcome}
 */
export function outcomeAtExit(handle, at) {
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
