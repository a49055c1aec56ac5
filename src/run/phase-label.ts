import type { RunState } from "./types.ts";

/** A short label for what a run is doing: `thinking`, `writing`, `⚡ bash: npm test`, `retrying (2)`. */
export function phaseLabel(state: Pick<RunState, "phase" | "currentTool" | "retryAttempts">): string {
  switch (state.phase) {
    case "starting":
      return "starting";
    case "thinking":
      return "thinking";
    case "writing":
      return "writing";
    case "tool": {
      const tool = state.currentTool;
      if (!tool) return "⚡ tool";
      return tool.summary ? `⚡ ${tool.name}: ${tool.summary}` : `⚡ ${tool.name}`;
    }
    case "waiting":
      return "waiting for the model";
    case "retrying":
      return `retrying (${state.retryAttempts})`;
    case "done":
      return "done";
  }
}
