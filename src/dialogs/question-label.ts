/**
 * How a child's question is named to the person (pure): who asks (`explore 3f9a2c7d asks:`, or the whole path of
 * a nested child, `reviewer 2c7d › explore 0d94 asks:`) and the question in one line (`Allow rm -rf build?`). The
 * id shown is its end, the short id of the widget and the cards, which the task commands accept.
 * Everything here comes from a child, so terminal control sequences are removed.
 */
import { oneLine } from "../shared/format.ts";
import { stripTerminalControls } from "../shared/terminal-text.ts";
import type { ChildDialog } from "./child-ui-request.ts";

/** One subagent on the way from the asking child up to the person. */
export interface Asker {
  agent: string;
  taskId: string;
}

/** A lone asker shows the last 8 characters of its id (its short id); in a path each shows 4, so the line stays short. */
export const ASKER_ID_CHARS = 8;
export const PATH_ID_CHARS = 4;
/** How long the one-line question may be in a widget row or a result line. */
export const QUESTION_LINE_MAX = 100;

/** `explore 3f9a2c7d asks:`; `reviewer 2c7d › explore 0d94 asks:` for a path, outermost first. */
export function askerLabel(path: readonly Asker[]): string {
  const chars = path.length > 1 ? PATH_ID_CHARS : ASKER_ID_CHARS;
  const names = path.map((asker) => `${oneLine(asker.agent, 40)} ${oneLine(asker.taskId, 40).slice(-chars)}`);
  return `${names.join(" › ")} asks:`;
}

/** The question in one line: its title (and a confirm's message), whitespace folded, at most QUESTION_LINE_MAX. */
export function questionLine(dialog: Pick<ChildDialog, "title" | "message">, max = QUESTION_LINE_MAX): string {
  const whole = dialog.message ? `${dialog.title} ${dialog.message}` : dialog.title;
  return oneLine(whole, max) || "(a question without a title)";
}

/** The dialog's title as the person sees it: the asker's label above the child's own title. */
export function labelledTitle(path: readonly Asker[], title: string): string {
  return `${askerLabel(path)}\n${stripTerminalControls(title)}`;
}
