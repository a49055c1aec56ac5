/**
 * Finding a bubblewrap that works: `bwrap` in the system's own folders only (`/usr/bin`, `/bin`, …), never on the
 * PATH (`npm run` and `npx` put `node_modules/.bin` first, and a project or a child could plant a `bwrap` that
 * runs pi with no sandbox at all), and only where neither the file nor any folder above it can be written by
 * anyone but root. Then one real sandbox is started with it, which must prove it isolates: a write to a folder
 * bound read-only fails inside, and nothing reaches the host (this fails where user namespaces are turned off). The
 * probe runs once per process for each bwrap path; a call that asks for a sandbox starts it ahead (probeAhead), so
 * that it runs beside the reading of agents and config instead of after it.
 */
import { spawn, spawnSync } from "node:child_process";
import { accessSync, constants, existsSync, mkdtempSync, readdirSync, realpathSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { SandboxUnavailable } from "./texts.ts";
import { perProcess } from "../shared/per-process.ts";

export type BwrapLookup = { ok: true; bwrap: string } | { ok: false; reason: SandboxUnavailable };

/** Where bubblewrap is looked for, in this order (NixOS's system profile last). */
export const SYSTEM_BWRAP_DIRS: readonly string[] = Object.freeze(["/usr/bin", "/bin", "/usr/sbin", "/sbin", "/usr/local/bin", "/usr/local/sbin", "/run/current-system/sw/bin"]);

/**
 * Tests only: other folders to look in instead (`:`-separated), each still held to the same ownership rule. It can
 * only come from the environment pi was started with, which a child cannot change.
 */
export const BWRAP_DIRS_ENV = "PI_SUBAGENT_BWRAP_DIRS";

/**
 * Owned by root and writable by nobody else: a file, and every folder from it up to `/` (a sticky folder, such as
 * `/tmp`, lets others add entries but not replace root's).
 */
function onlyRootCanChange(path: string): boolean {
  let current = path;
  for (;;) {
    const stats = statSync(current);
    const sticky = stats.isDirectory() && (stats.mode & 0o1000) !== 0;
    if (stats.uid !== 0 || ((stats.mode & 0o022) !== 0 && !sticky)) return false;
    const parent = dirname(current);
    if (parent === current) return true;
    current = parent;
  }
}

/** The first bwrap in `dirs` that is an executable file only root can change (links resolved). */
export function bwrapInSystemDirs(dirs: readonly string[] = SYSTEM_BWRAP_DIRS): string | undefined {
  for (const dir of dirs) {
    if (!dir.startsWith("/")) continue;
    try {
      const path = realpathSync(join(dir, "bwrap"));
      accessSync(path, constants.X_OK);
      if (statSync(path).isFile() && onlyRootCanChange(path)) return path;
    } catch {
      // not there, or not fit
    }
  }
  return undefined;
}

/** The folders to look in: the system's, or `PI_SUBAGENT_BWRAP_DIRS` when set. */
export function bwrapDirs(env: NodeJS.ProcessEnv = process.env): readonly string[] {
  const fromEnv = env[BWRAP_DIRS_ENV];
  return fromEnv === undefined ? SYSTEM_BWRAP_DIRS : fromEnv.split(":").filter((dir) => dir !== "");
}

const ISOLATED = "pi-subagent-sandbox-isolated";

/** A host folder the probe's sandbox binds read-only, and the probe's command line for it. */
function probeSetUp(): { dir: string; planted: string; args: string[] } {
  const dir = mkdtempSync(join(tmpdir(), "pi-subagent-probe-"));
  const planted = join(dir, "written");
  const script = `(true > '${planted}') 2>/dev/null && exit 3; echo ${ISOLATED}`;
  const args = ["--cap-drop", "ALL", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--ro-bind", dir, dir, "--", "/bin/sh", "-c", script];
  return { dir, planted, args };
}

interface ProbeRun {
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  error?: Error;
}

/** Undefined when the probe's sandbox really kept its read-only folder read-only; else what went wrong. */
function judgeProbe(dir: string, planted: string, result: ProbeRun): string | undefined {
  if (existsSync(planted) || readdirSync(dir).length > 0) return "a write inside its sandbox reached the host";
  if (result.status === 0 && result.stdout.trim() === ISOLATED) return undefined;
  const said = result.stderr.trim().split("\n")[0]?.trim();
  if (said) return said;
  if (result.error) return result.error.message;
  if (result.status === 3) return "a write inside its sandbox did not fail";
  return result.signal ? `it ended with ${result.signal}` : `it exited with ${result.status}`;
}

const PROBE_TIMEOUT_MS = 10_000;

/** Undefined when `bwrap` made a sandbox that really kept a read-only folder read-only; else what went wrong. */
function probe(bwrap: string): string | undefined {
  const { dir, planted, args } = probeSetUp();
  try {
    const result = spawnSync(bwrap, args, { encoding: "utf8", timeout: PROBE_TIMEOUT_MS, stdio: ["ignore", "pipe", "pipe"] });
    return judgeProbe(dir, planted, { status: result.status, signal: result.signal, stdout: result.stdout ?? "", stderr: result.stderr ?? "", ...(result.error ? { error: result.error } : {}) });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The same probe without blocking: bubblewrap starts while the dispatch reads its agents and config. */
function probeInBackground(bwrap: string): Promise<string | undefined> {
  const { dir, planted, args } = probeSetUp();
  return new Promise<ProbeRun>((resolve) => {
    let stdout = "";
    let stderr = "";
    let settled = false;
    const done = (run: Omit<ProbeRun, "stdout" | "stderr">) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...run, stdout, stderr });
    };
    const child = spawn(bwrap, args, { stdio: ["ignore", "pipe", "pipe"] });
    const timer = setTimeout(() => child.kill("SIGKILL"), PROBE_TIMEOUT_MS);
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.on("error", (error) => done({ status: null, signal: null, error }));
    child.on("close", (status, signal) => done({ status, signal }));
  }).then(
    (run) => judgeProbe(dir, planted, run),
  ).finally(() => rmSync(dir, { recursive: true, force: true }));
}

/** Each bwrap's probe outcome, once known (for the process: one probe each). */
function probeOutcomes(): Map<string, string | undefined> {
  return perProcess("sandbox-probe", () => new Map<string, string | undefined>());
}

/** Probes started ahead and not yet done, by bwrap path (this load's own). */
const probesUnderWay = new Map<string, Promise<void>>();

/**
 * Starts the probe of the bwrap findWorkingBwrap would use, without waiting, so that a dispatch that asked for a
 * sandbox finds it done: the same probe, kept alike. Resolves once it is done (at once when there is nothing to do).
 * findWorkingBwrap still decides; until this resolves it would probe again itself.
 */
export function probeAhead(dirs: readonly string[] = bwrapDirs(), platform: NodeJS.Platform = process.platform): Promise<void> {
  if (platform !== "linux") return Promise.resolve();
  const bwrap = bwrapInSystemDirs(dirs);
  if (!bwrap || probeOutcomes().has(bwrap)) return Promise.resolve();
  let underWay = probesUnderWay.get(bwrap);
  if (!underWay) {
    underWay = probeInBackground(bwrap)
      .then(
        (problem) => {
          probeOutcomes().set(bwrap, problem);
        },
        () => undefined, // could not even start it: findWorkingBwrap probes at the dispatch, as without this
      )
      .finally(() => probesUnderWay.delete(bwrap));
    probesUnderWay.set(bwrap, underWay);
  }
  return underWay;
}

export function findWorkingBwrap(dirs: readonly string[] = bwrapDirs(), platform: NodeJS.Platform = process.platform): BwrapLookup {
  if (platform !== "linux") return { ok: false, reason: { kind: "platform", platform } };
  const bwrap = bwrapInSystemDirs(dirs);
  if (!bwrap) return { ok: false, reason: { kind: "not-found", dirs } };
  const probes = probeOutcomes();
  if (!probes.has(bwrap)) probes.set(bwrap, probe(bwrap));
  const problem = probes.get(bwrap);
  return problem === undefined ? { ok: true, bwrap } : { ok: false, reason: { kind: "broken", bwrap, detail: problem } };
}
