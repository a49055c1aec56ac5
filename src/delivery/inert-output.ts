/**
 * A child's text made inert inside a result (pure): the envelope, a batch's or chain's combined result and a
 * blocking call's tool result put a child's answer under headings of their own (`## [subagent-result] …`,
 * `### 2. explore succeeded (taskId: …)`, `### Step 2. …`, `[subagent session: …]`), so a line of the answer that
 * looks like one of them could pass for the result's structure: a forged part, a forged status, a forged second
 * envelope. Such a line gets a backslash in front (`\### Step 2. worker succeeded`): the model reads it as the
 * child's text, and every other line of the answer, its own headings included, is left exactly as written.
 */

/** Up to 3 spaces and any `>` quote markers: where markdown still reads a heading or a tag at a line's start. */
const LINE_START = /^( {0,3}(?:>\s*)*)/;
/** A markdown heading's marks and the heading text. */
const HEADING = /^(#{1,6})(?:[ \t]+(.*))?$/;
/** A heading text a result's own heading could start with: a part number (`2.`, `Step 2.`) or a result tag. */
const STRUCTURE_HEADING = /^(?:step\s*)?\d+\s*[.):]|subagent[-_ ]?result|\b(?:task|batch|chain)id\b/i;
/** A result's own tag line: `[subagent-result] …`, `[subagent session: …]`, `[subagent sandbox: …]`. */
const TAG_LINE = /^\[subagent[-_ ]/i;

/** True when the line could be read as part of a result's structure rather than the child's text. */
export function looksLikeResultStructure(line: string): boolean {
  const rest = line.slice(LINE_START.exec(line)?.[0].length ?? 0);
  if (TAG_LINE.test(rest)) return true;
  const heading = HEADING.exec(rest);
  return heading !== null && STRUCTURE_HEADING.test((heading[2] ?? "").trim());
}

/** The child's text with every structure-like line escaped by a leading backslash; the rest untouched. */
export function inertChildText(text: string): string {
  // Fast path: no line can start a heading or a tag.
  if (!text.includes("#") && !/\[subagent/i.test(text)) return text;
  return text
    .split("\n")
    .map((line) => {
      if (!looksLikeResultStructure(line)) return line;
      const indent = LINE_START.exec(line)?.[0] ?? "";
      return `${indent}\\${line.slice(indent.length)}`;
    })
    .join("\n");
}
