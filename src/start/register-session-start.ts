/**
 * Keeps the session's authority as it is at pi's `session_start` (start-up, /new, /resume, /fork, /reload): pi's
 * trust decision, the files pi guards and the person's authority settings (src/io/authority/session-start.ts).
 * Synchronous and small (a few `stat`s and two small files), so it is done at once, before any model turn and so
 * before any child can have written a thing. Registered by the light entry, so it runs in every mode.
 */
import { homedir } from "node:os";
import { rememberSessionStart } from "../io/authority/session-start.ts";
import { agentDir } from "../io/shared/paths.ts";

interface StartContext {
  cwd: string;
  isProjectTrusted?: () => boolean;
}

export function registerSessionStart(pi: Pick<import("@mariozechner/pi-coding-agent").ExtensionAPI, "on">, argv: readonly string[] = process.argv): void {
  pi.on("session_start", (_event, ctx) => {
    const { cwd, isProjectTrusted } = ctx as StartContext;
    try {
      rememberSessionStart({ cwd, agentDir: agentDir(), home: homedir(), argv, ...(typeof isProjectTrusted === "function" ? { isProjectTrusted: () => isProjectTrusted.call(ctx) } : {}) });
    } catch {
      // Nothing kept: the first dispatch keeps what it finds (src/io/authority/session-start.ts).
    }
  });
}
