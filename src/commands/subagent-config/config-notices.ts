/**
 * The result notices of /subagent-config, pure. Each says what was (or was not) written, where, and when it
 * takes effect: a description edit is in the roster of the main agent's next turn (the roster follows the agent
 * files); every other edit counts from the next dispatch, which re-reads the agent files and the config.
 */
import type { AgentDefinition } from "../../agents/types.ts";
import type { ResolvedModelConfig, ResolvedValue } from "../../config/types.ts";
import { formatModelThinking, NOT_SET } from "./labels.ts";
import type { BodyEditOutcome, FileTarget, WriteTarget } from "./config-types.ts";

export const PROCESS_WRITE_NOTE = "written to this process (memory only — no file written; disappears when the process exits)";
export const NEXT_DISPATCH = "Takes effect on the next dispatch.";
export const ROSTER_NEXT_TURN = "The main agent's subagent roster shows it from its next turn.";
export const USAGE = "Usage: /subagent-config [agent-name]";
export const NON_TUI_WARNING = `/subagent-config is interactive and needs pi's TUI; nothing was shown or changed. Run it in an interactive pi session (not with -p or --mode json). ${USAGE}`;

function targetPlace(target: WriteTarget | FileTarget, filePath: string | undefined): string {
  if (target === "process") return "this process";
  return filePath === undefined ? target : `${target} (${filePath})`;
}

export function unknownAgentNotice(name: string, known: readonly string[]): string {
  const list = known.length === 0 ? "No agents are defined." : `Known agents: ${known.join(", ")}.`;
  return `Unknown agent "${name}". ${list} ${USAGE}`;
}

export function agentGoneNotice(name: string): string {
  return `The agent "${name}" is no longer defined (its file was removed or renamed).`;
}

function describeValues(model: string, thinking: string | null): string {
  return `model ${model}, thinking ${thinking ?? NOT_SET}`;
}

export interface ModelWriteNoticeInput {
  agentName: string;
  model: string;
  thinking: string | null;
  target: WriteTarget;
  filePath?: string;
  changed: boolean;
  /** The agent's effective values after the write, and the layer that governs it now. */
  after: ResolvedModelConfig;
  governingAfter?: WriteTarget;
}

/** A higher layer keeps governing the agent: say so, or the person would expect the new values in effect. */
function shadowNote(target: WriteTarget, governingAfter: WriteTarget | undefined, after: ResolvedModelConfig): string {
  if (governingAfter === undefined || governingAfter === target) return "";
  return ` Note: the ${governingAfter} entry takes precedence over ${target}, so dispatch still uses ${formatModelThinking(after)}.`;
}

export function modelWrittenNotice(input: ModelWriteNoticeInput): string {
  const values = describeValues(input.model, input.thinking);
  const shadow = shadowNote(input.target, input.governingAfter, input.after);
  if (!input.changed) return `${input.agentName}: ${values} already in ${targetPlace(input.target, input.filePath)}; nothing written.${shadow}`;
  const where = input.target === "process" ? PROCESS_WRITE_NOTE : `written to ${targetPlace(input.target, input.filePath)}`;
  return `${input.agentName}: ${values}; ${where}. ${NEXT_DISPATCH}${shadow}`;
}

/**
 * A field's value after a clear. Unset means the chain reached the frontmatter and found nothing there, so
 * "frontmatter" is named then too; a model left unset is inherited from the main agent at dispatch.
 */
export function fallbackText(field: "model" | "thinking", resolved: ResolvedValue<string>): string {
  if (resolved.value !== undefined) return `${resolved.value} (${resolved.source ?? NOT_SET})`;
  return field === "model" ? `${NOT_SET} (frontmatter has none; the main agent's model is inherited)` : `${NOT_SET} (frontmatter has none)`;
}

export interface ClearNoticeInput {
  agentName: string;
  target: WriteTarget;
  filePath?: string;
  changed: boolean;
  after: ResolvedModelConfig;
}

