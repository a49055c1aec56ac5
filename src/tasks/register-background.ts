/**
 * Wires background tasks to pi: created on first use in the interactive TUI, results sent with steer delivery,
 * delivery confirmed when the message enters the conversation, undelivered results of a session sent again
 * when it starts (startup, /reload, /resume), and every running child stopped on `session_shutdown`.
 */
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import { detectAppMode } from "../shared/mode.ts";
import { agentDir } from "../shared/paths.ts";
import { readRunSettings } from "../shared/run-settings.ts";
import { BackgroundTasks, RESULT_CUSTOM_TYPE } from "./background-tasks.ts";

export interface BackgroundHandle {
  /** The extension instance's background tasks (created on first call). */
  tasks(): BackgroundTasks;
  /** The instance if it exists (never creates one). */
  existing(): BackgroundTasks | undefined;
  /** Called with each newly created instance (the UI attaches its widget). */
  onCreated(listener: (tasks: BackgroundTasks) => void): void;
}

export function registerBackgroundTasks(pi: ExtensionAPI): BackgroundHandle {
  let instance: BackgroundTasks | undefined;
  const createdListeners: Array<(tasks: BackgroundTasks) => void> = [];
  const tasks = () => {
    if (!instance) {
      instance = new BackgroundTasks({
        agentDir: agentDir(),
        settings: readRunSettings(),
        send: (message) => pi.sendMessage(message, { deliverAs: "steer", triggerTurn: true }),
      });
      for (const listener of createdListeners) listener(instance);
    }
    return instance;
  };

  pi.on("session_start", (_event, ctx) => {
    if (!ctx.hasUI || detectAppMode() !== "interactive") return;
    const sessionId = ctx.sessionManager.getSessionId();
    // After start-up work is done: pi is idle then, so a redelivered result starts a turn of its own.
    setImmediate(() => {
      try {
        tasks().redeliver(sessionId);
      } catch {
        // a stale context after a quick /reload: the next session start delivers them
      }
    });
  });

  pi.on("message_end", (event) => {
    const message = event.message as { role?: string; customType?: string; details?: { taskId?: unknown } };
    if (message.role !== "custom" || message.customType !== RESULT_CUSTOM_TYPE) return;
    if (typeof message.details?.taskId === "string") tasks().confirmDelivered(message.details.taskId);
  });

  pi.on("session_shutdown", async () => {
    await instance?.shutdown();
  });

  return {
    tasks,
    existing: () => instance,
    onCreated: (listener) => {
      createdListeners.push(listener);
      if (instance) listener(instance);
    },
  };
}
