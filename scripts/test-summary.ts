/**
 * Prints one closing line for the whole suite, `Tests: N passed, N failed, N skipped`, from the JSON reports
 * the two vitest runs of `npm test` write (unit, then end-to-end), so a CI log says what ran in plain words.
 */
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
  passed += report.numPassedTests;
  failed += report.numFailedTests;
  skipped += report.numPendingTests + report.numTodoTests;
}
console.log(`Tests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
if (failed > 0) process.exitCode = 1;
