/**
 * Is a child's final message the deliverable, or only a stand-in for it (pure)? The deliverable check
 * (src/run/settle-checks.ts) asks this when a child's run ends on its own.
 *
 * The heuristics, conservative on purpose (a real answer wrongly flagged costs a needless continuation; a pointer
 * missed costs what it cost before):
 * - `empty`: no text at all (whitespace only). `tool-call`: the run ended on a tool call with at most a short text.
 * - Substantive floor: more than SUBSTANTIVE_CHARS characters, or more than SUBSTANTIVE_LINES non-empty lines, is
 *   always `ok`, whatever it says ("the report above", "written to REPORT.md" in a long answer are in passing).
 * - `pointer-to-file`: a short message that says the deliverable was written to, saved in or can be found in a
 *   path-like name (`REPORT.md`, `docs/findings.md`, `./out/summary.txt`): "Written to X", "I've saved the report
 *   in X", "Done — results in X", "See X for the details". A sentence like "I fixed parse.ts and added a test" is
 *   not one: it names what changed, not where the answer is.
 * - `pointer-to-messages`: a short message whose point is that the deliverable is elsewhere in the conversation:
 *   "The full report is above.", "See my previous message for details.", "Everything is in my earlier reply".
 *   "above" in passing ("the loop above the call", "as noted above, the answer is 42") is not a pointer.
 * - `preamble`: one short sentence that announces work still to do ("Now I'll write the summary.", "Let me
 *   compile the findings:"), or a single short line ending in a colon.
 * - Whatever remains beyond a pointer sentence must be short too (REMAINDER_CHARS): a pointer with a real
 *   summary after it is `ok`.
 */

type DeliverableKind = "ok" | "empty" | "tool-call" | "preamble" | "pointer-to-messages" | "pointer-to-file";

export interface DeliverableVerdict {
  kind: DeliverableKind;
  /** With `pointer-to-file`: the path as the message names it (quotes and trailing punctuation removed). */
  file?: string;
}

export interface FinalMessage {
  /** The text of the child's last assistant message. */
  text: string;
  /** True when that message ended on a tool call (stop reason `toolUse`). */
  endedOnToolCall?: boolean;
}

/** Above this many characters of content, an answer is never flagged. */
const SUBSTANTIVE_CHARS = 400;
/** Above this many non-empty lines, an answer is never flagged. */
const SUBSTANTIVE_LINES = 5;
/** What may remain beside a pointer sentence for the message to still be only a pointer. */
const REMAINDER_CHARS = 120;

/** A path-like name: a file with an extension, or a relative path with a folder. */
const PATH = String.raw`((?:\.{1,2}\/|\/)?(?:[\w@+-][\w.@+-]*\/)*[\w@+-][\w.@+-]*\.[A-Za-z0-9]{1,8}|(?:\.{1,2}\/)?[\w@+-][\w.@+-]*\/[\w.@+\/-]+)`;
const QUOTE = "[`'\"*]*";
const WROTE = String.raw`(?:written|wrote|write|writing|saved|save|saving|stored|put|placed|dumped|exported|recorded|documented|output|created|generated)`;
const DELIVERABLE_NOUN = String.raw`(?:full\s+|complete\s+|final\s+|detailed\s+|whole\s+)?(?:report|summary|results?|findings|analysis|review|answer|output|notes|details|plan|write-?up|document(?:ation)?|audit|overview|breakdown|everything|it|them|all)`;

