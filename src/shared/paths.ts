/**
 * Where the package and pi's agent dir are. pi's own resolution of its agent dir (`getAgentDir`) is given by the
 * entry (extension.ts), since io/ does not import pi (the layer rule in ARCHITECTURE.md); until then (unit tests, scripts) the same rule as pi's is used: `PI_CODING_AGENT_DIR`
 * with a leading `~` expanded, else `~/.pi/agent`.
 */
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The package root (where `agents/` with the built-in agents lives). */
export const PACKAGE_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

export const BUILTIN_AGENTS_DIR = join(PACKAGE_ROOT, "agents");

/** pi's rule for its agent dir, used until the entry hands over pi's own `getAgentDir`. */
export function agentDirByPiRule(): string {
  const fromEnv = process.env.PI_CODING_AGENT_DIR;
  if (fromEnv) {
    if (fromEnv === "~") return homedir();
    return fromEnv.startsWith("~/") ? join(homedir(), fromEnv.slice(2)) : fromEnv;
  }
  return join(homedir(), ".pi", "agent");
}

let resolveAgentDir: () => string = agentDirByPiRule;

/** Makes `agentDir()` pi's own answer (the entry passes pi's `getAgentDir`). */
export function useAgentDirResolver(resolver: () => string): void {
  resolveAgentDir = resolver;
}

/** pi's agent dir: `PI_CODING_AGENT_DIR`, or `~/.pi/agent` (pi's own resolution). */
export function agentDir(): string {
  return resolveAgentDir();
}

/** Where each subagent session (and its task record) lives: `<agent dir>/subagent-sessions/<id>/`. */
export function subagentSessionsDir(base: string = agentDir()): string {
  return join(base, "subagent-sessions");
}
