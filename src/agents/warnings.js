// @ts-check
/**
 * How discovery and config problems reach the person: each message once per process (a broken file is not
 * re-announced on every dispatch), as a UI warning when there is a UI, otherwise on stderr.
 */
import { stripTerminalControls } from "../shared/terminal-text.js";
/** @import { AgentWarning } from "./types.ts" */

export const WARNING_PREFIX = "pi-subagent-dispatch: ";

// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/g;

/**
 * File names come from the disk; never let one send escape sequences to the terminal.
 * @param {string} text
 * @returns {string}
 */
function printable(text) {
  return text.replace(CONTROL_CHARACTERS, "?");
}

/**
 * @param {AgentWarning} warning
 * @returns {string}
 */
export function formatAgentWarning(warning) {
  const what = warning.skipped ? "skipped agent file" : "agent file";
  return `${WARNING_PREFIX}${what} ${printable(warning.filePath)}: ${warning.reason}`;
}

/**
 * @typedef {object} WarningSink
 * @property {boolean} hasUI
 * @property {{ notify(message: string, type?: "info" | "warning" | "error"): void }} ui
 */

// On globalThis rather than in this module: pi re-evaluates extension modules on /reload, and a file that was
// already reported should not be reported again by the same process.
const SEEN_KEY = Symbol.for("pi-subagent-dispatch.reported-warnings");

/** @returns {Set<string>} */
function seenMessages() {
  const holder = /** @type {typeof globalThis & { [SEEN_KEY]?: Set<string> }} */ (globalThis);
  holder[SEEN_KEY] ??= new Set();
  return holder[SEEN_KEY];
}

/**
 * Shows each message that was not shown before in this process. Never throws.
 * @param {readonly string[]} messages
 * @param {WarningSink | undefined} sink
 * @returns {void}
 */
export function reportWarningsOnce(messages, sink) {
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
 * For tests: forget what was reported.
 * @returns {void}
 */
export function resetReportedWarningsForTests() {
  seenMessages().clear();
}
