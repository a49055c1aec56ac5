// @ts-check
/**
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
 */
import { readFile } from "node:fs/promises";
import { isDeepStrictEqual } from "node:util";
import { parse as parseYaml } from "yaml";
import { writeFileAtomic } from "../shared/atomic-file.js";
/** @import { AtomicWriteOptions } from "../shared/atomic-file.js" */
import { withFileLock } from "../shared/file-lock.js";
/** @import { FileLockOptions } from "../shared/file-lock.js" */
import { isThinkingLevel, THINKING_LEVELS } from "../shared/thinking.js";
/** @import { ThinkingLevel } from "../shared/thinking.js" */
import { WriteBackError } from "../shared/write-back-error.js";
import { formatYamlScalar } from "./yaml-scalar.js";

/**
 * @typedef {object} AgentFilePatch
 * @property {string} [name] Only for type compatibility with older callers: any patch that contains `name` is refused.
 * @property {string} [description] Required in every agent file, so it can be replaced but never emptied.
 * @property {string | readonly string[] | null} [tools] A comma-separated string or a list; null, empty or a list of
 *   blanks deletes the key line.
 * @property {string | readonly string[] | null} [skills]
 * @property {string | null} [model] null or empty deletes the key line.
 * @property {ThinkingLevel | "" | null} [thinking]
 */

export const EDITABLE_AGENT_KEYS = /** @type {const} */ (["description", "tools", "skills", "model", "thinking"]);
/** @typedef {(typeof EDITABLE_AGENT_KEYS)[number]} EditableAgentKey */

/**
 * What the checked patch does to each key: write this value, or delete the key (null).
 * @typedef {Map<EditableAgentKey, string | null>} CheckedAgentPatch
 */

/** @typedef {{ changed: false } | { changed: true, text: string }} AgentEditOutcome */

const FENCE = /^---[ \t]*$/;
const LINE_BREAK = /[\r\n\u2028\u2029\u0085]/;

/**
 * @param {string} message
 * @returns {WriteBackError}
 */
function invalid(message) {
  return new WriteBackError("invalid-value", `Not saved: ${message}`);
}

/**
 * @param {string} key
 * @param {string} value
 * @returns {string}
 */
function singleLine(key, value) {
  if (LINE_BREAK.test(value)) throw invalid(`the ${key} must be a single line.`);
  return value;
}

/**
 * @param {"tools" | "skills"} key
 * @param {unknown} value
 * @returns {string | null}
 */
function checkList(key, value) {
  if (value === null) return null;
  /** @type {string[]} */
  let items;
  if (typeof value === "string") items = singleLine(key, value).split(",");
  else if (Array.isArray(value) && value.every((item) => typeof item === "string")) {
    items = /** @type {string[]} */ (value).map((item) => {
      if (item.includes(",")) throw invalid(`a ${key} entry cannot contain a comma (${JSON.stringify(item)}).`);
      return singleLine(key, item);
    });
  } else throw invalid(`${key} must be a comma-separated string or a list of strings.`);
  const cleaned = [...new Set(items.map((item) => item.trim()).filter((item) => item !== ""))];
  return cleaned.length === 0 ? null : cleaned.join(", ");
}

/**
 * Checks a patch without touching any file; throws WriteBackError on the first problem.
 * @param {AgentFilePatch} patch
 * @returns {CheckedAgentPatch}
 */
