/**
 * How discovery and config problems reach the person: each message once per process (a broken file is not
 * re-announced on every dispatch), as a UI warning when there is a UI, otherwise on stderr.
 */
import { stripTerminalControls } from "../shared/text.ts";
import type { AgentWarning } from "./parse.ts";
import { perProcess } from "../shared/this-process.ts";

export const WARNING_PREFIX = "pi-subagent-dispatch: ";

// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/g;

/** File names come from the disk; never let one send escape sequences to the terminal. */
function printable(text: string): string {
  return text.replace(CONTROL_CHARACTERS, "?");
}

export function formatAgentWarning(warning: AgentWarning): string {
  const what = warning.skipped ? "skipped agent file" : "agent file";
  return `${WARNING_PREFIX}${what} ${printable(warning.filePath)}: ${warning.reason}`;
}

export interface WarningSink {
  hasUI: boolean;
  ui: { notify(message: string, type?: "info" | "warning" | "error"): void };
}

// Per process, not per load: a file already reported is not reported again after a /reload.
function seenMessages(): Set<string> {
  return perProcess("reported-warnings", () => new Set<string>());
}

/** Shows each message that was not shown before in this process. Never throws. */
export function reportWarningsOnce(messages: readonly string[], sink: WarningSink | undefined): void {
  const seen = seenMessages();
  for (const raw of messages) {
    // Messages quote file names, YAML errors and model output: never let one drive the terminal.
    const message = stripTerminalControls(raw);
    if (seen.has(message)) continue;
    seen.add(message);
    try {
      if (sink?.hasUI) sink.ui.notify(message, "warning");
      else console.error(message);
    } catch {
      // Reporting a warning must never be what breaks pi.
    }
  }
}

/**
 * Shows `message` unless a message with the same `key` was shown before in this process (for a notice whose
 * wording differs with what each path knows, but which the person should read once). Never throws.
 */
export function reportOnceByKey(key: string, message: string, sink: WarningSink | undefined): void {
  const seen = seenMessages();
  const marker = `\u0000key:${key}`;
  if (seen.has(marker)) return;
  seen.add(marker);
  reportWarningsOnce([message], sink);
}

/** For tests: forget what was reported. */
export function resetReportedWarningsForTests(): void {
  seenMessages().clear();
}
