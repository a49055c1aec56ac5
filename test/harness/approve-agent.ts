/**
 * Records, as the person's Yes to the first-use question would, that a project agent file's current text may run:
 * `<agent dir>/subagent-trusted-agents.json` (docs/safety.md, "Trust on first use of a project agent"), keyed by
 * the file's real path. Without it a project agent is refused wherever nobody can be asked (print, JSON, RPC).
 * No vitest here: the benchmarks use it too.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { PiEnv } from "./pi-env.ts";

export function approveProjectAgent(env: Pick<PiEnv, "agentDir">, agentFile: string): void {
  const path = join(env.agentDir, "subagent-trusted-agents.json");
  const approvals = existsSync(path) ? (JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>) : {};
  const text = readFileSync(agentFile, "utf8");
  approvals[realpathSync(agentFile)] = {
    sha256: createHash("sha256").update(text).digest("hex"),
    name: "test",
    approvedAt: new Date().toISOString(),
  };
  writeFileSync(path, JSON.stringify(approvals, null, 2));
}
