// @ts-check
/**
 * The result notices of /subagent-config, pure. Each says what was (or was not) written, where, and when it
 * takes effect: description edits need /reload (the roster in the system prompt is cached); every other edit
 * counts from the next dispatch, which re-reads the agent files and the config.
 */
/** @import { AgentDefinition } from "../../agents/types.ts" */
/** @import { ResolvedModelConfig, ResolvedValue } from "../../config/types.ts" */
import { formatModelThinking, NOT_SET } from "./labels.js";
/** @import { BodyEditOutcome, FileTarget, WriteTarget } from "./types.ts" */

export const PROCESS_WRITE_NOTE = "written to this process (memory only — no file written; disappears when the process exits)";
export const NEXT_DISPATCH = "Takes effect on the next dispatch.";
export const RELOAD_HINT = "Run /reload to refresh the subagent roster in the main agent's system prompt.";
export const USAGE = "Usage: /subagent-config [agent-name]";
export const NON_TUI_WARNING = `/subagent-config is interactive and needs pi's TUI; nothing was shown or changed. Run it in an interactive pi session (not with -p or --mode json). ${USAGE}`;

/**
 * @param {WriteTarget | FileTarget} target
 * @param {string | undefined} filePath
 * @returns {string}
 */
function targetPlace(target, filePath) {
  if (target === "process") return "this process";
  return filePath === undefined ? target : `${target} (${filePath})`;
}

/**
 * @param {string} name
 * @param {readonly string[]} known
 * @returns {string}
 */
export function unknownAgentNotice(name, known) {
  const list = known.length === 0 ? "No agents are defined." : `Known agents: ${known.join(", ")}.`;
  return `Unknown agent "${name}". ${list} ${USAGE}`;
}

/**
 * @param {string} name
 * @returns {string}
 */
export function agentGoneNotice(name) {
  return `The agent "${name}" is no longer defined (its file was removed or renamed).`;
}

/**
 * @param {string} model
 * @param {string | null} thinking
 * @returns {string}
 */
function describeValues(model, thinking) {
  return `model ${model}, thinking ${thinking ?? NOT_SET}`;
}

/**
 * @typedef {object} ModelWriteNoticeInput
 * @property {string} agentName
 * @property {string} model
 * @property {string | null} thinking
 * @property {WriteTarget} target
 * @property {string} [filePath]
 * @property {boolean} changed
 * @property {ResolvedModelConfig} after The agent's effective values after the write, and the layer that governs it now.
 * @property {WriteTarget} [governingAfter]
 */

/**
 * A higher layer keeps governing the agent: say so, or the person would expect the new values in effect.
 * @param {WriteTarget} target
 * @param {WriteTarget | undefined} governingAfter
 * @param {ResolvedModelConfig} after
 * @returns {string}
 */
function shadowNote(target, governingAfter, after) {
  if (governingAfter === undefined || governingAfter === target) return "";
  return ` Note: the ${governingAfter} entry takes precedence over ${target}, so dispatch still uses ${formatModelThinking(after)}.`;
}

/**
 * @param {ModelWriteNoticeInput} input
 * @returns {string}
 */
export function modelWrittenNotice(input) {
  const values = describeValues(input.model, input.thinking);
  const shadow = shadowNote(input.target, input.governingAfter, input.after);
  if (!input.changed) return `${input.agentName}: ${values} already in ${targetPlace(input.target, input.filePath)}; nothing written.${shadow}`;
  const where = input.target === "process" ? PROCESS_WRITE_NOTE : `written to ${targetPlace(input.target, input.filePath)}`;
  return `${input.agentName}: ${values}; ${where}. ${NEXT_DISPATCH}${shadow}`;
}

/**
 * A field's value after a clear. Unset means the chain reached the frontmatter and found nothing there, so
 * "frontmatter" is named then too; a model left unset is inherited from the main agent at dispatch.
 * @param {"model" | "thinking"} field
 * @param {ResolvedValue<string>} resolved
 * @returns {string}
 */
export function fallbackText(field, resolved) {
  if (resolved.value !== undefined) return `${resolved.value} (${resolved.source ?? NOT_SET})`;
  return field === "model" ? `${NOT_SET} (frontmatter has none; the main agent's model is inherited)` : `${NOT_SET} (frontmatter has none)`;
}

/**
 * @typedef {object} ClearNoticeInput
 * @property {string} agentName
 * @property {WriteTarget} target
 * @property {string} [filePath]
 * @property {boolean} changed
 * @property {ResolvedModelConfig} after
 */

/**
 * @param {ClearNoticeInput} input
 * @returns {string}
 */
