/**
 * Edits of an agent file's frontmatter and body, with values quoted as YAML reads them back.
 */
import { parse, parse as parseYaml } from "yaml";
import { readFile } from "node:fs/promises";
import { isDeepStrictEqual } from "node:util";
import {
  writeFileAtomic,
  withFileLock,
  WriteBackError,
  type AtomicWriteOptions,
  type FileLockOptions,
} from "../shared/safe-write.ts";
import { isThinkingLevel, THINKING_LEVELS, type ThinkingLevel } from "../shared/thinking.ts";

/*
 * How one frontmatter value is written on its `key: value` line. Plain (unquoted) only when that is safe:
 * the value passes a few conservative rules and the candidate line, parsed back with the `yaml` package under
 * YAML 1.2 (what our reader uses) and YAML 1.1 (what older tools use), yields exactly the same string.
 * Otherwise it is double-quoted with escapes. Pure.
 *
 * Always quoted, whatever the parser says: empty values, leading or trailing whitespace, any `:` `#` `"` `'`
 * `\` or backtick, a first character that is a YAML indicator or a digit, anything outside printable ASCII
 * (CJK included, and every control character), and words a YAML 1.1 reader takes for booleans or null (yes,
 * no, on, off, y, n, true, false, null, ~ in any case).
 */
