// @ts-check
/**
 * Where the package and pi's agent dir are. pi's own resolution of its agent dir (`getAgentDir`) is given by the
 * entry (extension.ts), since this module is loaded by Node itself and cannot import pi (ADVANCED.md, "Modules
 * Node loads itself"); until then (unit tests, scripts) the same rule as pi's is used: `PI_CODING_AGENT_DIR`
 * with a leading `~` expanded, else `~/.pi/agent`.
 */
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The package root (where `agents/` with the built-in agents lives). */
export const PACKAGE_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

export const BUILTIN_AGENTS_DIR = join(PACKAGE_ROOT, "agents");

/**
 * pi's rule for its agent dir, used until the entry hands over pi's own `getAgentDir`.
 * @returns {string}
 */
export function agentDirByPiRule() {
  const fromEnv = process.env.PI_CODING_AGENT_DIR;
  if (fromEnv) {
    if (fromEnv === "~") return homedir();
    return fromEnv.startsWith("~/") ? join(homedir(), fromEnv.slice(2)) : fromEnv;
  }
  return join(homedir(), ".pi", "agent");
}

/** @type {() => string} */
let resolveAgentDir = agentDirByPiRule;

/**
 * Makes `agentDir()` pi's own answer (the entry passes pi's `getAgentDir`).
 * @param {() => string} resolver
 * @returns {void}
 */
export function useAgentDirResolver(resolver) {
  resolveAgentDir = resolver;
}

/**
 * pi's agent dir: `PI_CODING_AGENT_DIR`, or `~/.pi/agent` (pi's own resolution).
 * @returns {string}
 */
export function agentDir() {
  return resolveAgentDir();
}

/**
 * Where each subagent session (and its task record) lives: `<agent dir>/subagent-sessions/<id>/`.
 * @param {string} [base]
 * @returns {string}
 */
export function subagentSessionsDir(base = agentDir()) {
  return join(base, "subagent-sessions");
}
