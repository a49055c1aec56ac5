/**
 * `npm run bench`: runs each benchmark section in turn and prints its table. `npm run bench -- <name> ...`
 * runs only the named sections. Exits 1 when a section misses its target.
 *
 * Add a section by writing `bench/<name>.ts` exporting an async function that prints its own report and
 * returns `{ ok }`, and listing it below.
 */
import { runStartupSection } from "./startup.ts";
import { runRunnerSection } from "./runner.ts";
import { runDispatchSection } from "./dispatch.ts";
import { runVersusSection } from "./versus.ts";
import { runLiveChildrenSection } from "./live-children.ts";
import { runBudgetsSection } from "./budgets.ts";
import { runLoadSection } from "./load.ts";
import { runWarmSection } from "./warm.ts";

interface BenchSection {
  name: string;
  run: () => Promise<{ ok: boolean }>;
  /** Runs only when named (`npm run bench -- <name>`), to keep the default run to a few minutes. */
  onlyWhenNamed?: boolean;
}

const SECTIONS: BenchSection[] = [
  { name: "versus", run: runVersusSection },
  { name: "startup", run: runStartupSection, onlyWhenNamed: true },
  { name: "runner", run: runRunnerSection, onlyWhenNamed: true },
  { name: "dispatch", run: runDispatchSection, onlyWhenNamed: true },
  { name: "warm", run: runWarmSection },
  { name: "live-children", run: runLiveChildrenSection },
  { name: "budgets", run: () => runBudgetsSection() },
  { name: "load", run: () => runLoadSection(), onlyWhenNamed: true },
];

// Section names, without the flags a section reads itself (`--tree <dir>` for `load`).
const wanted = process.argv.slice(2).filter((arg, index, all) => arg !== "--tree" && all[index - 1] !== "--tree");
const unknown = wanted.filter((name) => !SECTIONS.some((section) => section.name === name));
if (unknown.length > 0) {
  console.error(
    `Unknown bench section(s): ${unknown.join(", ")}. Sections: ${SECTIONS.map((s) => s.name).join(", ")}.`,
  );
  process.exit(2);
}

let failed = 0;
for (const section of SECTIONS) {
  if (wanted.length > 0 ? !wanted.includes(section.name) : section.onlyWhenNamed) continue;
  console.log(`\n== ${section.name} ==`);
  try {
    const { ok } = await section.run();
    if (!ok) failed++;
  } catch (error) {
    failed++;
    console.error(`${section.name} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  }
}
process.exitCode = failed > 0 ? 1 : 0;
