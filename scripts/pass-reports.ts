/**
 * A vitest reporter for `npm test`'s one end-to-end run of both pis: it writes one JSON report per project (per
 * pi) into `PI_E2E_REPORTS_DIR`, in the shape of vitest's own JSON reporter that `scripts/test-summary.ts` and
 * `scripts/test-stress.ts` read. vitest's JSON reporter writes one report for the whole run and names no project,
 * so a failure could not say which pi it failed on.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Reporter, TestModule } from "vitest/node";

interface AssertionResult {
  fullName: string;
  status: string;
  tags: string[];
  duration: number | null;
  failureMessages: string[];
}

interface FileResult {
  name: string;
  status: string;
  message: string;
  assertionResults: AssertionResult[];
}

/** A test's state as vitest's JSON reporter names it. */
const STATUS: Record<string, string> = { passed: "passed", failed: "failed", skipped: "skipped", pending: "pending" };

function fileResult(module: TestModule): FileResult {
  const assertionResults = [...module.children.allTests()].map((test): AssertionResult => {
    const result = test.result();
    return {
      fullName: test.fullName,
      status: STATUS[result.state] ?? result.state,
      tags: [...test.tags],
      duration: test.diagnostic()?.duration ?? null,
      failureMessages: (result.errors ?? []).map((error) => error.stack ?? error.message),
    };
  });
  const moduleErrors = module.errors();
  return {
    name: module.moduleId,
    status: module.state() === "failed" || moduleErrors.length > 0 ? "failed" : "passed",
    message: moduleErrors.map((error) => error.stack ?? error.message).join("\n"),
    assertionResults,
  };
}

export default class PassReports implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const dir = process.env.PI_E2E_REPORTS_DIR;
    if (!dir) return;
    mkdirSync(dir, { recursive: true });
    const byProject = new Map<string, FileResult[]>();
    for (const module of testModules) {
      const name = module.project.name;
      byProject.set(name, [...(byProject.get(name) ?? []), fileResult(module)]);
    }
    for (const [project, testResults] of byProject) {
      const tests = testResults.flatMap((result) => result.assertionResults);
      const count = (status: string) => tests.filter((test) => test.status === status).length;
      const report = {
        numPassedTests: count("passed"),
        numFailedTests: count("failed"),
        numPendingTests: count("skipped") + count("pending"),
        numTodoTests: 0,
        testResults,
      };
      writeFileSync(join(dir, `${project}.json`), `${JSON.stringify(report, null, 1)}\n`);
    }
  }
}
