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
import type { ExtensionCommandContext } from "@mariozechner/pi-coding-agent";
import { detectAppMode } from "../../shared/mode.ts";
import type { AppMode } from "../../shared/mode.ts";

/** Where a command's answer goes: the TUI's widgets and dialogs, an RPC client, or the terminal's streams. */
export type Surface = "tui" | "rpc" | "stdio";

export type NoticeLevel = "info" | "warning" | "error";

export interface CommandIo {
  mode: AppMode;
  surface: Surface;
  notice: (text: string, level?: NoticeLevel) => void;
  /** Print and JSON mode only: text for the real stdout. */
  stdout: (text: string) => void;
  /**
   * Print and JSON mode only: makes pi exit with status 1 (the command could not give
   * what was asked).
   */
  failed: () => void;
}

export function surfaceOf(hasUI: boolean, mode: AppMode): Surface {
  if (mode === "rpc") return "rpc";
  return hasUI && mode === "interactive" ? "tui" : "stdio";
}

/** Writes to file descriptor 1 even while pi redirects `process.stdout.write` to stderr. */
export function writeRealStdout(text: string): void {
  Writable.prototype.write.call(process.stdout, text, "utf8");
}

export interface CommandIoOptions {
  mode?: () => AppMode;
  stdout?: (text: string) => void;
  stderr?: (text: string) => void;
  setExitCode?: (code: number) => void;
}

export function commandIo(ctx: Pick<ExtensionCommandContext, "hasUI" | "ui">, options: CommandIoOptions = {}): CommandIo {
  const mode = (options.mode ?? detectAppMode)();
  const surface = surfaceOf(ctx.hasUI, mode);
  const stderr = options.stderr ?? ((text: string) => void process.stderr.write(text));
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
