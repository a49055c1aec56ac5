/**
 * `npm run try`'s header (loaded with `-e` next to the package): pi's TUI clears the terminal when it starts, so
 * the notice that the model is a fake, and what to do, is pi's own startup header. Subagent children get the
 * main pi's `-e` extensions too; they have no header to show, so this does nothing there.
 */
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import { Text } from "@mariozechner/pi-tui";
import { PARENT_ENV } from "../src/shared/nesting.ts";

export const TOUR_HEADER = [
  "npm run try · the model is a FAKE: scripted, offline, no API key",
  "Type anything: the main agent delegates a task to a subagent, in the background.",
  "Then try /subagent-watch, /subagent-result, /subagent-cancel, /subagent-config.",
  "/quit ends the tour and removes its temporary files.",
];

export default function tourHeader(pi: ExtensionAPI): void {
  if (process.env[PARENT_ENV]) return;
  pi.on("session_start", async (_event, ctx) => {
    if (!ctx.hasUI) return;
    // pi-tui's Text wraps to the terminal's width (pi refuses wider lines); a blank line above and below.
    ctx.ui.setHeader(
      (_tui, theme) => new Text([theme.fg("accent", TOUR_HEADER[0]!), ...TOUR_HEADER.slice(1)].join("\n"), 0, 1),
    );
  });
}
