/**
 * `$maxWorkflowParts`: the most parts a batch or steps a chain may have (default 16). Only the person's
 * user-level subagent-isolation.json sets it; a project file that tries is ignored with a warning, as for the
 * other limits on how much one call may start. Pure.
 */
import type { ConfigLayer } from "../config/types.ts";
import { DEFAULT_MAX_WORKFLOW_PARTS } from "./workflow.ts";

export const MAX_WORKFLOW_PARTS_KEY = "$maxWorkflowParts";

type Layer = Pick<ConfigLayer, "settings" | "filePath">;

export function readWorkflowCap(layers: { user: Layer; project: Layer }): { cap: number; warnings: string[] } {
  const warnings: string[] = [];
  let cap = DEFAULT_MAX_WORKFLOW_PARTS;
  const user = layers.user.settings ?? {};
  if (Object.hasOwn(user, MAX_WORKFLOW_PARTS_KEY)) {
    const value = user[MAX_WORKFLOW_PARTS_KEY];
    if (typeof value === "number" && Number.isSafeInteger(value) && value >= 1) cap = value;
    else warnings.push(`pi-subagent-dispatch: ${layers.user.filePath ?? "user subagent-isolation.json"}: "${MAX_WORKFLOW_PARTS_KEY}" must be a whole number of at least 1; using ${DEFAULT_MAX_WORKFLOW_PARTS}`);
  }
  if (Object.hasOwn(layers.project.settings ?? {}, MAX_WORKFLOW_PARTS_KEY)) {
    warnings.push(`pi-subagent-dispatch: ${layers.project.filePath ?? "project subagent-isolation.json"}: "${MAX_WORKFLOW_PARTS_KEY}" can only be set in your user-level subagent-isolation.json; ignored`);
  }
  return { cap, warnings };
}
