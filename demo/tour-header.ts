/**
 * `npm run try`'s header (loaded with `-e` next to the package): pi's TUI clears the terminal when it starts, so
 * the notice that the model is a fake, and what to do, is pi's own startup header. Subagent children get the
 * main pi's `-e` extensions too; they have no header to show, so this does nothing there.
 */
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import { PARENT_ENV } from "../src/core/shared/depth.ts";

export const TOUR_HEADER = [
  "npm run try · the model is a FAKE: scripted, offline, no API key",
  "Type anything: the main agent delegates a task to a subagent, in the background.",
  "Then try /subagent-watch, /subagent-result, /subagent-cancel, /subagent-config.",
  "/quit ends the tour and removes its temporary files.",
];

/** Words of `text` in lines of at most `width` columns (pi's TUI refuses lines wider than the terminal). */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(" ")) {
    const next = line ? `${line} ${word}` : word;
    if (next.length <= width || !line) line = next.slice(0, Math.max(1, width));
    else {
      lines.push(line);
      line = word.slice(0, Math.max(1, width));
    }
  }
  if (line) lines.push(line);
  return lines;
}

export default function tourHeader(pi: ExtensionAPI): void {
  if (process.env[PARENT_ENV]) return;
  pi.on("session_start", async (_event, ctx) => {
    if (!ctx.hasUI) return;
    ctx.ui.setHeader((_tui, theme) => ({
      render: (width: number) => [
        "",
        ...TOUR_HEADER.flatMap((text, index) => wrap(text, width).map((line) => (index === 0 ? theme.fg("accent", line) : line))),
        "",
      ],
      invalidate: () => {},
    }));
  });
}
