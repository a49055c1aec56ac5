// @ts-check
/**
 * The `$models` list in force, pure: a project list (even an empty one) replaces the user list wholesale; a
 * missing or non-array project value falls back to the user list. Never a union.
 */
/** @import { AvailableModels } from "./types.ts" */
/** @import { ConfigLayers } from "./resolve.js" */

/**
 * @param {Pick<ConfigLayers, "user" | "project">} layers
 * @returns {AvailableModels}
 */
export function availableModels(layers) {
  if (layers.project?.models !== undefined) return { models: [...layers.project.models], source: "project" };
  if (layers.user?.models !== undefined) return { models: [...layers.user.models], source: "user" };
  return { models: [] };
}
