/**
 * The sandbox settings of the subagent-isolation.json files: `"$sandbox"`, the default level of every agent, and
 * `"$sandboxHide"`, more paths to hide. The user file sets both; a project's `"$sandbox"` only makes agents
 * stricter (resolve-sandbox.ts), and its `"$sandboxHide"` is ignored with a warning: a repository may add
 * restrictions, never decide what of the person's is hidden or shown. Pure.
 */
import type { ConfigLayer } from "./types.ts";
import { isSandboxLevel, SANDBOX_LEVELS } from "../sandbox/levels.ts";
import type { SandboxLevel } from "../sandbox/levels.ts";

export const SANDBOX_KEY = "$sandbox";
export const SANDBOX_HIDE_KEY = "$sandboxHide";

export interface SandboxSettings {
  userDefault?: SandboxLevel;
  projectDefault?: SandboxLevel;
  /** Paths to hide besides the defaults, as written (`~/x` or absolute). */
  hide: string[];
  warnings: string[];
}

type Layer = Pick<ConfigLayer, "settings" | "filePath">;

function where(layer: Layer, name: string): string {
  return `pi-subagent-dispatch: ${layer.filePath ?? `${name} subagent-isolation.json`}`;
}

function readLevel(layer: Layer, name: string, warnings: string[]): SandboxLevel | undefined {
  const settings = layer.settings ?? {};
  if (!Object.hasOwn(settings, SANDBOX_KEY)) return undefined;
  const value = settings[SANDBOX_KEY];
  if (isSandboxLevel(value)) return value;
  if (value === null) return undefined;
  // A mistyped level asked for a sandbox: the strictest one, never none.
  warnings.push(`${where(layer, name)}: "${SANDBOX_KEY}" must be one of ${SANDBOX_LEVELS.join(", ")} (got ${JSON.stringify(value)?.slice(0, 80)}); every agent it covers runs read-only until that is fixed`);
  return "read-only";
}

export function readSandboxSettings(layers: { user: Layer; project: Layer }): SandboxSettings {
  const warnings: string[] = [];
  const result: SandboxSettings = { hide: [], warnings };
  const userDefault = readLevel(layers.user, "user", warnings);
  if (userDefault) result.userDefault = userDefault;
  const projectDefault = readLevel(layers.project, "project", warnings);
  if (projectDefault) result.projectDefault = projectDefault;
  const user = layers.user.settings ?? {};
  if (Object.hasOwn(user, SANDBOX_HIDE_KEY)) {
    const value = user[SANDBOX_HIDE_KEY];
    if (Array.isArray(value) && value.every((item) => typeof item === "string")) result.hide = (value as string[]).filter((item) => item.trim() !== "");
    else warnings.push(`${where(layers.user, "user")}: "${SANDBOX_HIDE_KEY}" must be a list of paths ("~/..." or absolute); ignored`);
  }
  if (Object.hasOwn(layers.project.settings ?? {}, SANDBOX_HIDE_KEY)) {
    warnings.push(`${where(layers.project, "project")}: "${SANDBOX_HIDE_KEY}" can only be set in your user-level subagent-isolation.json; ignored`);
  }
  return result;
}
