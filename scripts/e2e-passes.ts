/**
 * The end-to-end passes of `npm test` and `npm run test:stress`: pi 1.x runs every end-to-end test; pi 0.73.1 runs
 * the tests tagged `contract` (what pi itself does: modes, dialogs, reload, trust, RPC, rendering, install, session
 * files, sandbox layout), since a test of our own logic proves nothing more on a second pi. They run side by side,
 * each output line labelled with its pi, or one after the other with `PI_E2E_ONE_AT_A_TIME=1` (for a machine with
 * one core, or to read one pass's output whole).
 */
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";

export interface E2ePass {
  label: string;
  /** The JSON report's name in the results folder. */
  report: string;
  env: Record<string, string>;
  /** The tag the pass is filtered on, if any. */
  tag?: string;
}

export const E2E_PASSES: readonly E2ePass[] = [
  { label: "pi 1.x", report: "e2e-pi-1.json", env: { PI_E2E_PI: "1" } },
  { label: "pi 0.73.1", report: "e2e-pi-0.73.json", env: { PI_E2E_PI: "0.73" }, tag: "contract" },
];

/** Runs a command to its end; each output line is prefixed with `label` when one is given. Resolves its exit code. */
export function runCommand(
  command: string,
  args: readonly string[],
  env: Record<string, string> = {},
  label?: string,
): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      env: { ...process.env, ...env },
      stdio: label ? ["ignore", "pipe", "pipe"] : "inherit",
    });
    if (label) {
      for (const stream of [child.stdout, child.stderr]) {
        if (stream)
          createInterface({ input: stream }).on("line", (line) => process.stdout.write(`[${label}] ${line}\n`));
      }
    }
    child.on("close", (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

export function vitestArgs(project: string, report: string, extra: readonly string[] = []): string[] {
  return [
    "vitest",
    "run",
    "--project",
    project,
    "--reporter=default",
    "--reporter=json",
    `--outputFile.json=${report}`,
    ...extra,
  ];
}

/** Runs both passes, writing their reports into `resultsDir`; the summary's arguments for them (`<report>@<tag>`). */
export async function runE2ePasses(resultsDir: string): Promise<string[]> {
  const args = (pass: E2ePass) =>
    vitestArgs("e2e", `${resultsDir}/${pass.report}`, pass.tag ? ["--tags-filter", pass.tag] : []);
  if (process.env.PI_E2E_ONE_AT_A_TIME === "1") {
    for (const pass of E2E_PASSES) await runCommand("npx", args(pass), pass.env);
  } else {
    await Promise.all(E2E_PASSES.map((pass) => runCommand("npx", args(pass), pass.env, pass.label)));
  }
  return E2E_PASSES.map((pass) => `${resultsDir}/${pass.report}${pass.tag ? `@${pass.tag}` : ""}`);
}
