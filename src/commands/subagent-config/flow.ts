/**
 * The /subagent-config flow: a small state machine of menus over the ports in types.ts (no pi, no I/O here).
 *
 * Levels, outermost first: agent picker → field select → the field's steps (for `model & thinking`: the action
 * layer → model value → thinking level → write target). Esc always walks back exactly one level and writes
 * nothing:
 * - a text input, the body editor, a copy-destination select → field select;
 * - model value, thinking level or write target → the model & thinking action layer (collected values dropped);
 * - the action layer → field select;
 * - field select → agent picker, or out of the command when it was opened as `/subagent-config <name>`;
 * - agent picker → out of the command;
 * - in the `$models` manager: input, model, target or a declined confirmation → manager; manager → picker.
 * A successful write ends the edit: its notice is shown and the flow is back at the field select (or the
 * manager), with every annotation recomputed from disk and memory. Back-off paths recompute nothing.
 */
import type { AgentDefinition } from "../../agents/types.ts";
import { governingEntry, resolveModelConfig } from "../../config/resolve.ts";
import type { ResolvedModelConfig } from "../../config/types.ts";
import type { ThinkingLevel } from "../../shared/thinking.ts";
import {
  agentModelView,
  inheritedOf,
  agentPickerChoices,
  agentPickerTitle,
  copyDestinationChoices,
  copyDestinationTitle,
  descriptionTitle,
  fieldChoices,
  fieldSelectTitle,
  listFieldTitle,
  modelActionChoices,
  modelActionTitle,
  modelInputTitle,
  modelsManagerChoices,
  modelsManagerTitle,
  modelsTargetChoices,
  modelsTargetTitle,
  modelToAddTitle,
  modelToRemoveTitle,
  modelValueChoices,
  modelValueTitle,
  modelPickChoices,
  registryModelTitle,
  thinkingChoices,
  thinkingTitle,
  writeTargetChoices,
  writeTargetTitle,
} from "./labels.ts";
import type { AgentField, Choice, ModelAction } from "./labels.ts";
import {
  agentGoneNotice,
  bodySavedNotice,
  copiedPrefix,
  descriptionSavedNotice,
  editorProblemNotice,
  emptyBodyNotice,
  emptyDescriptionNotice,
  emptyModelNotice,
  emptyModelsListNotice,
  listFieldSavedNotice,
  modelAddedNotice,
  modelClearedNotice,
  modelRemovedNotice,
  modelWrittenNotice,
  removeConfirmMessage,
  unchangedNotice,
  unknownAgentNotice,
} from "./config-notices.ts";
import { budgetValue } from "../../budget/limits.ts";
import { agentSandbox, sandboxLevelChoices, sandboxLevelTitle, sandboxTargetTitle, sandboxWrittenNotice } from "./sandbox-labels.ts";
import { agentBudget, budgetInputTitle, budgetKeyChoices, budgetKeyTitle, budgetTargetTitle, budgetWrittenNotice, invalidBudgetNotice } from "./budget-labels.ts";
import type { AgentFileChange, ConfigDialogs, ConfigSnapshot, ConfigStore, FileTarget, WriteResult, WriteTarget } from "./config-types.ts";

/** Where an agent-file edit lands: the agent's own file, or a new copy of a built-in agent. */
export type EditDestination = { kind: "in-place" } | { kind: "copy"; to: FileTarget };

/** Comma-separated input → the list it means (trimmed, blanks dropped, first occurrence kept). */
export function parseListInput(text: string): string[] {
  return [...new Set(text.split(",").map((item) => item.trim()).filter((item) => item !== ""))];
}

