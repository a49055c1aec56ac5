import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineConfig, type TestProjectInlineConfiguration } from "vitest/config";
import { E2E_PASSES, type E2ePass } from "./scripts/e2e-passes.ts";

/**
 * `npm test` sets this: the end-to-end tests run as one project per pi (pi 1.x every test, pi 0.73.1 the `contract`
 * ones), in one vitest run whose two workers take the next file of either pi as each finishes — the longest files
 * first — so both cores stay busy to the end. Without it there is one `e2e` project, for the pi `PI_E2E_PI` names.
 */
const E2E_SIDE_BY_SIDE = process.env.PI_E2E_SIDE_BY_SIDE === "1";

const E2E_TAGS = [
  {
    name: "contract",
    description:
      "a contract with pi (modes, dialogs, reload, trust, RPC, rendering, install, session files, sandbox layout): runs on both pis",
  },
  { name: "tui", description: "drives pi's interactive TUI in tmux" },
  { name: "slow", description: "takes 8 s or more on a quiet 2-core machine" },
];

function e2eProject(options: {
  name: string;
  env?: Record<string, string>;
  maxWorkers?: number;
  tagsFilter?: string[];
}): TestProjectInlineConfiguration {
  return {
    test: {
      name: options.name,
      include: ["test/e2e/**/*.test.ts"],
      // What a test proves and costs (test/README.md, "Tags"): `--tags-filter` picks a set.
      tags: E2E_TAGS,
      // One file at a time by default: each test starts real pi processes (and tmux) on a 2-core machine.
      maxWorkers: options.maxWorkers ?? 1,
      // A worker runs file after file without starting afresh (no test changes process state it does not restore):
      // about 0.15 s of a new worker and its imports saved per file, on a machine whose cores are the bottleneck.
      isolate: false,
      // After the unit project when a run has both (projects with other worker counts need their own group).
      sequence: { groupOrder: 1 },
      // A project's own tag filter: vitest reads it per project at run time, though its types list it as global.
      ...(options.tagsFilter ? ({ tagsFilter: options.tagsFilter } as object) : {}),
      // Bounds for a test that hangs, not for a slow one: every wait inside a test has its own, and a loaded machine
      // may take several times a quiet run's time.
      testTimeout: 300_000,
      hookTimeout: 120_000,
      // pi 1.x's bin turns on Node's compile cache (in its default folder, as for anyone running `pi`); the tests keep
      // theirs apart, here. Node 20 (pi 0.73.1) has no compile cache and ignores the variable.
      env: { NODE_COMPILE_CACHE: join(tmpdir(), "pi-subagent-dispatch-e2e-compile-cache"), ...options.env },
    },
  };
}

/** One pi's project in `npm test`'s run; `PI_E2E_ONE_AT_A_TIME=1` keeps it to one file at a time on the machine. */
function e2ePassProject(pass: E2ePass): TestProjectInlineConfiguration {
  return e2eProject({
    name: pass.project,
    env: pass.env,
    maxWorkers: process.env.PI_E2E_ONE_AT_A_TIME === "1" ? 1 : 2,
    tagsFilter: pass.tag ? [pass.tag] : undefined,
  });
}

// Fast unit tests of the pure core run in parallel; end-to-end tests start real pi processes (and tmux), with
// generous timeouts on a 2-core machine.
export default defineConfig({
  // vitest's results cache (file durations, for its run order) out of node_modules/.vite: node_modules may be
  // hard-linked between checkouts, so every run rewrote one shared file. npm test starts without one, as CI does.
  cacheDir: ".test-results/vite-cache",
  test: {
    projects: [
      {
        test: {
          name: "unit",
          include: ["test/unit/**/*.test.ts"],
          testTimeout: 20_000,
          // One module graph per worker instead of one per file: the files import pi's packages, whose loading cost
          // more than all the unit tests together (108 s isolated vs 32 s shared on 2 cores). Tests that touch
          // process.env, timers or module state restore them in afterEach.
          isolate: false,
          // Two workers although npm test runs the house checks beside them: those end after about 40 s, and one
          // worker would leave a core idle for the rest (56 s instead of 67 s on 2 cores).
          maxWorkers: 2,
        },
      },
      ...(E2E_SIDE_BY_SIDE ? E2E_PASSES.map(e2ePassProject) : [e2eProject({ name: "e2e" })]),
    ],
  },
});