// eslint-disable-next-line no-control-regex
const OUTSIDE_PRINTABLE_ASCII = /[^\x20-\x7e]/;
const ALWAYS_QUOTED_CHARACTERS = /[:#"'\\`]/;
const INDICATOR_OR_DIGIT_FIRST = /^[-?:,[\]{}#&*!|>'"%@`0-9.+~=]/;
const LOOKALIKE_WORDS = /^(?:y|n|yes|no|on|off|true|false|null|~)$/i;

const PROBE_KEY = "k";

function parsesBackAs(line: string, value: string, version: "1.1" | "1.2"): boolean {
  try {
    const data: unknown = parse(line, { version, logLevel: "error", uniqueKeys: true });
    return data !== null && typeof data === "object" && (data as Record<string, unknown>)[PROBE_KEY] === value;
  } catch {
    return false;
  }
}

/** Whether `value` may be written unquoted after `key: `. */
export function isPlainSafe(value: string): boolean {
  if (value === "" || value !== value.trim()) return false;
  if (OUTSIDE_PRINTABLE_ASCII.test(value) || ALWAYS_QUOTED_CHARACTERS.test(value)) return false;
  if (INDICATOR_OR_DIGIT_FIRST.test(value) || LOOKALIKE_WORDS.test(value)) return false;
  const line = `${PROBE_KEY}: ${value}`;
  return parsesBackAs(line, value, "1.2") && parsesBackAs(line, value, "1.1");
}

/** A YAML double-quoted scalar: `\` and `"` escaped, and every character a reader could mistake escaped too. */
export function doubleQuoted(value: string): string {
  let out = '"';
  for (const char of value) {
    const code = char.codePointAt(0) ?? 0;
    if (char === '"') out += '\\"';
    else if (char === "\\") out += "\\\\";
    else if (char === "\n") out += "\\n";
    else if (char === "\t") out += "\\t";
    else if (char === "\r") out += "\\r";
    // C0, DEL, C1, the Unicode line and paragraph separators, the BOM, and lone surrogates.
    else if (
      code < 0x20 ||
      (code >= 0x7f && code <= 0x9f) ||
      code === 0x2028 ||
      code === 0x2029 ||
      code === 0xfeff ||
      (code >= 0xd800 && code <= 0xdfff)
    ) {
      out += `\\u${code.toString(16).padStart(4, "0")}`;
    } else out += char;
  }
  return `${out}"`;
}

/** The text to put after `key: ` for this value. */
export function formatYamlScalar(value: string): string {
  if (isPlainSafe(value)) return value;
  const quoted = doubleQuoted(value);
  // Cannot fail for the escapes above; checked anyway so a wrong line is never written.
  if (!parsesBackAs(`${PROBE_KEY}: ${quoted}`, value, "1.2")) {
    throw new Error(`cannot write ${JSON.stringify(value)} as a single-line YAML value`);
  }
  return quoted;
}

/*
 * Surgical edits of an agent file (`<name>.md` with YAML frontmatter), as /subagent-config needs them.
 *
 * `updateAgentFile` changes frontmatter keys line by line, never by re-serialising the YAML: the `key:` line
 * of a patched key is replaced, or deleted (an empty tools/skills/model/thinking), or a new `key: value` line
 * is appended at the end of the frontmatter block. Every other byte (other keys, unknown keys, comments, the
 * body, CRLF line breaks, a BOM) stays as it was. `setAgentBody` replaces the body and keeps the frontmatter
 * bytes.
 *
 * Refusals, all decided before anything is written (the file then stays byte-identical):
 * - a patch containing `name` (the agent's read-only identity), or an unknown key;
 * - an invalid value (empty description, unknown thinking level, a line break, a list item with a comma);
 * - a patched key whose current value spans several lines (block scalar `|`/`>`, indented continuation lines,
 *   list items), since replacing one line would orphan the rest; other multi-line keys do not matter;
 * - a file without frontmatter, or whose frontmatter is not valid YAML;
 * - a result that would not read back as intended (checked by parsing the new frontmatter).
 *
 * The pure steps are `applyAgentFilePatch` and `replaceAgentBody` (text in, text out); the adapters lock the
 * file (`<file>.lock`) and replace it atomically.
 * Not yaml's Document API (parseDocument, set, toString): on 13 agent files x 5 edits it rewrote untouched lines in
 * 37 of 63 (21 with lineWidth 0): long descriptions folded, spaces before comments squeezed, 0755 written as 755.
 */
export interface AgentFilePatch {
  /** Only for type compatibility with older callers: any patch that contains `name` is refused. */
  name?: string;
  /** Required in every agent file, so it can be replaced but never emptied. */
  description?: string;
  /**
   * A comma-separated string or a list; null, empty or a list of
   * blanks deletes the key line.
   */
  tools?: string | readonly string[] | null;
  skills?: string | readonly string[] | null;
  /** null or empty deletes the key line. */
  model?: string | null;
  thinking?: ThinkingLevel | "" | null;
}

export const EDITABLE_AGENT_KEYS = ["description", "tools", "skills", "model", "thinking"] as const;
type EditableAgentKey = (typeof EDITABLE_AGENT_KEYS)[number];

/** What the checked patch does to each key: write this value, or delete the key (null). */
type CheckedAgentPatch = Map<EditableAgentKey, string | null>;

export type AgentEditOutcome = { changed: false } | { changed: true; text: string };

const FENCE = /^---[ \t]*$/;
const LINE_BREAK = /[\r\n\u2028\u2029\u0085]/;

function invalid(message: string): WriteBackError {
  return new WriteBackError("invalid-value", `Not saved: ${message}`);
}

function singleLine(key: string, value: string): string {
  if (LINE_BREAK.test(value)) throw invalid(`the ${key} must be a single line.`);
  return value;
}

function checkList(key: "tools" | "skills", value: unknown): string | null {
  if (value === null) return null;
  let items: string[];
  if (typeof value === "string") items = singleLine(key, value).split(",");
  else if (Array.isArray(value) && value.every((item) => typeof item === "string")) {
    items = (value as string[]).map((item) => {
      if (item.includes(",")) throw invalid(`a ${key} entry cannot contain a comma (${JSON.stringify(item)}).`);
      return singleLine(key, item);
    });
  } else throw invalid(`${key} must be a comma-separated string or a list of strings.`);
  const cleaned = [...new Set(items.map((item) => item.trim()).filter((item) => item !== ""))];
  return cleaned.length === 0 ? null : cleaned.join(", ");
}

/** Checks a patch without touching any file; throws WriteBackError on the first problem. */
function checkAgentFilePatch(patch: AgentFilePatch): CheckedAgentPatch {
  if (patch === null || typeof patch !== "object" || Array.isArray(patch))
    throw invalid("the change must be an object of frontmatter keys.");
  if (Object.hasOwn(patch, "name")) {
    throw new WriteBackError(
      "name-read-only",
      "Not saved: the name is the agent's identity and cannot be changed here. Rename the agent by hand (its file and its name line).",
    );
  }
  for (const key of Object.keys(patch)) {
    if (!(EDITABLE_AGENT_KEYS as readonly string[]).includes(key)) {
      throw invalid(`${JSON.stringify(key)} is not an editable field (${EDITABLE_AGENT_KEYS.join(", ")}).`);
    }
  }
  const checked: CheckedAgentPatch = new Map();
  const record = patch as Record<EditableAgentKey, unknown>;
  for (const key of EDITABLE_AGENT_KEYS) {
    const value = record[key];
    if (value === undefined) continue;
    switch (key) {
      case "description":
        if (typeof value !== "string" || value.trim() === "") throw invalid("the description cannot be empty.");
        checked.set(key, singleLine(key, value.trim()));
        break;
      case "tools":
      case "skills":
        checked.set(key, checkList(key, value));
        break;
      case "model":
        if (value === null || value === "") checked.set(key, null);
        else if (typeof value === "string")
          checked.set(key, value.trim() === "" ? null : singleLine(key, value.trim()));
        else throw invalid("the model must be a string (provider/model-id).");
        break;
      case "thinking":
        if (value === null || value === "") checked.set(key, null);
        else if (isThinkingLevel(value)) checked.set(key, value);
        else
          throw invalid(
            `the thinking level must be one of ${THINKING_LEVELS.join(", ")} (got ${JSON.stringify(value)}).`,
          );
        break;
    }
  }
  return checked;
}

interface Line {
  /** The line without its line break. */
  text: string;
  /** "\n", "\r\n" or "" (last line without a break). */
  eol: string;
}

function splitLines(text: string): Line[] {
  const lines: Line[] = [];
  const pattern = /([^\n]*?)(\r?\n|$)/g;
  let match: RegExpExecArray | null;
  while ((match = pattern.exec(text)) !== null) {
    const [whole, body = "", eol = ""] = match;
    if (whole === "") break;
    lines.push({ text: body, eol });
  }
  return lines;
}

interface AgentFileLayout {
  bom: string;
  lines: Line[];
  /** Index of the closing `---` line. */
  close: number;
  /** The line break new lines get (the opening fence's). */
  eol: string;
}

function layoutOf(text: string, fileLabel: string): AgentFileLayout {
  const bom = text.startsWith("\uFEFF") ? "\uFEFF" : "";
  const lines = splitLines(text.slice(bom.length));
  const first = lines[0];
  if (!first || !FENCE.test(first.text)) {
    throw new WriteBackError(
      "no-frontmatter",
      `Not saved: ${fileLabel} does not start with a --- frontmatter block. Edit it by hand.`,
    );
  }
  const close = lines.findIndex((line, index) => index > 0 && FENCE.test(line.text));
  if (close < 0)
    throw new WriteBackError(
      "no-frontmatter",
      `Not saved: the frontmatter of ${fileLabel} is never closed (no second --- line). Edit it by hand.`,
    );
  return { bom, lines, close, eol: first.eol || "\n" };
}

function parseMapping(yaml: string): Record<string, unknown> | undefined {
  try {
    const data: unknown = parseYaml(yaml, { logLevel: "error" });
    if (data === null || data === undefined) return {};
    if (typeof data !== "object" || Array.isArray(data)) return undefined;
    return data as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

function frontmatterYaml(lines: Line[], close: number): string {
  return lines
    .slice(1, close)
    .map((line) => line.text)
    .join("\n");
}

function keyLinePattern(key: EditableAgentKey): RegExp {
  return new RegExp(`^${key}[ \\t]*:(?:[ \\t]|$)`);
}

function multiLineRefusal(key: string, fileLabel: string): WriteBackError {
  return new WriteBackError(
    "multi-line-value",
    `Not saved: the ${key} value in ${fileLabel} spans several lines (a block scalar, a list or continued lines), which cannot be edited line by line. Edit the file by hand.`,
  );
}

/** Whether the value of the key on line `index` continues beyond that line. */
function spansSeveralLines(
  lines: Line[],
  index: number,
  close: number,
  key: EditableAgentKey,
  data: Record<string, unknown>,
): boolean {
  const line = lines[index]?.text ?? "";
  const inline = line.slice(line.indexOf(":") + 1).trim();
  if (inline.startsWith("|") || inline.startsWith(">")) return true;
  for (let next = index + 1; next < close; next++) {
    const text = lines[next]?.text ?? "";
    if (text.trim() === "") continue;
    if (/^[ \t]/.test(text) || /^-(?:[ \t]|$)/.test(text)) return true;
    break;
  }
  // The line on its own must mean what the whole frontmatter means for this key (catches open quotes).
  const alone = parseMapping(line);
  return !alone || !isDeepStrictEqual(alone[key], data[key]);
}

/**
 * The pure step: applies a patch to an agent file's text. Returns the new text, or "unchanged" when every
 * patched key already has that value. Throws WriteBackError for anything it refuses.
 */
export function applyAgentFilePatch(
  text: string,
  patch: AgentFilePatch,
  fileLabel: string = "the agent file",
): AgentEditOutcome {
  return applyCheckedPatch(text, checkAgentFilePatch(patch), fileLabel);
}

function applyCheckedPatch(text: string, patch: CheckedAgentPatch, fileLabel: string): AgentEditOutcome {
  if (patch.size === 0) return { changed: false };
  const { bom, lines, close, eol } = layoutOf(text, fileLabel);
  const data = parseMapping(frontmatterYaml(lines, close));
  if (!data) {
    throw new WriteBackError(
      "invalid-frontmatter",
      `Not saved: the frontmatter of ${fileLabel} is not valid YAML. Edit the file by hand.`,
    );
  }

  // Decide every line change first; nothing is built until all keys passed their checks.
  const replaced: Map<number, string | null> = new Map();
  const appended: string[] = [];
  for (const [key, value] of patch) {
    const pattern = keyLinePattern(key);
    const index = lines.findIndex((line, at) => at > 0 && at < close && pattern.test(line.text));
    if (index < 0) {
      if (value !== null) appended.push(`${key}: ${formatYamlScalar(value)}`);
      continue;
    }
    if (spansSeveralLines(lines, index, close, key, data)) throw multiLineRefusal(key, fileLabel);
    if (value === null) replaced.set(index, null);
    // Same value already: keep the line exactly as written (its quoting, its comment).
    else if (data[key] !== value) replaced.set(index, `${key}: ${formatYamlScalar(value)}`);
  }
  if (replaced.size === 0 && appended.length === 0) return { changed: false };

  const out: Line[] = [];
  lines.forEach((line, index) => {
    if (index === close) for (const added of appended) out.push({ text: added, eol });
    if (!replaced.has(index)) out.push(line);
    else {
      const replacement = replaced.get(index);
      if (replacement !== null && replacement !== undefined) out.push({ text: replacement, eol: line.eol });
    }
  });
  const newClose = out.findIndex((line, index) => index > 0 && FENCE.test(line.text));
  const after = parseMapping(frontmatterYaml(out, newClose));
  if (!after || !readsBackAsIntended(data, after, patch))
    throw multiLineRefusal([...patch.keys()].join(", "), fileLabel);
  return { changed: true, text: bom + out.map((line) => line.text + line.eol).join("") };
}

/** The new frontmatter has the patched values and every other key exactly as before. */
function readsBackAsIntended(
  before: Record<string, unknown>,
  after: Record<string, unknown>,
  patch: CheckedAgentPatch,
): boolean {
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const change = patch.get(key as EditableAgentKey);
    if (change === undefined) {
      if (!isDeepStrictEqual(before[key], after[key])) return false;
    } else if (change === null) {
      if (Object.hasOwn(after, key)) return false;
    } else if (after[key] !== change) return false;
  }
  for (const [key, change] of patch) if (change !== null && after[key] !== change) return false;
  return true;
}

/**
 * The pure step of a body edit: keeps every byte up to and including the closing `---` line (and the blank
 * lines that separate it from the body), then writes the new body with the file's line breaks and one final
 * line break. A blank body is refused.
 */
export function replaceAgentBody(
  text: string,
  newBody: string,
  fileLabel: string = "the agent file",
): AgentEditOutcome {
  if (typeof newBody !== "string" || newBody.trim() === "")
    throw invalid("the body (the agent's system prompt) cannot be empty.");
  const { bom, lines, close, eol } = layoutOf(text, fileLabel);
  const head = lines
    .slice(0, close + 1)
    .map((line, index) => line.text + (index === close ? line.eol || eol : line.eol));
  const rest = lines.slice(close + 1);
  const firstText = rest.findIndex((line) => line.text.trim() !== "");
  const separator =
    firstText < 0
      ? eol
      : rest
          .slice(0, firstText)
          .map((line) => line.text + line.eol)
          .join("");
  const body = newBody
    .replace(/^\uFEFF/, "")
    .replace(/\r\n|\r|\n/g, "\n")
    .replace(/^(?:[ \t]*\n)+/, "")
    .replace(/\s+$/, "")
    .split("\n")
    .join(eol);
  const result = `${bom}${head.join("")}${separator}${body}${eol}`;
  return result === text ? { changed: false } : { changed: true, text: result };
}

export interface AgentFileWriteOptions {
  lock?: FileLockOptions;
  atomic?: AtomicWriteOptions;
}

async function rewriteLocked(
  filePath: string,
  change: (text: string) => AgentEditOutcome,
  options: AgentFileWriteOptions,
): Promise<{ changed: boolean }> {
  return withFileLock(
    filePath,
    async () => {
      const outcome = change(await readFile(filePath, "utf8"));
      if (!outcome.changed) return { changed: false };
      await writeFileAtomic(filePath, outcome.text, options.atomic);
      return { changed: true };
    },
    options.lock,
  );
}

/**
 * Applies a frontmatter patch to the agent file (see the file comment for what is refused). Resolves
 * `{ changed }`; a refusal throws WriteBackError and leaves the file byte-identical.
 */
export async function updateAgentFile(
  filePath: string,
  patch: AgentFilePatch,
  options: AgentFileWriteOptions = {},
): Promise<{ changed: boolean }> {
  const checked = checkAgentFilePatch(patch);
  if (checked.size === 0) return { changed: false };
  return rewriteLocked(filePath, (text) => applyCheckedPatch(text, checked, filePath), options);
}

/** Replaces the agent file's body (its system prompt), keeping the frontmatter bytes. */
export async function setAgentBody(
  filePath: string,
  newBody: string,
  options: AgentFileWriteOptions = {},
): Promise<{ changed: boolean }> {
  if (typeof newBody !== "string" || newBody.trim() === "")
    throw invalid("the body (the agent's system prompt) cannot be empty.");
  return rewriteLocked(filePath, (text) => replaceAgentBody(text, newBody, filePath), options);
}
