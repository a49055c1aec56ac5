/**
 * `npm run test:stress`: the end-to-end passes of `npm test` while a busy loop keeps one core taken, as a loaded
 * machine would. Every test that failed is named (the run fails), and every test that took more than twice its
 * quiet time, read from the last `npm test` run's reports in `.test-results/` (run `npm test` first on a quiet
 * machine to have them). The stressed run's reports go to `.test-results/stress/`, so the quiet ones stay.
 */
import { spawn } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { E2E_PASSES, runCommand, runE2ePasses } from "./e2e-passes.ts";

const QUIET = ".test-results";
const STRESSED = ".test-results/stress";
const SLOWER = 2;

interface Report {
  testResults?: { name: string; assertionResults: { fullName: string; status: string; duration?: number | null }[] }[];
}

/** Each test's duration in a report, by file and full name. */
function durations(file: string): Map<string, number> {
  const times = new Map<string, number>();
  if (!existsSync(file)) return times;
  const report = JSON.parse(readFileSync(file, "utf8")) as Report;
  for (const result of report.testResults ?? []) {
    // By the path inside the repository: the quiet run may have been made in another clone (CI's).
    const file = result.name.slice(result.name.lastIndexOf("/test/") + 1);
    for (const test of result.assertionResults)
      if (test.status === "passed" && typeof test.duration === "number")
        times.set(`${file} › ${test.fullName}`, test.duration);
  }
  return times;
}

rmSync(STRESSED, { recursive: true, force: true });
const burner = spawn(process.execPath, ["-e", "for (;;) {}"], { stdio: "ignore" });
const endBurner = () => burner.kill("SIGKILL");
process.on("exit", endBurner);
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => process.exit(130));
console.log(`test:stress: a busy loop (pid ${burner.pid}) keeps one core taken while the end-to-end passes run`);

const reports = await runE2ePasses(STRESSED);
endBurner();
const code = await runCommand("node", ["--import", "tsx", "scripts/test-summary.ts", ...reports]);

const slower: string[] = [];
let compared = 0;
for (const pass of E2E_PASSES) {
  const quiet = durations(`${QUIET}/${pass.project}.json`);
  for (const [test, stressed] of durations(`${STRESSED}/${pass.project}.json`)) {
    const before = quiet.get(test);
    if (before === undefined) continue;
    compared += 1;
    if (stressed > SLOWER * before)
      slower.push(`  ${pass.project} · ${test}: ${Math.round(stressed)} ms, quiet ${Math.round(before)} ms`);
  }
}
if (compared === 0)
  console.log(
    "test:stress: no quiet run's reports in .test-results/ share a test with this run (run npm test first, on a quiet machine)",
  );
else
  console.log(
    slower.length === 0
      ? `test:stress: no test took more than ${SLOWER}× its quiet time (${compared} compared)`
      : `test:stress: ${slower.length} of ${compared} tests took more than ${SLOWER}× their quiet time:\n${slower.join("\n")}`,
  );
process.exit(code);
