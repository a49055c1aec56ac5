/**
 * Runs one `verify` check command (src/run/verify.ts builds its command line): in the child's working folder, in
 * a process group of its own, tracked so that pi's exit ends it, ended by its tree when it runs past its time
 * limit. Its stdout and stderr are kept together, only their end (VERIFY_OUTPUT_CHARS).
 */
import { spawn } from "node:child_process";
import { openHandedFiles } from "../sandbox/handed-files.ts";
import { claimMountPoints } from "../sandbox/mount-points.ts";
import { DEFAULT_GRACE_MS, terminateTree, trackChild, untrackChild, type TreeTermination } from "./processes.ts";
import { boundedOutput, VERIFY_OUTPUT_CHARS, type CheckCommandLine, type CheckRun } from "./verify.ts";

/** How long its pipes may stay open after it exited (something it started may hold them). */
const DRAIN_AFTER_EXIT_MS = 2000;

function killGroupQuietly(pid: number): void {
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // the group is gone already
  }
}

/** Kept while it runs: a little more than is shown, so the cut note counts what was dropped. */
const KEPT_CHARS = VERIFY_OUTPUT_CHARS * 2;

export function runCheckCommand(
  command: string,
  line: CheckCommandLine,
  cwd: string,
  timeoutMs: number,
): Promise<CheckRun> {
  return new Promise((resolve) => {
    let output = "";
    let cut = 0;
    const keep = (chunk: string) => {
      output += chunk;
      if (output.length > KEPT_CHARS) {
        cut += output.length - KEPT_CHARS;
        output = output.slice(-KEPT_CHARS);
      }
    };
    const bounded = () => {
      const text = boundedOutput(output);
      return cut > 0 && !text.startsWith("[…") ? `[… earlier output cut]\n${text}` : text;
    };
    const mountPointClaim = claimMountPoints(line.mountPoints ?? []);
    const handed = openHandedFiles(line.handIn ?? []);
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(line.command, line.args, {
        cwd,
        env: line.env,
        stdio: ["ignore", "pipe", "pipe", ...handed.fds],
        detached: true,
      });
    } catch (error) {
      mountPointClaim.release();
      resolve({ command, exitCode: null, error: (error as Error).message, output: "" });
      return;
    } finally {
      handed.close();
    }
    const pid = child.pid;
    if (pid !== undefined) trackChild(pid);
    let timedOut = false;
    let termination: TreeTermination | undefined;
    const timer = setTimeout(() => {
      timedOut = true;
      if (pid !== undefined) termination ??= terminateTree(pid, DEFAULT_GRACE_MS);
    }, timeoutMs);
    timer.unref();
    child.stdout?.setEncoding("utf8").on("data", keep);
    child.stderr?.setEncoding("utf8").on("data", keep);
    let settled = false;
    const finish = (result: Omit<CheckRun, "command" | "output">) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (pid !== undefined) untrackChild(pid);
      termination?.rootExited();
      mountPointClaim.release();
      resolve({ command, ...result, output: bounded() });
    };
    child.on("error", (error) => finish({ exitCode: null, error: error.message }));
    child.on("exit", (exitCode, signal) => {
      const result = { exitCode, ...(signal ? { signal } : {}), ...(timedOut ? { timedOut: true } : {}) };
      // What it left running in its group (`cmd &`) ends with it; its pipes get a moment to drain, not more.
      if (pid !== undefined) killGroupQuietly(pid);
      const drain = setTimeout(() => {
        child.stdout?.destroy();
        child.stderr?.destroy();
        finish(result);
      }, DRAIN_AFTER_EXIT_MS);
      drain.unref();
      child.once("close", () => {
        clearTimeout(drain);
        finish(result);
      });
    });
  });
}
