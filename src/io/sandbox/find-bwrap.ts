/**
 * Finding a bubblewrap that works: `bwrap` on the PATH the dispatch runs with (so a test can hand it an empty
 * one), then one real sandbox started with it (`true` inside the same kind of mounts a child gets), which fails
 * where user namespaces are turned off. The probe runs once per process for each bwrap path.
 */
import { spawnSync } from "node:child_process";
import type { SandboxUnavailable } from "../../core/sandbox/texts.ts";
import { perProcess } from "../shared/per-process.ts";
import { findOnPath } from "../shared/find-on-path.ts";

export type BwrapLookup = { ok: true; bwrap: string } | { ok: false; reason: SandboxUnavailable };

export function bwrapOnPath(pathEnv: string): string | undefined {
  return findOnPath("bwrap", pathEnv);
}

const PROBE_ARGS = ["--cap-drop", "ALL", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--", "true"];

/** The first line bwrap wrote, or how it ended. */
function probe(bwrap: string): string | undefined {
  const result = spawnSync(bwrap, PROBE_ARGS, { encoding: "utf8", timeout: 10_000, stdio: ["ignore", "ignore", "pipe"] });
  if (result.status === 0) return undefined;
  const said = (result.stderr ?? "").trim().split("\n")[0]?.trim();
  if (said) return said;
  if (result.error) return result.error.message;
  return result.signal ? `it ended with ${result.signal}` : `it exited with ${result.status}`;
}

export function findWorkingBwrap(pathEnv: string = process.env.PATH ?? "", platform: NodeJS.Platform = process.platform): BwrapLookup {
  if (platform !== "linux") return { ok: false, reason: { kind: "platform", platform } };
  const bwrap = bwrapOnPath(pathEnv);
  if (!bwrap) return { ok: false, reason: { kind: "not-found" } };
  const probes = perProcess("sandbox-probe", () => new Map<string, string | undefined>());
  if (!probes.has(bwrap)) probes.set(bwrap, probe(bwrap));
  const problem = probes.get(bwrap);
  return problem === undefined ? { ok: true, bwrap } : { ok: false, reason: { kind: "broken", bwrap, detail: problem } };
}
