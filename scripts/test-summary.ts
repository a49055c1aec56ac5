/**
 * Prints one closing line for the whole suite, `Tests: N passed, N failed, N skipped`, from the JSON reports
 * the vitest runs of `npm test` write (unit once, then end-to-end on pi 0.73.1 and on pi 1.x), so a CI log says
 * what ran in plain words; one line per report comes first. Each failed test is named again here, with the first
 * lines of its error and its file, because a CI log is often read from its end only. A report given as
 * `<file>@<tag>` came from a run filtered on that tag (pi 0.73.1 runs only the `contract` tests): its tests without
 * the tag are counted apart, as left to the other pass, not as skipped. A missing report (a run that never started)
 * fails.
 */
import { basename, relative } from "node:path";
import { existsSync, readFileSync } from "node:fs";

interface VitestAssertion {
  fullName: string;
  status: string;
  tags?: string[];
  failureMessages?: string[];
}

interface VitestFileResult {
  name: string;
  status: string;
  message?: string;
  assertionResults: VitestAssertion[];
}

interface VitestJsonReport {
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  numTodoTests: number;
  testResults?: VitestFileResult[];
}

const ERROR_LINES = 6;
const ANSI = /\u001b\[[0-9;]*m/g;

/** vitest's timeout error keeps the stack of a placeholder error, and its JSON report keeps only that stack. */
const TIMEOUT_PLACEHOLDER = /^Error: STACK_TRACE_ERROR/;

function firstLines(text: string): string {
  return text
    .replace(ANSI, "")
    .replace(TIMEOUT_PLACEHOLDER, "Error: timed out (the test or one of its hooks; vitest's report keeps no message)")
    .split("\n")
    .slice(0, ERROR_LINES)
    .map((line) => `        ${line}`)
    .join("\n");
}

let passed = 0;
let failed = 0;
let skipped = 0;
const failures: string[] = [];
for (const argument of process.argv.slice(2)) {
  const [file = argument, filterTag] = argument.split("@");
  if (!existsSync(file)) {
    console.error(`test summary: no report at ${file}`);
    process.exitCode = 1;
    continue;
  }
  const report = JSON.parse(readFileSync(file, "utf8")) as VitestJsonReport;
  const run = basename(file, ".json");
  const notRun = (test: VitestAssertion) =>
    test.status === "skipped" || test.status === "pending" || test.status === "todo";
  const leftOut =
    filterTag === undefined
      ? 0
      : (report.testResults ?? [])
          .flatMap((result) => result.assertionResults)
          .filter((test) => notRun(test) && !(test.tags ?? []).includes(filterTag)).length;
  const reportSkipped = report.numPendingTests + report.numTodoTests - leftOut;
  const leftOutText = filterTag === undefined ? "" : `; ${leftOut} not tagged ${filterTag}, left to the other pass`;
  console.log(
    `  ${run}: ${report.numPassedTests} passed, ${report.numFailedTests} failed, ${reportSkipped} skipped${leftOutText}`,
  );
  passed += report.numPassedTests;
  failed += report.numFailedTests;
  skipped += reportSkipped;
  for (const fileResult of report.testResults ?? []) {
    const where = relative(process.cwd(), fileResult.name);
    for (const test of fileResult.assertionResults) {
      if (test.status !== "failed") continue;
      failures.push(
        `    ${run} · ${where} › ${test.fullName}\n${firstLines(test.failureMessages?.[0] ?? "(no message)")}`,
      );
    }
    // A file that failed outside any test (a hook, an import) has no failed assertion to name.
    if (fileResult.status === "failed" && !fileResult.assertionResults.some((test) => test.status === "failed")) {
      failures.push(`    ${run} · ${where} (outside its tests)\n${firstLines(fileResult.message ?? "(no message)")}`);
    }
  }
}
if (failures.length > 0) console.log(`  failed:\n${failures.join("\n")}`);
console.log(`Tests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
if (failed > 0 || failures.length > 0) process.exitCode = 1;
