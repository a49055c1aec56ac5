/**
 * `npm test`: the type check, the unit tests, then the end-to-end passes on both pis (scripts/e2e-passes.ts), then
 * one summary (scripts/test-summary.ts) whose exit code is the run's.
 */
import { rmSync } from "node:fs";
import { runCommand, runE2ePasses, vitestArgs } from "./e2e-passes.ts";

const RESULTS = ".test-results";

rmSync(RESULTS, { recursive: true, force: true });
if ((await runCommand("npx", ["tsc", "--noEmit"])) !== 0) process.exit(1);
// A failed unit run still lets the end-to-end passes run: the summary names every failure at once.
await runCommand("npx", vitestArgs("unit", `${RESULTS}/unit.json`));
const reports = await runE2ePasses(RESULTS);
process.exit(await runCommand("node", ["--import", "tsx", "scripts/test-summary.ts", `${RESULTS}/unit.json`, ...reports]));