export function checkAgentFilePatch(patch) {
  if (patch === null || typeof patch !== "object" || Array.isArray(patch)) throw invalid("the change must be an object of frontmatter keys.");
  if (Object.hasOwn(patch, "name")) {
    throw new WriteBackError("name-read-only", "Not saved: the name is the agent's identity and cannot be changed here. Rename the agent by hand (its file and its name line).");
  }
  for (const key of Object.keys(patch)) {
    if (!/** @type {readonly string[]} */ (EDITABLE_AGENT_KEYS).includes(key)) {
      throw invalid(`${JSON.stringify(key)} is not an editable field (${EDITABLE_AGENT_KEYS.join(", ")}).`);
    }
  }
  /** @type {CheckedAgentPatch} */
  const checked = new Map();
  const record = /** @type {Record<EditableAgentKey, unknown>} */ (patch);
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
        else if (typeof value === "string") checked.set(key, value.trim() === "" ? null : singleLine(key, value.trim()));
        else throw invalid("the model must be a string (provider/model-id).");
        break;
      case "thinking":
        if (value === null || value === "") checked.set(key, null);
        else if (isThinkingLevel(value)) checked.set(key, value);
        else throw invalid(`the thinking level must be one of ${THINKING_LEVELS.join(", ")} (got ${JSON.stringify(value)}).`);
        break;
    }
  }
  return checked;
}

/**
 * @typedef {object} Line
 * @property {string} text The line without its line break.
 * @property {string} eol "\n", "\r\n" or "" (last line without a break).
 */

/**
 * @param {string} text
 * @returns {Line[]}
 */
function splitLines(text) {
  /** @type {Line[]} */
  const lines = [];
  const pattern = /([^\n]*?)(\r?\n|$)/g;
  /** @type {RegExpExecArray | null} */
  let match;
  while ((match = pattern.exec(text)) !== null) {
    const [whole, body = "", eol = ""] = match;
    if (whole === "") break;
    lines.push({ text: body, eol });
  }
  return lines;
}

/**
 * @typedef {object} AgentFileLayout
 * @property {string} bom
 * @property {Line[]} lines
 * @property {number} close Index of the closing `---` line.
 * @property {string} eol The line break new lines get (the opening fence's).
 */

/**
 * @param {string} text
 * @param {string} fileLabel
 * @returns {AgentFileLayout}
 */
function layoutOf(text, fileLabel) {
  const bom = text.startsWith("\uFEFF") ? "\uFEFF" : "";
  const lines = splitLines(text.slice(bom.length));
  const first = lines[0];
  if (!first || !FENCE.test(first.text)) {
    throw new WriteBackError("no-frontmatter", `Not saved: ${fileLabel} does not start with a --- frontmatter block. Edit it by hand.`);
  }
  const close = lines.findIndex((line, index) => index > 0 && FENCE.test(line.text));
  if (close < 0) throw new WriteBackError("no-frontmatter", `Not saved: the frontmatter of ${fileLabel} is never closed (no second --- line). Edit it by hand.`);
  return { bom, lines, close, eol: first.eol || "\n" };
}

/**
 * @param {string} yaml
 * @returns {Record<string, unknown> | undefined}
 */
function parseMapping(yaml) {
  try {
    /** @type {unknown} */
    const data = parseYaml(yaml, { logLevel: "error" });
    if (data === null || data === undefined) return {};
    if (typeof data !== "object" || Array.isArray(data)) return undefined;
    return /** @type {Record<string, unknown>} */ (data);
  } catch {
    return undefined;
  }
}

/**
 * @param {Line[]} lines
 * @param {number} close
 * @returns {string}
 */
function frontmatterYaml(lines, close) {
  return lines.slice(1, close).map((line) => line.text).join("\n");
}

/**
 * @param {EditableAgentKey} key
 * @returns {RegExp}
 */
function keyLinePattern(key) {
  return new RegExp(`^${key}[ \\t]*:(?:[ \\t]|$)`);
}

/**
 * @param {string} key
 * @param {string} fileLabel
 * @returns {WriteBackError}
 */
function multiLineRefusal(key, fileLabel) {
  return new WriteBackError(
    "multi-line-value",
    `Not saved: the ${key} value in ${fileLabel} spans several lines (a block scalar, a list or continued lines), which cannot be edited line by line. Edit the file by hand.`,
  );
}

/**
 * Whether the value of the key on line `index` continues beyond that line.
 * @param {Line[]} lines
 * @param {number} index
 * @param {number} close
 * @param {EditableAgentKey} key
 * @param {Record<string, unknown>} data
 * @returns {boolean}
 */
