/**
 * What the entry registers in a pi that may dispatch (the main agent): the start-up sweep, the roster hooks and
 * the lazily loaded runtime behind the manifest (src/lazy/lazy-extension.ts explains the pattern). Without the
 * TUI a tool call loads only the tool's part of the runtime (src/runtime-tool.ts).
 */
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import { registerLazily } from "../lazy/lazy-extension.ts";
import { MANIFEST } from "../manifest.ts";
import { registerRosterHook } from "../roster/hook.ts";
import { detectAppMode } from "../shared/mode.ts";
import { registerStartupSweep } from "../tasks/register-startup-sweep.ts";

export function registerMainPi(pi: ExtensionAPI): void {
  // Once per process, after the first session_start: runs left by a pi that was killed hard (loads on demand).
  registerStartupSweep(pi);
  registerRosterHook(pi);
  registerLazily(pi, MANIFEST, {
    all: () => import("../runtime.ts"),
    toolOnly: detectAppMode() === "interactive" ? undefined : () => import("../runtime-tool.ts"),
  });
}
