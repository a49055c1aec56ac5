import type { FanOutSettings } from "../budget/fan-out-limits.ts";
import type { ThinkingLevel } from "../shared/thinking.ts";
import type { SandboxLevel } from "../sandbox/levels.ts";

/** One agent's entry in subagent-isolation.json (a plain string in the file means `{ model }`). */
export interface ModelOverride {
  model?: string;
  thinking?: ThinkingLevel;
  /** Budget limits for the agent's tasks (src/budget/limits.ts). */
  maxTurns?: number;
  maxTokens?: number;
  maxCost?: number;
  /** The agent's sandbox; a project entry can only make it stricter (src/config/resolve-sandbox.ts). */
  sandbox?: SandboxLevel;
}

/** Config file layers, lowest precedence first; `process` lives only in memory. */
export type ConfigLayerName = "user" | "project" | "process";

export interface ConfigLayer {
  name: ConfigLayerName;
  /** The file behind the layer (absent for the process layer, and for a project layer with no `.pi/`). */
  filePath?: string;
  /** Per-agent entries that passed validation. */
  entries: Record<string, ModelOverride>;
  /** The cleaned `$models` list; undefined when the file has none (or it is not an array). */
  models?: string[];
  /** The fan-out caps the file sets (`$maxTasksPerTurn`, `$maxTasksInFlight`). */
  fanOut?: FanOutSettings;
  /** Problems found while reading (invalid JSON, invalid values); the layer still counts, minus the bad parts. */
  warnings: string[];
  /** The file's other `$` settings as written (`$maxDepth`, `$forkMaxChars`), read by whoever uses them. */
  settings?: Record<string, unknown>;
}

/**
 * Where an effective value came from. `call` is the tool call's own `model` or `thinking` (that task only);
 * `inherited` is the main agent's current model (model only).
 */
export type ValueSource = "call" | "process" | "project" | "user" | "frontmatter" | "inherited";

export interface ResolvedValue<T> {
  value?: T;
  /** Absent when no layer set a value (shown as `not set`). */
  source?: ValueSource;
}

export interface ResolvedModelConfig {
  model: ResolvedValue<string>;
  thinking: ResolvedValue<ThinkingLevel>;
}

/** The `$models` list in force and the layer it came from. */
export interface AvailableModels {
  models: string[];
  source?: "user" | "project";
}
