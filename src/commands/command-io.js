// @ts-check
/**
 * How a command answers, by where pi runs: in the interactive TUI and under RPC a notice is `ctx.ui.notify`
 * (RPC sends it to the client); in print and JSON mode `notify` does nothing, so notices go to stderr, and a
 * result meant for a script goes to the real stdout.
 *
 * In print and JSON mode pi replaces `process.stdout.write` with a function that writes to stderr while it
 * runs (console.log from an extension lands on stderr). The stream's own write method, taken from the
 * prototype, still writes to file descriptor 1 with the stream's buffering and ordering, the same way pi
 * writes its own answer.
 */
import { Writable } from "node:stream";
/** @import { ExtensionCommandContext } from "@mariozechner/pi-coding-agent" */
import { detectAppMode } from "../shared/mode.js";
/** @import { AppMode } from "../shared/mode.js" */

/**
 * Where a command's answer goes: the TUI's widgets and dialogs, an RPC client, or the terminal's streams.
 * @typedef {"tui" | "rpc" | "stdio"} Surface
 */

/** @typedef {"info" | "warning" | "error"} NoticeLevel */

/**
 * @typedef {object} CommandIo
 * @property {AppMode} mode
 * @property {Surface} surface
 * @property {(text: string, level?: NoticeLevel) => void} notice
 * @property {(text: string) => void} stdout Print and JSON mode only: text for the real stdout.
 * @property {() => void} failed Print and JSON mode only: makes pi exit with status 1 (the command could not give
 *   what was asked).
 */

/**
 * @param {boolean} hasUI
 * @param {AppMode} mode
 * @returns {Surface}
 */
export function surfaceOf(hasUI, mode) {
  if (mode === "rpc") return "rpc";
  return hasUI && mode === "interactive" ? "tui" : "stdio";
}

/**
 * Writes to file descriptor 1 even while pi redirects `process.stdout.write` to stderr.
 * @param {string} text
 * @returns {void}
 */
export function writeRealStdout(text) {
  Writable.prototype.write.call(process.stdout, text, "utf8");
}

/**
 * @typedef {object} CommandIoOptions
 * @property {() => AppMode} [mode]
 * @property {(text: string) => void} [stdout]
 * @property {(text: string) => void} [stderr]
 * @property {(code: number) => void} [setExitCode]
 */

/**
 * @param {Pick<ExtensionCommandContext, "hasUI" | "ui">} ctx
 * @param {CommandIoOptions} [options]
 * @returns {CommandIo}
 */
export function commandIo(ctx, options = {}) {
  const mode = (options.mode ?? detectAppMode)();
  const surface = surfaceOf(ctx.hasUI, mode);
  const stderr = options.stderr ?? ((/** @type {string} */ text) => void process.stderr.write(text));
  return {
    mode,
    surface,
    notice: (text, level = "info") => {
      if (surface === "stdio") stderr(`${text}\n`);
      else ctx.ui.notify(text, level);
    },
    stdout: options.stdout ?? writeRealStdout,
    failed: () => {
      if (surface !== "stdio") return;
      if (options.setExitCode) options.setExitCode(1);
      else process.exitCode = 1;
    },
  };
}
