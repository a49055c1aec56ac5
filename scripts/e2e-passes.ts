/**
 * The end-to-end passes of `npm test` and `npm run test:stress`: pi 1.x runs every end-to-end test; pi 0.73.1 runs
 * the tests tagged `contract` (what pi itself does: modes, dialogs, reload, trust, RPC, rendering, install, session
 * files, sandbox layout), since a test of our own logic proves nothing more on a second pi. Both are projects of one
 * vitest run (vitest.config.ts, `PI_E2E_SIDE_BY_SIDE`) whose two workers take the next file of either pi, longest
 * first, so neither core waits for the other pass; each file's line names its pass, and `scripts/pass-reports.ts`
 * writes one report per pass. `PI_E2E_ONE_AT_A_TIME=1` runs one file at a time (a machine with one core).
 */
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";

export interface E2ePass {
  /** The vitest project's name, shown on each of its files' lines; its JSON report is `<project>.json`. */
  project: string;
  env: Record<string, string>;
  /** The tag the pass is filtered on, if any. */
  tag?: string;
}

export const E2E_PASSES: readonly E2ePass[] = [
  { project: "e2e-pi-1", env: { PI_E2E_PI: "1" } },
  { project: "e2e-pi-0.73", env: { PI_E2E_PI: "0.73" }, tag: "contract" },
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
  const projects = E2E_PASSES.flatMap((pass) => ["--project", pass.project]);
  await runCommand(
    "npx",
    ["vitest", "run", ...projects, "--reporter=default", "--reporter=./scripts/pass-reports.ts"],
    {
      PI_E2E_SIDE_BY_SIDE: "1",
      PI_E2E_REPORTS_DIR: resultsDir,
    },
  );
  return E2E_PASSES.map((pass) => `${resultsDir}/${pass.project}.json${pass.tag ? `@${pass.tag}` : ""}`);
}
