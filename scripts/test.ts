/**
 * `npm test`: the house checks (the type check, the formatter's check, knip's unused files, exports and
 * dependencies) beside the unit tests, then the end-to-end passes on both pis (scripts/e2e-passes.ts), then one
 * summary (scripts/test-summary.ts) whose exit code is the run's.
 */
import { rmSync } from "node:fs";
import { runCommand, runE2ePasses, vitestArgs } from "./e2e-passes.ts";

const RESULTS = ".test-results";

rmSync(RESULTS, { recursive: true, force: true });
/** The house checks, one after another on one core: each names itself on its lines, and the first to fail stops. */
const HOUSE_CHECKS: ReadonlyArray<{ label: string; what: string; command: string[] }> = [
  { label: "typecheck", what: "the type check", command: ["tsc", "--noEmit"] },
  {
    label: "format",
    what: "the formatter's check (npm run format rewrites the files)",
    command: ["biome", "format", "."],
  },
  { label: "knip", what: "knip (unused files, exports or dependencies)", command: ["knip"] },
];

async function houseChecks(): Promise<string | undefined> {
  for (const check of HOUSE_CHECKS) {
    if ((await runCommand("npx", check.command, {}, check.label)) !== 0)
      return `${check.what} failed (above, lines marked [${check.label}])`;
  }
  return undefined;
}

// The house checks beside the unit tests; a failed check ends the run before the end-to-end passes, while a failed
// unit test lets them run, so that the summary names every failure at once.
const [houseFailure] = await Promise.all([
  houseChecks(),
  runCommand("npx", vitestArgs("unit", `${RESULTS}/unit.json`)),
]);
if (houseFailure) {
  console.log(`npm test: ${houseFailure}; the end-to-end tests were not run.`);
  process.exit(1);
}
const reports = await runE2ePasses(RESULTS);
process.exit(
  await runCommand("node", ["--import", "tsx", "scripts/test-summary.ts", `${RESULTS}/unit.json`, ...reports]),
);
