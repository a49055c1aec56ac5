/**
 * How a child pi is driven. `rpc` (the default) runs `pi --mode rpc`: the task goes in as an RPC `prompt` on
 * stdin (no command-line size limit), a running child can be steered and asked to abort. `json` is the older
 * sealed `pi --mode json -p <task>` child, kept as a fallback (`PI_SUBAGENT_CHILD_MODE=json`).
 */
export type ChildMode = "rpc" | "json";

export const CHILD_MODE_ENV = "PI_SUBAGENT_CHILD_MODE";

/** The child mode chosen by the environment; anything but `json` (any case) is the default, `rpc`. */
export function readChildMode(env: NodeJS.ProcessEnv = process.env): ChildMode {
  return (env[CHILD_MODE_ENV] ?? "").trim().toLowerCase() === "json" ? "json" : "rpc";
}