export function modelClearedNotice(input: ClearNoticeInput): string {
  const now = `model ${fallbackText("model", input.after.model)}, thinking ${fallbackText("thinking", input.after.thinking)}`;
  if (!input.changed) {
    return `${input.agentName}: no model & thinking entry in ${targetPlace(input.target, input.filePath)}; nothing changed. In effect: ${now}.`;
  }
  const where = input.target === "process" ? "this process (memory only; no file written)" : targetPlace(input.target, input.filePath);
  return `${input.agentName}: model & thinking cleared in ${where}. Now: ${now}. ${NEXT_DISPATCH}`;
}

export function emptyModelNotice(agentName: string): string {
  return `${agentName}: the model cannot be empty (provider/model-id); nothing written.`;
}

export function copiedPrefix(agent: AgentDefinition, filePath: string): string {
  return `Copied the built-in agent ${agent.name} to ${filePath}; the copy now shadows the built-in. `;
}

export function emptyDescriptionNotice(agentName: string): string {
  return `${agentName}: the description cannot be empty; nothing written.`;
}

export function unchangedNotice(agentName: string, field: string): string {
  return `${agentName}: ${field} unchanged; nothing written.`;
}

export function descriptionSavedNotice(agentName: string, filePath: string): string {
  return `${agentName}: description saved to ${filePath}. ${ROSTER_NEXT_TURN}`;
}

export function listFieldSavedNotice(agentName: string, field: "tools" | "skills", list: readonly string[], filePath: string): string {
  if (list.length > 0) return `${agentName}: ${field} set to ${list.join(", ")} in ${filePath}. ${NEXT_DISPATCH}`;
  const meaning = field === "tools" ? "pi's default tools apply" : "the global skills apply";
  return `${agentName}: ${field} key removed from ${filePath} (${meaning}). ${NEXT_DISPATCH}`;
}

export function bodySavedNotice(agentName: string, filePath: string): string {
  return `${agentName}: body saved to ${filePath}. ${NEXT_DISPATCH}`;
}

export function emptyBodyNotice(agentName: string): string {
  return `${agentName}: the edited body is empty (whitespace only); nothing written. An agent needs a system prompt.`;
}

/** The notice for an editor that did not deliver a body (unchanged bodies are reported by unchangedNotice). */
export function editorProblemNotice(agentName: string, outcome: Extract<BodyEditOutcome, { kind: "launch-failed" | "exit-code" }>): string {
  if (outcome.kind === "launch-failed") {
    return `${agentName}: could not start the editor "${outcome.command}" (${outcome.reason}); nothing written. Set $EDITOR (or $VISUAL) to an editor that runs here.`;
  }
  const how = outcome.signal ? `was ended by signal ${outcome.signal}` : `exited with code ${outcome.code ?? "unknown"}`;
  return `${agentName}: the editor "${outcome.command}" ${how}; nothing written.`;
}

export function modelAddedNotice(model: string, target: FileTarget, filePath: string | undefined, changed: boolean, shadowedBy?: FileTarget): string {
  const place = targetPlace(target, filePath);
  const shadow = shadowedBy ? ` Note: the ${shadowedBy} $models list shadows the ${target} list, so the list in force is unchanged.` : "";
  return changed ? `Added ${model} to $models in ${place}.${shadow}` : `${model} is already in $models in ${place}; nothing written.${shadow}`;
}

export function modelRemovedNotice(model: string, target: FileTarget, filePath: string | undefined, changed: boolean, shadowedBy?: FileTarget): string {
  const place = targetPlace(target, filePath);
  const shadow = shadowedBy ? ` Note: the ${shadowedBy} $models list shadows the ${target} list, so the list in force is unchanged.` : "";
  return changed ? `Removed ${model} from $models in ${place}.${shadow}` : `${model} is not in $models in ${place}; nothing written.${shadow}`;
}

export function emptyModelsListNotice(): string {
  return "The $models list is empty; there is nothing to remove.";
}

export function removeConfirmMessage(model: string, target: FileTarget, filePath: string | undefined): string {
  return `Remove ${model} from $models in ${targetPlace(target, filePath)}?`;
}
