// @ts-check
/**
 * Turns the text of one agent file into an agent definition, or into the reason it cannot be one. Pure: no
 * file system, no pi. Required fields that are wrong skip the file; optional fields that are wrong are
 * dropped with a note, and the agent still loads.
 */
import { isThinkingLevel, THINKING_LEVELS } from "../shared/thinking.js";
/** @import { ThinkingLevel } from "../shared/thinking.js" */
import { splitFrontmatter } from "./frontmatter.js";
import { parseSimpleFrontmatter } from "./simple-frontmatter.js";
import { yamlLibrary } from "./yaml-library.js";
import { agentNameProblem } from "./names.js";
import { BUDGET_KEYS, budgetValue, budgetValueProblem } from "../budget/limits.js";
/** @import { AgentDefinition, AgentSource } from "./types.ts" */
import { isIsolation, ISOLATIONS } from "../worktree/types.js";

/**
 * On success, `ignored` lists the optional fields that were present but invalid, and were therefore ignored.
 * @typedef {{
 *   ok: true;
 *   agent: AgentDefinition;
 *   ignored: string[];
 * } | { ok: false; reason: string }} ParsedAgentFile
 */

/**
 * Quotes a value for a message, escaping anything that could upset a terminal.
 * @param {unknown} value
 * @returns {string}
 */
export function quoteForMessage(value) {
  const text = typeof value === "string" ? value : String(value);
  const clipped = text.length > 80 ? `${text.slice(0, 79)}…` : text;
  return JSON.stringify(clipped);
}

/**
 * @param {string} message
 * @returns {string}
 */
function firstLine(message) {
  return message.split("\n", 1)[0]?.trim() ?? "";
}

/**
 * @param {string} yaml
 * @returns {{ ok: true; data: Record<string, unknown> } | { ok: false; reason: string }}
 */
function parseFrontmatterYaml(yaml) {
  const simple = parseSimpleFrontmatter(yaml);
  if (simple) return { ok: true, data: simple };
  /** @type {unknown} */
  let data;
  try {
    // logLevel "error": real errors still throw, but YAML warnings (unknown tags) are not printed by the library.
    data = yamlLibrary().parse(yaml, { logLevel: "error" });
  } catch (error) {
    const message = error instanceof Error ? firstLine(error.message) : String(error);
    return { ok: false, reason: `invalid YAML in the frontmatter: ${message}` };
  }
  if (data === null || data === undefined) return { ok: true, data: {} };
  if (typeof data !== "object" || Array.isArray(data)) {
    return { ok: false, reason: "the frontmatter is not a YAML mapping of keys to values" };
  }
  return { ok: true, data: /** @type {Record<string, unknown>} */ (data) };
}

/**
 * @param {Record<string, unknown>} data
 * @param {string} key
 * @returns {{ value: string } | { reason: string }}
 */
function requiredString(data, key) {
  if (!Object.hasOwn(data, key) || data[key] === null) return { reason: `missing required field "${key}"` };
  const value = data[key];
  if (typeof value !== "string" || value.trim() === "") return { reason: `"${key}" must be a non-empty string` };
  return { value };
}

/** @typedef {{ present: false } | { present: true; list: string[] } | { present: true; problem: string }} ListField */

/**
 * A YAML list of strings or one comma-separated string; blanks dropped, duplicates removed (first wins).
 * @param {Record<string, unknown>} data
 * @param {string} key
 * @returns {ListField}
 */
function readList(data, key) {
  if (!Object.hasOwn(data, key)) return { present: false };
  const raw = data[key];
  /** @type {string[]} */
  let items;
  if (raw === null) items = [];
  else if (typeof raw === "string") items = raw.split(",");
  else if (Array.isArray(raw) && raw.every((item) => typeof item === "string")) items = /** @type {string[]} */ (raw);
  else return { present: true, problem: `"${key}" must be a list of names or a comma-separated string` };
  const cleaned = items.map((item) => item.trim()).filter((item) => item !== "");
  return { present: true, list: [...new Set(cleaned)] };
}

/**
 * Largest frontmatter parsed. YAML parsing cost grows faster than the text (a mapping with tens of thousands
 * of keys takes many seconds), and a real agent's frontmatter is a few short fields.
 */
export const FRONTMATTER_MAX_CHARS = 16 * 1024;

/**
 * @param {string} text
 * @param {string} filePath
 * @param {AgentSource} source
 * @returns {ParsedAgentFile}
 */
export function parseAgentFile(text, filePath, source) {
  const split = splitFrontmatter(text);
  if (!split.ok) return split;
  if (split.yaml.length > FRONTMATTER_MAX_CHARS) {
    return { ok: false, reason: `the frontmatter is too large (${split.yaml.length} characters; the limit is ${FRONTMATTER_MAX_CHARS})` };
  }
  const yaml = parseFrontmatterYaml(split.yaml);
  if (!yaml.ok) return yaml;
  const data = yaml.data;

  const name = requiredString(data, "name");
  if ("reason" in name) return { ok: false, reason: name.reason };
  const nameProblem = agentNameProblem(name.value);
  if (nameProblem) return { ok: false, reason: `invalid name ${quoteForMessage(name.value)}: ${nameProblem}` };
  const description = requiredString(data, "description");
  if ("reason" in description) return { ok: false, reason: description.reason };

  /** @type {AgentDefinition} */
  const agent = { name: name.value, description: description.value, body: split.body, source, filePath };
  /** @type {string[]} */
  const ignored = [];

  const tools = readList(data, "tools");
  if (tools.present && "problem" in tools) ignored.push(tools.problem);
  // An empty tools value means "not set": an agent with no tools at all is never what a blank line meant.
  else if (tools.present && tools.list.length > 0) agent.tools = tools.list;

  const skills = readList(data, "skills");
  if (skills.present && "problem" in skills) ignored.push(skills.problem);
  // A skills key, even an empty one, turns the global skills off for this agent.
  else if (skills.present) agent.skills = skills.list;

  const model = data["model"];
  if (typeof model === "string" && model.trim() !== "") agent.model = model.trim();
  else if (model !== undefined && model !== null) ignored.push(`"model" must be a non-empty string`);

  const thinking = data["thinking"];
  if (isThinkingLevel(thinking)) agent.thinking = /** @satisfies {ThinkingLevel} */ (thinking);
  else if (thinking !== undefined && thinking !== null) {
    ignored.push(`"thinking" must be one of ${THINKING_LEVELS.join(", ")} (got ${quoteForMessage(thinking)})`);
  }

  for (const key of BUDGET_KEYS) {
    const raw = data[key];
    if (raw === undefined || raw === null) continue;
    const value = budgetValue(key, raw);
    if (value === undefined) ignored.push(`${budgetValueProblem(key, raw)} (got ${quoteForMessage(raw)})`);
    else agent[key] = value;
  }
  const context = data["context"];
  if (context === "fresh" || context === "fork") agent.context = context;
  else if (context !== undefined && context !== null) ignored.push(`"context" must be fresh or fork (got ${quoteForMessage(context)})`);
  const isolation = data["isolation"];
  if (isIsolation(isolation)) agent.isolation = isolation;
  else if (isolation !== undefined && isolation !== null) {
    ignored.push(`"isolation" must be one of ${ISOLATIONS.join(", ")} (got ${quoteForMessage(isolation)})`);
  }

  return { ok: true, agent, ignored };
}