const FILE_POINTERS: readonly RegExp[] = [
  // "Written to X", "I've written the report to X", "Saved the findings in X", "I wrote it to X".
  new RegExp(
    String.raw`(?:^|[.!:—–-]\s*|\b(?:i|i've|i\s+have|have|has|was|were|been|is|are)\s+|\b${DELIVERABLE_NOUN}\s+)${WROTE}\s+(?:(?:the|my|a|this|these|your)\s+)?(?:${DELIVERABLE_NOUN}\s+)?(?:out\s+)?(?:to|in|into|at|as)\s+(?:the\s+file\s+)?${QUOTE}${PATH}`,
    "i",
  ),
  // "The report is in X", "Results in X", "Findings are available in X", "Everything can be found in X".
  new RegExp(
    String.raw`\b${DELIVERABLE_NOUN}\s+(?:(?:is|are|has\s+been|have\s+been|was|were|can\s+be|now)\s+)*(?:(?:available|found|saved|written|stored|located)\s+)?(?:in|at|inside|under)\s+(?:the\s+file\s+)?${QUOTE}${PATH}`,
    "i",
  ),
  // "See X for the details", "Check X", "Open X".
  new RegExp(String.raw`\b(?:see|check|open|read|refer\s+to)\s+(?:the\s+file\s+)?${QUOTE}${PATH}`, "i"),
];

const ELSEWHERE = String.raw`(?:above|in\s+(?:my|the)\s+(?:previous|earlier|prior|last|preceding)\s+(?:message|response|reply|answer|output|turn)s?|earlier\s+in\s+(?:this|the)\s+(?:conversation|thread|session))`;
const MESSAGE_POINTERS: readonly RegExp[] = [
  // "The full report is above.", "Everything is in my previous message", "The summary was given above".
  new RegExp(
    String.raw`\b${DELIVERABLE_NOUN}\s+(?:(?:is|are|was|were|has\s+been|have\s+been|can\s+be)\s+)+(?:(?:shown|given|provided|listed|written|included|found|presented|laid\s+out|posted|above)\s+)?${ELSEWHERE}`,
    "i",
  ),
  // "See my previous message for details.", "See above.", "Refer to my earlier response".
  new RegExp(
    String.raw`\b(?:see|refer\s+to|check|scroll\s+up\s+to)\s+(?:(?:my|the)\s+(?:previous|earlier|prior|last|preceding)\s+(?:message|response|reply|answer|output|turn)s?|above|the\s+(?:report|summary|results?|findings|answer|output|message)\s+above)\b`,
    "i",
  ),
  // "As (shown|detailed) in my previous message." / "(Summarised|Reported) above."
  new RegExp(
    String.raw`^(?:(?:as\s+)?(?:shown|detailed|summari[sz]ed|reported|listed|described|provided|given)\s+${ELSEWHERE})`,
    "i",
  ),
];

/*
 * What every pattern above needs somewhere in the text, checked first: the big patterns cost milliseconds to compile
 * at their first use, and most short answers name neither a path nor another message.
 */
/** Every `PATH` holds a name with an extension (`x.md`) or a slash. */
const MAY_NAME_PATH = /[\w.@+-]\.[A-Za-z0-9]|\//;
/** Every message pointer says where: `above`, or a previous, earlier, prior, last or preceding message. */
const MAY_POINT_ELSEWHERE = /above|previous|earlier|prior|last|preceding/i;

const PREAMBLE_START =
  /^(?:(?:ok(?:ay)?|alright|great|good|now|next|finally|perfect)[,.!]?\s+)*(?:i'll|i\s+will|let\s+me|let's|i'm\s+going\s+to|i\s+am\s+going\s+to|time\s+to|i\s+need\s+to|now\s+i(?:'ll|\s+will))\b/i;

interface Measured {
  content: string;
  lines: string[];
}

/** The non-empty lines, trimmed; it stops once the text is past the substantive floor (a long answer costs little). */
function measure(text: string): Measured {
  const lines: string[] = [];
  let chars = 0;
  for (let start = 0; start <= text.length; ) {
    const end = text.indexOf("\n", start);
    const line = text.slice(start, end < 0 ? text.length : end).trim();
    if (line !== "") {
      lines.push(line);
      chars += line.length + 1;
      if (chars > SUBSTANTIVE_CHARS + 1 || lines.length > SUBSTANTIVE_LINES) break;
    }
    if (end < 0) break;
    start = end + 1;
  }
  return { content: lines.join(" "), lines };
}

