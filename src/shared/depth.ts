/** Environment variables that carry the subagent nesting across processes. */
export const DEPTH_ENV = "PI_SUBAGENT_DEPTH";
export const AGENT_NAME_ENV = "PI_CURRENT_AGENT_NAME";

/** The nesting depth of this process: 0 for the main agent; a missing or non-numeric value counts as 0. */
export function readSubagentDepth(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env[DEPTH_ENV];
  if (raw === undefined || raw.trim() === "") return 0;
  const depth = Number(raw);
  return Number.isFinite(depth) && depth > 0 ? Math.floor(depth) : 0;
}

/** A subagent (depth >= 1) may neither dispatch nor cancel subagents, nor see the roster. */
export function isInsideSubagent(env: NodeJS.ProcessEnv = process.env): boolean {
  return readSubagentDepth(env) >= 1;
}
