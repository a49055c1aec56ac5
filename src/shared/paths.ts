import { getAgentDir } from "@mariozechner/pi-coding-agent";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The package root (where `agents/` with the built-in agents lives). */
export const PACKAGE_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

export const BUILTIN_AGENTS_DIR = join(PACKAGE_ROOT, "agents");

/** pi's agent dir: `PI_CODING_AGENT_DIR`, or `~/.pi/agent` (pi's own resolution). */
export function agentDir(): string {
  return getAgentDir();
}

/** Where each subagent session (and its task record) lives: `<agent dir>/subagent-sessions/<id>/`. */
export function subagentSessionsDir(base: string = agentDir()): string {
  return join(base, "subagent-sessions");
}
