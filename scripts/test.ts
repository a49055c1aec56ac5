/**
 * `npm test`: the type check and the unit tests side by side, then the end-to-end passes on both pis
 * (scripts/e2e-passes.ts), then one summary (scripts/test-summary.ts) whose exit code is the run's.
 */
import { rmSync } from "node:fs";
import { runCommand, runE2ePasses, vitestArgs } from "./e2e-passes.ts";

const RESULTS = ".test-results";

rmSync(RESULTS, { recursive: true, force: true });
// The type check (one core) beside the unit tests; a type error ends the run before the end-to-end passes, while a
// failed unit test lets them run, so that the summary names every failure at once.
const [typecheck] = await Promise.all([runCommand("npx", ["tsc", "--noEmit"], {}, "typecheck"), runCommand("npx", vitestArgs("unit", `${RESULTS}/unit.json`))]);
if (typecheck !== 0) {
  console.log("npm test: the type check failed (above, lines marked [typecheck]); the end-to-end tests were not run.");
  process.exit(1);
}
const reports = await runE2ePasses(RESULTS);
process.exit(await runCommand("node", ["--import", "tsx", "scripts/test-summary.ts", `${RESULTS}/unit.json`, ...reports]));
