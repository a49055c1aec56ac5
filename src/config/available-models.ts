/**
 * The `$models` list in force, pure: a project list (even an empty one) replaces the user list wholesale; a
 * missing or non-array project value falls back to the user list. Never a union.
 */
import type { AvailableModels } from "./types.ts";
import type { ConfigLayers } from "./resolve.ts";

export function availableModels(layers: Pick<ConfigLayers, "user" | "project">): AvailableModels {
  if (layers.project?.models !== undefined) return { models: [...layers.project.models], source: "project" };
  if (layers.user?.models !== undefined) return { models: [...layers.user.models], source: "user" };
  return { models: [] };
}
