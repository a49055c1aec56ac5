/**
 * Prints one closing line for the whole suite, `Tests: N passed, N failed, N skipped`, from the JSON reports
 * the vitest runs of `npm test` write (unit once, then end-to-end on pi 0.73.1 and on pi 1.x), so a CI log says
 * what ran in plain words; one line per report comes first. A missing report (a run that never started) fails.
 */
import { basename } from "node:path";
import { existsSync, readFileSync } from "node:fs";

interface VitestJsonReport {
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  numTodoTests: number;
}

let passed = 0;
let failed = 0;
let skipped = 0;
for (const file of process.argv.slice(2)) {
  if (!existsSync(file)) {
    console.error(`test summary: no report at ${file}`);
    process.exitCode = 1;
    continue;
  }
  const report = JSON.parse(readFileSync(file, "utf8")) as VitestJsonReport;
  const reportSkipped = report.numPendingTests + report.numTodoTests;
  console.log(`  ${basename(file, ".json")}: ${report.numPassedTests} passed, ${report.numFailedTests} failed, ${reportSkipped} skipped`);
  passed += report.numPassedTests;
  failed += report.numFailedTests;
  skipped += report.numPendingTests + report.numTodoTests;
}
console.log(`Tests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
if (failed > 0) process.exitCode = 1;