/** A body as compared for "unchanged": line breaks, a BOM, leading blank lines and trailing whitespace ignored. */
export function normalizeBody(text: string): string {
  return text
    .replace(/^\uFEFF/, "")
    .replace(/\r\n?/g, "\n")
    .replace(/^(?:[ \t]*\n)+/, "")
    .replace(/\s+$/, "");
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((item, index) => item === b[index]);
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export class SubagentConfigFlow {
  private readonly dialogs: ConfigDialogs;

  private readonly store: ConfigStore;

  private snapshot: ConfigSnapshot;

  constructor(dialogs: ConfigDialogs, store: ConfigStore) {
    this.dialogs = dialogs;
    this.store = store;
    this.snapshot = store.load();
  }

  /** Runs the command: `args` empty opens the picker, otherwise it names the agent to jump to. */
  async run(args: string): Promise<void> {
    const name = args.trim();
    if (name === "") return this.agentPicker();
    if (!this.agentNamed(name)) {
      this.dialogs.notify(unknownAgentNotice(name, this.snapshot.agents.map((agent) => agent.name)), "error");
      return;
    }
    // Opened on one agent: Esc at its field select leaves the command (there is no picker to go back to).
    return this.fieldSelect(name);
  }

  private agentNamed(name: string): AgentDefinition | undefined {
    return this.snapshot.agents.find((agent) => agent.name === name);
  }

  /** Re-reads agents and config: after every successful write, never on a back-off path. */
  private refresh(): void {
    this.snapshot = this.store.load();
  }

  private async choose<T>(title: string, choices: readonly Choice<T>[]): Promise<T | undefined> {
    const labels = choices.map((choice) => choice.label);
    const picked = await this.dialogs.select(title, labels);
    if (picked === undefined) return undefined;
    const index = labels.indexOf(picked);
    return index < 0 ? undefined : choices[index]?.value;
  }

  private async agentPicker(): Promise<void> {
    for (;;) {
      const picked = await this.choose(agentPickerTitle(this.snapshot.agents.length), agentPickerChoices(this.snapshot));
      if (picked === undefined) return;
      if (picked.kind === "models") await this.modelsManager();
      else await this.fieldSelect(picked.name);
    }
  }

  private async fieldSelect(name: string): Promise<void> {
    for (;;) {
      const agent = this.agentNamed(name);
      if (!agent) {
        this.dialogs.notify(agentGoneNotice(name), "error");
        return;
      }
      const field = await this.choose(fieldSelectTitle(agent), fieldChoices(agent, this.snapshot.layers, inheritedOf(this.snapshot)));
      if (field === undefined) return;
      await this.editField(agent, field);
    }
  }

  private async editField(agent: AgentDefinition, field: AgentField): Promise<void> {
    switch (field) {
      case "description":
        return this.editDescription(agent);
      case "tools":
      case "skills":
        return this.editList(agent, field);
      case "body":
        return this.editBody(agent);
      case "model & thinking":
        return this.modelAndThinking(agent);
      case "budget":
        return this.editBudget(agent);
      case "sandbox":
        return this.editSandbox(agent);
    }
  }

  // Sandbox ---------------------------------------------------------------------------------------------

  /** Level (or clear) → user or project file → one write. Esc goes back one level; a write ends it. */
  private async editSandbox(agent: AgentDefinition): Promise<void> {
    for (;;) {
      const level = await this.choose(sandboxLevelTitle(agent), sandboxLevelChoices(agent, this.snapshot.layers));
      if (level === undefined) return;
      // No process layer: the sandbox is read from the files only.
      const target = await this.choose(sandboxTargetTitle(agent, this.snapshot.configPaths), modelsTargetChoices(undefined, !this.snapshot.projectUntrusted));
      if (target === undefined) continue;
      let result: WriteResult;
      try {
        result = await this.store.writeModelConfig(target, agent.name, { sandbox: level });
      } catch (error) {
        this.dialogs.notify(errorText(error), "error");
        continue;
      }
      if (result.changed) this.refresh();
      const effective = agentSandbox(this.agentNamed(agent.name) ?? agent, this.snapshot.layers).level;
      this.dialogs.notify(sandboxWrittenNotice(agent.name, level, target, result.filePath, result.changed, effective), "info");
      return;
    }
  }

  // Budget ----------------------------------------------------------------------------------------------

  /** Limit → value (empty clears) → target → one write. Esc at any step goes back one level; a write ends it. */
  private async editBudget(agent: AgentDefinition): Promise<void> {
    for (;;) {
      const key = await this.choose(budgetKeyTitle(agent), budgetKeyChoices(agent, this.snapshot.layers));
      if (key === undefined) return;
      const current = agentBudget(agent, this.snapshot.layers).limits[key];
      const typed = await this.dialogs.input(budgetInputTitle(agent, key), current === undefined ? "" : String(current));
      if (typed === undefined) continue;
      let value: number | null = null;
      if (typed.trim() !== "") {
        const parsed = budgetValue(key, typed);
        if (parsed === undefined) {
          this.dialogs.notify(invalidBudgetNotice(agent.name, key, typed), "error");
          continue;
        }
        value = parsed;
      }
      const governing = agentModelView(agent, this.snapshot.layers).governing;
      const target = await this.choose(budgetTargetTitle(agent, this.snapshot.configPaths, key), writeTargetChoices(governing, !this.snapshot.projectUntrusted));
      if (target === undefined) continue;
      let result: WriteResult;
      try {
        result = await this.store.writeModelConfig(target, agent.name, { [key]: value });
      } catch (error) {
        this.dialogs.notify(errorText(error), "error");
        continue;
      }
      if (result.changed) this.refresh();
      this.dialogs.notify(budgetWrittenNotice(agent.name, key, value, target, result.filePath, result.changed), "info");
      return;
    }
  }

  // Agent-file fields -------------------------------------------------------------------------------------

  /** A built-in agent is copied before it is edited: ask where (Esc: back to the field select). */
  private async destinationFor(agent: AgentDefinition): Promise<EditDestination | undefined> {
    if (agent.source !== "builtin") return { kind: "in-place" };
    const to = await this.choose(copyDestinationTitle(agent), copyDestinationChoices(this.snapshot.agentDirs));
    return to === undefined ? undefined : { kind: "copy", to };
  }

  /** Writes the change; on success refreshes and shows `notice(path)`, on refusal shows the reason. */
  private async writeAgentChange(agent: AgentDefinition, destination: EditDestination, change: AgentFileChange, notice: (filePath: string) => string): Promise<void> {
    let result: WriteResult;
    try {
      result =
        destination.kind === "in-place"
          ? await this.store.changeAgentFile(agent, change)
          : await this.store.copyBuiltinAgent(agent, destination.to, change);
    } catch (error) {
      this.dialogs.notify(errorText(error), "error");
      return;
    }
    const filePath = result.filePath ?? agent.filePath;
    if (!result.changed) {
      this.dialogs.notify(unchangedNotice(agent.name, change.kind === "body" ? "body" : Object.keys(change.patch).join(", ")), "info");
      return;
    }
    this.refresh();
    const prefix = destination.kind === "copy" ? copiedPrefix(agent, filePath) : "";
    this.dialogs.notify(prefix + notice(filePath), "info");
  }

  private async editDescription(agent: AgentDefinition): Promise<void> {
    const destination = await this.destinationFor(agent);
    if (!destination) return;
    const typed = await this.dialogs.input(descriptionTitle(agent), agent.description);
    if (typed === undefined) return;
    const description = typed.trim();
    if (description === "") {
      this.dialogs.notify(emptyDescriptionNotice(agent.name), "error");
      return;
    }
    if (description === agent.description.trim()) {
      this.dialogs.notify(unchangedNotice(agent.name, "description"), "info");
      return;
    }
    await this.writeAgentChange(agent, destination, { kind: "frontmatter", patch: { description } }, (filePath) =>
      descriptionSavedNotice(agent.name, filePath),
    );
  }

  private async editList(agent: AgentDefinition, field: "tools" | "skills"): Promise<void> {
    const destination = await this.destinationFor(agent);
    if (!destination) return;
    const current = agent[field];
    const typed = await this.dialogs.input(listFieldTitle(agent, field), (current ?? []).join(", "));
    if (typed === undefined) return;
    const list = parseListInput(typed);
    // Empty input deletes the key; that is a change only when the key is there.
    const unchanged = list.length === 0 ? current === undefined : current !== undefined && sameList(list, current);
    if (unchanged) {
      this.dialogs.notify(unchangedNotice(agent.name, field), "info");
      return;
    }
    const patch = field === "tools" ? { tools: list.length === 0 ? null : list.join(", ") } : { skills: list.length === 0 ? null : list.join(", ") };
    await this.writeAgentChange(agent, destination, { kind: "frontmatter", patch }, (filePath) =>
      listFieldSavedNotice(agent.name, field, list, filePath),
    );
  }

  private async editBody(agent: AgentDefinition): Promise<void> {
    const destination = await this.destinationFor(agent);
    if (!destination) return;
    const outcome = await this.dialogs.editBody(agent.name, agent.body);
    switch (outcome.kind) {
      case "cancelled":
        return;
      case "launch-failed":
      case "exit-code":
        this.dialogs.notify(editorProblemNotice(agent.name, outcome), "error");
        return;
      case "edited":
        break;
    }
    const body = normalizeBody(outcome.text);
    if (body === "") {
      this.dialogs.notify(emptyBodyNotice(agent.name), "warning");
      return;
    }
    if (body === normalizeBody(agent.body)) {
      this.dialogs.notify(unchangedNotice(agent.name, "body"), "info");
      return;
    }
    await this.writeAgentChange(agent, destination, { kind: "body", body }, (filePath) => bodySavedNotice(agent.name, filePath));
  }

  // Model & thinking --------------------------------------------------------------------------------------

  /** The action layer. Esc here → field select; Esc in any later step → back here. Returns after a write. */
  private async modelAndThinking(agent: AgentDefinition): Promise<void> {
    for (;;) {
      const action = await this.choose(modelActionTitle(agent), modelActionChoices(agent, this.snapshot.layers, inheritedOf(this.snapshot)));
      if (action === undefined) return;
      const finished = action === "edit" ? await this.editModelThinking(agent) : await this.clearModelThinking(agent);
      if (finished) return;
    }
  }

  private async chooseWriteTarget(agent: AgentDefinition, action: ModelAction): Promise<WriteTarget | undefined> {
    const governing = agentModelView(agent, this.snapshot.layers).governing;
    return this.choose(writeTargetTitle(agent, this.snapshot.configPaths, action), writeTargetChoices(governing, !this.snapshot.projectUntrusted));
  }

  private async chooseModel(agent: AgentDefinition, current: string | undefined): Promise<string | undefined> {
    const models = this.snapshot.models;
    const fromList = models.models.length > 0;
    const listed = fromList ? models.models : (this.snapshot.registryModels ?? []);
    if (listed.length > 0) {
      const title = fromList ? modelValueTitle(agent, models) : registryModelTitle(agent);
      const picked = await this.choose(title, modelPickChoices(listed, current ?? (fromList ? undefined : this.snapshot.inheritedModel)));
      if (picked === undefined || picked.kind === "model") return picked?.model;
    }
    return this.dialogs.input(modelInputTitle(agent), current ?? this.snapshot.inheritedModel ?? "");
  }

  /**
   * Model → thinking → target → one patch with both fields. True when it ended with a write attempt that went through (even if nothing changed).
   */
  private async editModelThinking(agent: AgentDefinition): Promise<boolean> {
    const effective = agentModelView(agent, this.snapshot.layers).effective;
    const typedModel = await this.chooseModel(agent, effective.model.value);
    if (typedModel === undefined) return false;
    const model = typedModel.trim();
    if (model === "") {
      this.dialogs.notify(emptyModelNotice(agent.name), "error");
      return false;
    }
    const thinking: ThinkingLevel | null | undefined = await this.choose(thinkingTitle(agent), thinkingChoices(effective.thinking.value));
    if (thinking === undefined) return false;
    const target = await this.chooseWriteTarget(agent, "edit");
    if (target === undefined) return false;

    let result: WriteResult;
    try {
      result = await this.store.writeModelConfig(target, agent.name, { model, thinking });
    } catch (error) {
      // Refused before anything was written: back to the action layer, where another target can be tried.
      this.dialogs.notify(errorText(error), "error");
      return false;
    }
    if (result.changed) this.refresh();
    const notice = modelWrittenNotice({
      agentName: agent.name,
      model,
      thinking,
      target,
      ...(result.filePath !== undefined ? { filePath: result.filePath } : {}),
      changed: result.changed,
      ...this.effectiveAfter(agent),
    });
    this.dialogs.notify(notice, "info");
    return true;
  }

  /** Target → both fields cleared (the whole entry goes). The notice names each field's new fallback. */
  private async clearModelThinking(agent: AgentDefinition): Promise<boolean> {
    const target = await this.chooseWriteTarget(agent, "clear");
    if (target === undefined) return false;
    let result: WriteResult;
    try {
      result = await this.store.writeModelConfig(target, agent.name, { model: null, thinking: null });
    } catch (error) {
      // Refused before anything was written: back to the action layer, where another target can be tried.
      this.dialogs.notify(errorText(error), "error");
      return false;
    }
    if (result.changed) this.refresh();
    const notice = modelClearedNotice({
      agentName: agent.name,
      target,
      ...(result.filePath !== undefined ? { filePath: result.filePath } : {}),
      changed: result.changed,
      after: this.effectiveAfter(agent).after,
    });
    this.dialogs.notify(notice, "info");
    return true;
  }

  /** The agent's values and governing layer in the current snapshot (the agent's own file may be gone). */
  private effectiveAfter(agent: AgentDefinition): { after: ResolvedModelConfig; governingAfter?: WriteTarget } {
    const current = this.agentNamed(agent.name) ?? agent;
    const after = resolveModelConfig(current, this.snapshot.layers);
    const governing = governingEntry(agent.name, this.snapshot.layers);
    return governing ? { after, governingAfter: governing.source } : { after };
  }

  // $models ------------------------------------------------------------------------------------------------

  private async modelsManager(): Promise<void> {
    for (;;) {
      const action = await this.choose(modelsManagerTitle(this.snapshot.models, this.snapshot.configPaths), modelsManagerChoices());
      if (action === undefined) return;
      if (action === "add") await this.addModel();
      else await this.removeModel();
    }
  }

  /** The other file whose list shadows `target`'s (only a project list can shadow the user list). */
  private listShadowing(target: FileTarget): FileTarget | undefined {
    return target === "user" && this.snapshot.models.source === "project" ? "project" : undefined;
  }

  private async addModel(): Promise<void> {
    const typed = await this.dialogs.input(modelToAddTitle(), "");
    if (typed === undefined) return;
    const model = typed.trim();
    if (model === "") {
      this.dialogs.notify("The model cannot be empty (provider/model-id); nothing written.", "error");
      return;
    }
    const target = await this.choose(modelsTargetTitle("add", model, this.snapshot.configPaths), modelsTargetChoices(this.snapshot.models.source, !this.snapshot.projectUntrusted));
    if (target === undefined) return;
    let result: WriteResult;
    try {
      result = await this.store.addModel(target, model);
    } catch (error) {
      this.dialogs.notify(errorText(error), "error");
      return;
    }
    if (result.changed) this.refresh();
    this.dialogs.notify(modelAddedNotice(model, target, result.filePath, result.changed, this.listShadowing(target)), "info");
  }

  private async removeModel(): Promise<void> {
    const models = this.snapshot.models.models;
    if (models.length === 0) {
      this.dialogs.notify(emptyModelsListNotice(), "info");
      return;
    }
    const model = await this.choose(modelToRemoveTitle(), modelValueChoices(models, undefined));
    if (model === undefined) return;
    const target = await this.choose(modelsTargetTitle("remove", model, this.snapshot.configPaths), modelsTargetChoices(this.snapshot.models.source, !this.snapshot.projectUntrusted));
    if (target === undefined) return;
    const filePath = target === "user" ? this.snapshot.configPaths.user : this.snapshot.configPaths.project;
    if (!(await this.dialogs.confirm("Remove a model from $models", removeConfirmMessage(model, target, filePath)))) return;
    let result: WriteResult;
    try {
      result = await this.store.removeModel(target, model);
    } catch (error) {
      this.dialogs.notify(errorText(error), "error");
      return;
    }
    if (result.changed) this.refresh();
    this.dialogs.notify(modelRemovedNotice(model, target, result.filePath ?? filePath, result.changed, this.listShadowing(target)), "info");
  }
}

/** Runs /subagent-config over the given ports. */
export function runSubagentConfigFlow(dialogs: ConfigDialogs, store: ConfigStore, args: string): Promise<void> {
  return new SubagentConfigFlow(dialogs, store).run(args);
}
