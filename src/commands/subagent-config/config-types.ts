/**
 * The contracts of /subagent-config: what the flow sees of the world (a snapshot of agents and config
 * layers), what it can ask of the person (dialogs) and what it can change (the store). The flow itself
 * (flow.ts) only talks to these ports, so it runs the same under pi's TUI, under RPC and in unit tests.
 */
import type { AgentDefinition } from "../../agents/types.ts";
import type { ModelOverridePatch } from "../../config/process-overrides.ts";
import type { ConfigLayers } from "../../config/resolve.ts";
import type { AvailableModels } from "../../config/types.ts";

/** Where a model & thinking edit goes: the process memory or one of the two config files. */
export type WriteTarget = "process" | "user" | "project";

/** Where `$models` edits go (the list is file-level only). */
export type FileTarget = "user" | "project";

/** Everything one step of the flow reads, taken at once (and again after every write). */
export interface ConfigSnapshot {
  /** Effective agents after shadowing, sorted by name. */
  agents: AgentDefinition[];
  layers: Required<ConfigLayers>;
  models: AvailableModels;
  /** The config file each file target writes to; project is absent when there is no project to write to. */
  configPaths: { user: string; project?: string };
  /** The agents folder a built-in agent is copied to, per tier (project absent: no project here). */
  agentDirs: { user: string; project?: string };
  /** The main agent's current model (`provider/id`), offered as the prefill when nothing sets a model. */
  inheritedModel?: string;
  /** The thinking level a child gets when nothing sets one: pi's default, `off` for a model without reasoning. */
  inheritedThinking?: string;
  /** The models pi can use now (`provider/id`, from its model registry), offered when a model is chosen. */
  registryModels?: string[];
  /** True when pi does not trust the project in this session: nothing of the project's is shown or offered. */
  projectUntrusted?: boolean;
}

/** How an external body edit ended. */
export type BodyEditOutcome =
  /** The editor exited 0 and this is the file's content. */
  | { kind: "edited"; text: string }
  /** Nothing came back (a dialog-based editor was cancelled). */
  | { kind: "cancelled" }
  /** The editor could not be started (not found, not executable, the temp file failed, ...). */
  | { kind: "launch-failed"; command: string; reason: string }
  /** The editor ran but exited with a non-zero status or was killed by a signal. */
  | { kind: "exit-code"; command: string; code: number | null; signal: string | null };

export type NoticeLevel = "info" | "warning" | "error";

/** What the flow may ask the person. Every method resolves undefined (or false) when they press Esc. */
export interface ConfigDialogs {
  select(title: string, options: readonly string[]): Promise<string | undefined>;
  confirm(title: string, message: string): Promise<boolean>;
  /** A single-line input showing `value` ready to edit; undefined when cancelled. */
  input(title: string, value: string): Promise<string | undefined>;
  /** Edits an agent's body (its system prompt) outside the dialog flow. */
  editBody(agentName: string, body: string): Promise<BodyEditOutcome>;
  notify(message: string, level: NoticeLevel): void;
}

/** A frontmatter change, as updateAgentFile takes it (only the keys the flow edits). */
export interface AgentFieldPatch {
  description?: string;
  tools?: string | null;
  skills?: string | null;
}

/** One change to an agent file: some frontmatter keys, or the whole body. */
export type AgentFileChange = { kind: "frontmatter"; patch: AgentFieldPatch } | { kind: "body"; body: string };

export interface WriteResult {
  changed: boolean;
  /** The file written (absent for the process layer). */
  filePath?: string;
}

/**
 * Everything the flow can change. Each method does its own validation first and throws a WriteBackError
 * (a message fit to show) with nothing changed when it refuses.
 */
export interface ConfigStore {
  load(): ConfigSnapshot;
  /** One patch with both fields (null clears a field) into the process memory or a config file. */
  writeModelConfig(target: WriteTarget, agentName: string, patch: ModelOverridePatch): Promise<WriteResult>;
  /** Edits a user or project agent's own file. */
  changeAgentFile(agent: AgentDefinition, change: AgentFileChange): Promise<WriteResult>;
  /**
   * Copies a built-in agent into the user or project agents folder with the change applied, in one write;
   * the copy then shadows the built-in. Refuses when the destination file already exists.
   */
  copyBuiltinAgent(agent: AgentDefinition, destination: FileTarget, change: AgentFileChange): Promise<WriteResult>;
  addModel(target: FileTarget, model: string): Promise<WriteResult>;
  removeModel(target: FileTarget, model: string): Promise<WriteResult>;
}
