/**
 * Shows the task picker in place of pi's editor and resolves with the picked task id, or undefined when the
 * person left it (Esc) or pi has no TUI to show it in.
 */
import type { ExtensionCommandContext } from "@mariozechner/pi-coding-agent";
import type { SelectItem } from "@mariozechner/pi-tui";
import { TaskPicker } from "../ui/task-picker.ts";

export type PickerContext = Pick<ExtensionCommandContext, "ui">;

export interface PickTaskOptions {
  title: string;
  items: SelectItem[];
  initialTaskId?: string;
  /** The rows as they are now, for a picker of running tasks whose clocks move (TaskPicker's refreshItems). */
  refreshItems?: () => SelectItem[];
}

export async function pickTask(ctx: PickerContext, options: PickTaskOptions): Promise<string | undefined> {
  const picked = await ctx.ui.custom<string | undefined>((tui, theme, _keybindings, done) =>
    new TaskPicker({
      ...options,
      theme,
      onPick: (taskId) => done(taskId),
      onCancel: () => done(undefined),
      requestRender: () => tui.requestRender(),
    }),
  );
  return picked ?? undefined;
}