export function modelClearedNotice(input) {
  const now = `model ${fallbackText("model", input.after.model)}, thinking ${fallbackText("thinking", input.after.thinking)}`;
  if (!input.changed) {
    return `${input.agentName}: no model & thinking entry in ${targetPlace(input.target, input.filePath)}; nothing changed. In effect: ${now}.`;
  }
  const where = input.target === "process" ? "this process (memory only; no file written)" : targetPlace(input.target, input.filePath);
  return `${input.agentName}: model & thinking cleared in ${where}. Now: ${now}. ${NEXT_DISPATCH}`;
}

/**
 * @param {string} agentName
 * @returns {string}
 */
export function emptyModelNotice(agentName) {
  return `${agentName}: the model cannot be empty (provider/model-id); nothing written.`;
}

/**
 * @param {AgentDefinition} agent
 * @param {string} filePath
 * @returns {string}
 */
export function copiedPrefix(agent, filePath) {
  return `Copied the built-in agent ${agent.name} to ${filePath}; the copy now shadows the built-in. `;
}

/**
 * @param {string} agentName
 * @returns {string}
 */
export function emptyDescriptionNotice(agentName) {
  return `${agentName}: the description cannot be empty; nothing written.`;
}

/**
 * @param {string} agentName
 * @param {string} field
 * @returns {string}
 */
export function unchangedNotice(agentName, field) {
  return `${agentName}: ${field} unchanged; nothing written.`;
}

/**
 * @param {string} agentName
 * @param {string} filePath
 * @returns {string}
 */
export function descriptionSavedNotice(agentName, filePath) {
  return `${agentName}: description saved to ${filePath}. ${RELOAD_HINT}`;
}

/**
 * @param {string} agentName
 * @param {"tools" | "skills"} field
 * @param {readonly string[]} list
 * @param {string} filePath
 * @returns {string}
 */
export function listFieldSavedNotice(agentName, field, list, filePath) {
  if (list.length > 0) return `${agentName}: ${field} set to ${list.join(", ")} in ${filePath}. ${NEXT_DISPATCH}`;
  const meaning = field === "tools" ? "pi's default tools apply" : "the global skills apply";
  return `${agentName}: ${field} key removed from ${filePath} (${meaning}). ${NEXT_DISPATCH}`;
}

/**
 * @param {string} agentName
 * @param {string} filePath
 * @returns {string}
 */
export function bodySavedNotice(agentName, filePath) {
  return `${agentName}: body saved to ${filePath}. ${NEXT_DISPATCH}`;
}

/**
 * @param {string} agentName
 * @returns {string}
 */
export function emptyBodyNotice(agentName) {
  return `${agentName}: the edited body is empty (whitespace only); nothing written. An agent needs a system prompt.`;
}

/**
 * The notice for an editor that did not deliver a body (unchanged bodies are reported by unchangedNotice).
 * @param {string} agentName
 * @param {Extract<BodyEditOutcome, { kind: "launch-failed" | "exit-code" }>} outcome
 * @returns {string}
 */
export function editorProblemNotice(agentName, outcome) {
  if (outcome.kind === "launch-failed") {
    return `${agentName}: could not start the editor "${outcome.command}" (${outcome.reason}); nothing written. Set $EDITOR (or $VISUAL) to an editor that runs here.`;
  }
  const how = outcome.signal ? `was ended by signal ${outcome.signal}` : `exited with code ${outcome.code ?? "unknown"}`;
  return `${agentName}: the editor "${outcome.command}" ${how}; nothing written.`;
}

/**
 * @param {string} model
 * @param {FileTarget} target
 * @param {string | undefined} filePath
 * @param {boolean} changed
 * @param {FileTarget} [shadowedBy]
 * @returns {string}
 */
export function modelAddedNotice(model, target, filePath, changed, shadowedBy) {
  const place = targetPlace(target, filePath);
  const shadow = shadowedBy ? ` Note: the ${shadowedBy} $models list shadows the ${target} list, so the list in force is unchanged.` : "";
  return changed ? `Added ${model} to $models in ${place}.${shadow}` : `${model} is already in $models in ${place}; nothing written.${shadow}`;
}

/**
 * @param {string} model
 * @param {FileTarget} target
 * @param {string | undefined} filePath
 * @param {boolean} changed
 * @param {FileTarget} [shadowedBy]
 * @returns {string}
 */
export function modelRemovedNotice(model, target, filePath, changed, shadowedBy) {
  const place = targetPlace(target, filePath);
  const shadow = shadowedBy ? ` Note: the ${shadowedBy} $models list shadows the ${target} list, so the list in force is unchanged.` : "";
  return changed ? `Removed ${model} from $models in ${place}.${shadow}` : `${model} is not in $models in ${place}; nothing written.${shadow}`;
}

/** @returns {string} */
export function emptyModelsListNotice() {
  return "The $models list is empty; there is nothing to remove.";
}

/**
 * @param {string} model
 * @param {FileTarget} target
 * @param {string | undefined} filePath
 * @returns {string}
 */
export function removeConfirmMessage(model, target, filePath) {
  return `Remove ${model} from $models in ${targetPlace(target, filePath)}?`;
}
