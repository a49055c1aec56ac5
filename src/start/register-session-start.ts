/**
 * Keeps what the session's authority is decided from as it is at pi's `session_start` (start-up, /new, /resume,
 * /fork, /reload): pi's trust answer, the files pi guards, the trust store and the person's user file
 * (src/authority/start-snapshot.ts). Synchronous and small (a few `stat`s and two small files, read but not
 * parsed: the first dispatch makes sense of them), so it is done at once, before any model turn and so before any
 * child can have written a thing. Registered by the light entry, so it runs in every mode.
 */
import { homedir } from "node:os";
import { rememberStartSnapshot } from "../authority/start-snapshot.ts";
import { agentDir } from "../shared/paths.ts";

interface StartContext {
  cwd: string;
  isProjectTrusted?: () => boolean;
}

export function registerSessionStart(pi: Pick<import("@mariozechner/pi-coding-agent").ExtensionAPI, "on">, argv: readonly string[] = process.argv): void {
  pi.on("session_start", (_event, ctx) => {
    const { cwd, isProjectTrusted } = ctx as StartContext;
    try {
      rememberStartSnapshot({ cwd, agentDir: agentDir(), home: homedir(), argv, ...(typeof isProjectTrusted === "function" ? { isProjectTrusted: () => isProjectTrusted.call(ctx) } : {}) });
    } catch {
      // Nothing kept: the first dispatch keeps what it finds (src/authority/session-start-read.ts).
    }
  });
}