function spansSeveralLines(lines, index, close, key, data) {
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
 * @param {string} text
 * @param {AgentFilePatch} patch
 * @param {string} [fileLabel]
 * @returns {AgentEditOutcome}
 */
export function applyAgentFilePatch(text, patch, fileLabel = "the agent file") {
  return applyCheckedPatch(text, checkAgentFilePatch(patch), fileLabel);
}

/**
 * @param {string} text
 * @param {CheckedAgentPatch} patch
 * @param {string} fileLabel
 * @returns {AgentEditOutcome}
 */
function applyCheckedPatch(text, patch, fileLabel) {
  if (patch.size === 0) return { changed: false };
  const { bom, lines, close, eol } = layoutOf(text, fileLabel);
  const data = parseMapping(frontmatterYaml(lines, close));
  if (!data) {
    throw new WriteBackError("invalid-frontmatter", `Not saved: the frontmatter of ${fileLabel} is not valid YAML. Edit the file by hand.`);
  }

  // Decide every line change first; nothing is built until all keys passed their checks.
  /** @type {Map<number, string | null>} */
  const replaced = new Map();
  /** @type {string[]} */
  const appended = [];
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

  /** @type {Line[]} */
  const out = [];
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
  if (!after || !readsBackAsIntended(data, after, patch)) throw multiLineRefusal([...patch.keys()].join(", "), fileLabel);
  return { changed: true, text: bom + out.map((line) => line.text + line.eol).join("") };
}

/**
 * The new frontmatter has the patched values and every other key exactly as before.
 * @param {Record<string, unknown>} before
 * @param {Record<string, unknown>} after
 * @param {CheckedAgentPatch} patch
 * @returns {boolean}
 */
function readsBackAsIntended(before, after, patch) {
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const change = patch.get(/** @type {EditableAgentKey} */ (key));
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
 * @param {string} text
 * @param {string} newBody
 * @param {string} [fileLabel]
 * @returns {AgentEditOutcome}
 */
export function replaceAgentBody(text, newBody, fileLabel = "the agent file") {
  if (typeof newBody !== "string" || newBody.trim() === "") throw invalid("the body (the agent's system prompt) cannot be empty.");
  const { bom, lines, close, eol } = layoutOf(text, fileLabel);
  const head = lines.slice(0, close + 1).map((line, index) => line.text + (index === close ? line.eol || eol : line.eol));
  const rest = lines.slice(close + 1);
  const firstText = rest.findIndex((line) => line.text.trim() !== "");
  const separator = firstText < 0 ? eol : rest.slice(0, firstText).map((line) => line.text + line.eol).join("");
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

/**
 * @typedef {object} AgentFileWriteOptions
 * @property {FileLockOptions} [lock]
 * @property {AtomicWriteOptions} [atomic]
 */

/**
 * @param {string} filePath
 * @param {(text: string) => AgentEditOutcome} change
 * @param {AgentFileWriteOptions} options
 * @returns {Promise<{ changed: boolean }>}
 */
async function rewriteLocked(filePath, change, options) {
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
 * @param {string} filePath
 * @param {AgentFilePatch} patch
 * @param {AgentFileWriteOptions} [options]
 * @returns {Promise<{ changed: boolean }>}
 */
export async function updateAgentFile(filePath, patch, options = {}) {
  const checked = checkAgentFilePatch(patch);
  if (checked.size === 0) return { changed: false };
  return rewriteLocked(filePath, (text) => applyCheckedPatch(text, checked, filePath), options);
}

/**
 * Replaces the agent file's body (its system prompt), keeping the frontmatter bytes.
 * @param {string} filePath
 * @param {string} newBody
 * @param {AgentFileWriteOptions} [options]
 * @returns {Promise<{ changed: boolean }>}
 */
export async function setAgentBody(filePath, newBody, options = {}) {
  if (typeof newBody !== "string" || newBody.trim() === "") throw invalid("the body (the agent's system prompt) cannot be empty.");
  return rewriteLocked(filePath, (text) => replaceAgentBody(text, newBody, filePath), options);
}