function isSubstantive(measured: Measured): boolean {
  return measured.content.length > SUBSTANTIVE_CHARS || measured.lines.length > SUBSTANTIVE_LINES;
}

/** The sentences of a short text (split after `.`, `!`, `?` followed by a space, and at line ends). */
function sentencesOf(content: string): string[] {
  return content
    .split(/(?<=[.!?])\s+|\n+/)
    .map((sentence) => sentence.trim())
    .filter((sentence) => sentence !== "");
}

/** The text beside the sentence the pattern matched in: what would be left if the pointer were removed. */
function remainderBeside(
  content: string,
  pattern: RegExp,
): { matched: RegExpExecArray; remainder: string } | undefined {
  for (const sentence of sentencesOf(content)) {
    const matched = pattern.exec(sentence);
    if (matched) return { matched, remainder: content.replace(sentence, "").trim() };
  }
  return undefined;
}

/** A named path with quotes, markdown marks and sentence punctuation taken off its ends. */
function cleanPath(raw: string): string {
  return raw.replace(/^[`'"*]+/, "").replace(/[`'"*.,;:!?)]+$/, "");
}

export function classifyDeliverable(message: FinalMessage): DeliverableVerdict {
  const measured = measure(message.text);
  if (measured.content === "") return { kind: message.endedOnToolCall ? "tool-call" : "empty" };
  if (isSubstantive(measured)) return { kind: "ok" };
  if (message.endedOnToolCall) return { kind: "tool-call" };
  const filePointers = MAY_NAME_PATH.test(measured.content) ? FILE_POINTERS : [];
  const messagePointers = MAY_POINT_ELSEWHERE.test(measured.content) ? MESSAGE_POINTERS : [];
  for (const pattern of filePointers) {
    const found = remainderBeside(measured.content, pattern);
    if (found && found.remainder.length <= REMAINDER_CHARS) {
      const file = cleanPath(found.matched[1] ?? "");
      if (file) return { kind: "pointer-to-file", file };
    }
  }
  for (const pattern of messagePointers) {
    const found = remainderBeside(measured.content, pattern);
    if (found && found.remainder.length <= REMAINDER_CHARS) return { kind: "pointer-to-messages" };
  }
  const sentences = sentencesOf(measured.content);
  const only = sentences.length === 1 ? sentences[0] : undefined;
  if (only !== undefined && only.length <= 160 && (PREAMBLE_START.test(only) || only.endsWith(":")))
    return { kind: "preamble" };
  return { kind: "ok" };
}

/*
 * What the check recorded (`deliverable` in the record): `ok`, `restated` (asked once, the new final message is
 * the deliverable), `attached <file>` (the file the message pointed to is attached), `missing` (no deliverable).
 */
export type DeliverableNote = "ok" | "restated" | "missing" | `attached ${string}`;

/** The one prompt that sends a child whose final message was not the deliverable back to restate it. */
export const RESTATE_PROMPT =
  "Your final message is what the agent that delegated this task receives, and nothing else: it does not see your earlier messages, tool calls or the files you wrote. Your last message was not the deliverable (it was empty, a preamble, or a pointer to earlier messages or to a file). Reply now with the complete deliverable itself as your final message: the full answer, report or result, not a reference to where it is.";

/** The heading put between a child's final message and the text of the file it pointed to. */
export function attachedHeading(file: string): string {
  return `--- attached: ${file} (the file the final message pointed to) ---`;
}

/** The one line saying what the check did, for the envelope, the card, the tool result and /subagent-result. */
export function deliverableNoteText(note: DeliverableNote): string | undefined {
  if (note === "ok") return undefined;
  if (note === "restated")
    return "restated (its first final message was not the deliverable; asked once, it restated it)";
  if (note === "missing")
    return "missing: the subagent did not deliver its result in its final message (it gave a pointer, a preamble or nothing, also when asked once more where it could be); the output is what it said";
  return `${note} (its final message pointed to the file; the file's text follows the output)`;
}
