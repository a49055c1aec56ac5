/**
 * A `pi -p` delegation held mid-run: pi is started with the extension and a prompt whose child runs a long
 * `sleep 300`, and this resolves once the child's bash has touched `startedFile` and its sleep is running. The
 * tests that kill pi or its child hard (fault paths, child death, a continued session after a kill) start here.
 */
import { EXTENSION_ENTRY, runPi, type PiEnv, type RunResult } from "./pi-env.ts";
import { waitForFile, waitForProcess } from "./processes.ts";

export interface HeldRun {
  /** The `pi -p` process's pid. */
  piPid: number;
  /** Its end, as runPi reports it. */
  run: Promise<RunResult>;
}

export async function startHeldDelegation(env: PiEnv, prompt: string, startedFile: string): Promise<HeldRun> {
  let piPid = 0;
  const run = runPi(["-e", EXTENSION_ENTRY, "-p", prompt], {
    env: env.env,
    cwd: env.workDir,
    timeoutMs: 120_000,
    onSpawn: (pid) => (piPid = pid),
  });
  await waitForFile(startedFile, 90_000);
  await waitForProcess(env.marker, "sleep 300", 10_000);
  return { piPid, run };
}
