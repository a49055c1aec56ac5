/**
 * In a subagent that dispatches subagents of its own (nesting, `PI_SUBAGENT_MAX_DEPTH` ≥ 2): this pi runs in RPC
 * mode under its parent, so its own `ctx.ui` dialogs go up to the parent as `extension_ui_request`s. A
 * grandchild's question is asked that way, with the path so far in its title (src/dialogs/child-dialogs.ts),
 * and the answer that comes down goes back to the grandchild. Up at the main pi the question is labelled with
 * the whole path (`reviewer 01a2 › explore 01a3 asks:`). The grandchild's texts were stripped of control
 * sequences when its request was read.
 */
import type { ExtensionUIContext } from "@mariozechner/pi-coding-agent";
import {
  answerOf,
  CANCELLED,
  decodeNestedTitle,
  encodeNestedTitle,
  type DialogRoute,
  type Asker,
} from "../../dialogs/child-dialogs.ts";
import { shortTaskId } from "../../shared/text.ts";

export type ParentUi = Pick<ExtensionUIContext, "select" | "confirm" | "input" | "editor" | "notify">;

/** `nestedHops`: how many hops the task's child can have below it (see nested-path.ts); 0 at the depth limit. */
export function forwardToParent(ui: ParentUi, task: Asker, nestedHops: number): DialogRoute {
  return {
    kind: "person",
    sink: {
      ask: (dialog, reply) => {
        const inner = decodeNestedTitle(dialog.title, nestedHops);
        const title = encodeNestedTitle([task, ...inner.path], inner.title);
        const controller = new AbortController();
        const options = { signal: controller.signal };
        let answer: Promise<string | boolean | undefined>;
        try {
          switch (dialog.method) {
            case "select":
              answer = ui.select(title, dialog.options ?? [], options);
              break;
            case "confirm":
              answer = ui.confirm(title, dialog.message ?? "", options);
              break;
            case "input":
              answer = ui.input(title, dialog.placeholder, options);
              break;
            default:
              answer = ui.editor(title, dialog.prefill);
          }
        } catch (error) {
          answer = Promise.reject(error);
        }
        answer.then(
          (chosen) => {
            if (!controller.signal.aborted) reply(answerOf(dialog, chosen));
          },
          () => reply(CANCELLED),
        );
        return { close: () => controller.abort() };
      },
      notice: (notice) => {
        try {
          ui.notify(`${task.agent} ${shortTaskId(task.taskId)} says: ${notice.message}`, notice.level);
        } catch {
          // the parent is gone: nobody to tell
        }
      },
    },
  };
}
