/**
 * Turns the text of one agent file into an agent definition, or into the reason it cannot be one. Pure: no
 * file system, no pi. Required fields that are wrong skip the file; optional fields that are wrong are
 * dropped with a note, and the agent still loads.
 */
import { createHash } from "node:crypto";
import { isThinkingLevel, THINKING_LEVELS } from "../shared/thinking.ts";
import type { ThinkingLevel } from "../shared/thinking.ts";
import { splitFrontmatter } from "./frontmatter.ts";
import { yamlLibrary } from "./yaml-library.ts";
import { agentNameProblem } from "./names.ts";
import { BUDGET_KEYS, budgetValue, budgetValueProblem } from "../budget/limits.ts";
import type { AgentDefinition, AgentSource } from "./types.ts";
import { isIsolation, ISOLATIONS } from "../worktree/types.ts";
import { isSandboxLevel } from "../sandbox/levels.ts";
import { sandboxValueProblem } from "../sandbox/texts.ts";

/** On success, `ignored` lists the optional fields that were present but invalid, and were therefore ignored. */
export type ParsedAgentFile = {
  ok: true;
  agent: AgentDefinition;
  ignored: string[];
  /** A `sandbox` value that is no level: the agent runs read-only (the warning says why). */
  sandboxProblem?: string;
} | { ok: false; reason: string };

/** Quotes a value for a message, escaping anything that could upset a terminal. */
export function quoteForMessage(value: unknown): string {
  const text = typeof value === "string" ? value : String(value);
  const clipped = text.length > 80 ? `${text.slice(0, 79)}…` : text;
  return JSON.stringify(clipped);
}

function firstLine(message: string): string {
  return message.split("\n", 1)[0]?.trim() ?? "";
}

function parseFrontmatterYaml(yaml: string): { ok: true; data: Record<string, unknown> } | { ok: false; reason: string } {
  let data: unknown;
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
  return { ok: true, data: (data as Record<string, unknown>) };
}

function requiredString(data: Record<string, unknown>, key: string): { value: string } | { reason: string } {
  if (!Object.hasOwn(data, key) || data[key] === null) return { reason: `missing required field "${key}"` };
  const value = data[key];
  if (typeof value !== "string" || value.trim() === "") return { reason: `"${key}" must be a non-empty string` };
  return { value };
}

export type ListField = { present: false } | { present: true; list: string[] } | { present: true; problem: string };

/** A YAML list of strings or one comma-separated string; blanks dropped, duplicates removed (first wins). */
function readList(data: Record<string, unknown>, key: string): ListField {
  if (!Object.hasOwn(data, key)) return { present: false };
  const raw = data[key];
  let items: string[];
  if (raw === null) items = [];
  else if (typeof raw === "string") items = raw.split(",");
  else if (Array.isArray(raw) && raw.every((item) => typeof item === "string")) items = (raw as string[]);
  else return { present: true, problem: `"${key}" must be a list of names or a comma-separated string` };
  const cleaned = items.map((item) => item.trim()).filter((item) => item !== "");
  return { present: true, list: [...new Set(cleaned)] };
}

/**
 * Largest frontmatter parsed. YAML parsing cost grows faster than the text (a mapping with tens of thousands
 * of keys takes many seconds), and a real agent's frontmatter is a few short fields.
 */
export const FRONTMATTER_MAX_CHARS = 16 * 1024;

/** The digest a first-use approval is remembered for: the file's whole text, so any edit asks again. */
export function contentDigest(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

export function parseAgentFile(text: string, filePath: string, source: AgentSource): ParsedAgentFile {
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

  const agent: AgentDefinition = { name: name.value, description: description.value, body: split.body, source, filePath, contentSha256: contentDigest(text) };
  const ignored: string[] = [];

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
  if (isThinkingLevel(thinking)) agent.thinking = (thinking satisfies ThinkingLevel);
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

  const sandbox = data["sandbox"];
  let sandboxProblem: string | undefined;
  if (isSandboxLevel(sandbox)) agent.sandbox = sandbox;
  else if (sandbox !== undefined && sandbox !== null) {
    // A mistyped level (`readonly`, `strict`) asked for a sandbox: the strictest one, never none.
    agent.sandbox = "read-only";
    sandboxProblem = sandboxValueProblem(sandbox);
  }

  return { ok: true, agent, ignored, ...(sandboxProblem ? { sandboxProblem } : {}) };
}
