/**
 * Which pi the child runs: the same node and pi entry as the parent (`process.execPath` + `process.argv[1]`),
 * so a child never picks up a different pi version; a `pi` on PATH only when the entry is unknown.
 */
import { existsSync } from "node:fs";
import { findOnPath } from "../shared/find-on-path.ts";
import type { PiExecutable } from "./command-line.ts";

export type ExecutableLookup = { ok: true; pi: PiExecutable } | { ok: false; message: string };

export function findPiExecutable(argv: readonly string[] = process.argv, execPath: string = process.execPath, pathEnv: string = process.env.PATH ?? ""): ExecutableLookup {
  const entry = argv[1];
  if (entry) {
    if (!existsSync(execPath)) return { ok: false, message: `Cannot start the subagent: the node executable ${execPath} does not exist.` };
    if (!existsSync(entry)) return { ok: false, message: `Cannot start the subagent: the pi entry script ${entry} does not exist.` };
    return { ok: true, pi: { command: execPath, prefixArgs: [entry] } };
  }
  const onPath = findOnPath("pi", pathEnv);
  if (onPath) return { ok: true, pi: { command: onPath, prefixArgs: [] } };
  return { ok: false, message: "Cannot start the subagent: no pi executable was found (pi's entry script is unknown and no `pi` is on PATH)." };
}
