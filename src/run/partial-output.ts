/**
 * What a stopped run leaves behind for the main agent and the person: the last text the child wrote and the
 * tools it ran, under one heading (pure).
 */

export const PARTIAL_OUTPUT_HEADING = "Partial output before it was stopped:";
export const NO_PARTIAL_TEXT = "(the subagent had not written any text yet)";
/** How many of the last tool calls are listed. */
export const MAX_PARTIAL_TOOLS = 20;

export interface PartialOutput {
  /** The last non-empty assistant text. */
  text: string;
  /** One line per tool call (`bash: ls -la`), oldest first, the last MAX_PARTIAL_TOOLS. */
  tools: string[];
}

export function isEmptyPartial(partial: PartialOutput): boolean {
  return !partial.text.trim() && partial.tools.length === 0;
}

/** The block shown for a stopped run; empty when it produced nothing at all. */
export function formatPartialOutput(partial: PartialOutput): string {
  if (isEmptyPartial(partial)) return "";
  const lines = [PARTIAL_OUTPUT_HEADING, partial.text.trim() ? partial.text : NO_PARTIAL_TEXT];
  if (partial.tools.length > 0) {
    lines.push("", `Tools it ran (${partial.tools.length === MAX_PARTIAL_TOOLS ? `last ${MAX_PARTIAL_TOOLS}` : partial.tools.length}):`);
    for (const tool of partial.tools) lines.push(`- ${tool}`);
  }
  return lines.join("\n");
}

/** The tool lines of a run's activity list, the last MAX_PARTIAL_TOOLS. */
export function toolLinesOf(activity: ReadonlyArray<{ kind: string; text: string }>): string[] {
  return activity.filter((line) => line.kind === "tool").map((line) => line.text).slice(-MAX_PARTIAL_TOOLS);
}
