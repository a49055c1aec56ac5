// @ts-check
/**
 * What a stopped run leaves behind for the main agent and the person: the last text the child wrote and the
 * tools it ran, under one heading (pure).
 */

export const PARTIAL_OUTPUT_HEADING = "Partial output before it was stopped:";
export const NO_PARTIAL_TEXT = "(the subagent had not written any text yet)";
/** How many of the last tool calls are listed. */
export const MAX_PARTIAL_TOOLS = 20;

/**
 * @typedef {object} PartialOutput
 * @property {string} text The last non-empty assistant text.
 * @property {string[]} tools One line per tool call (`bash: ls -la`), oldest first, the last MAX_PARTIAL_TOOLS.
 */

/**
 * @param {PartialOutput} partial
 * @returns {boolean}
 */
export function isEmptyPartial(partial) {
  return !partial.text.trim() && partial.tools.length === 0;
}

/**
 * The block shown for a stopped run; empty when it produced nothing at all.
 * @param {PartialOutput} partial
 * @returns {string}
 */
export function formatPartialOutput(partial) {
  if (isEmptyPartial(partial)) return "";
  const lines = [PARTIAL_OUTPUT_HEADING, partial.text.trim() ? partial.text : NO_PARTIAL_TEXT];
  if (partial.tools.length > 0) {
    lines.push("", `Tools it ran (${partial.tools.length === MAX_PARTIAL_TOOLS ? `last ${MAX_PARTIAL_TOOLS}` : partial.tools.length}):`);
    for (const tool of partial.tools) lines.push(`- ${tool}`);
  }
  return lines.join("\n");
}

/**
 * The tool lines of a run's activity list, the last MAX_PARTIAL_TOOLS.
 * @param {ReadonlyArray<{ kind: string; text: string }>} activity
 * @returns {string[]}
 */
export function toolLinesOf(activity) {
  return activity.filter((line) => line.kind === "tool").map((line) => line.text).slice(-MAX_PARTIAL_TOOLS);
}
