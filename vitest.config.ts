import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineConfig } from "vitest/config";

// Two projects: fast unit tests of the pure core run in parallel; end-to-end tests start real pi
// processes (and tmux), so their files run one at a time with generous timeouts on a 2-core machine.
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
        },
      },
      {
        test: {
          name: "e2e",
          include: ["test/e2e/**/*.test.ts"],
          // What a test proves and costs (test/README.md, "Tags"): `--tags-filter` picks a set, as `npm test` does for
          // pi 0.73.1, which runs only the contract tests.
          tags: [
            {
              name: "contract",
              description:
                "a contract with pi (modes, dialogs, reload, trust, RPC, rendering, install, session files, sandbox layout): runs on both pis",
            },
            { name: "tui", description: "drives pi's interactive TUI in tmux" },
            { name: "slow", description: "takes 8 s or more on a quiet 2-core machine" },
          ],
          fileParallelism: false,
          // Bounds for a test that hangs, not for a slow one: every wait inside a test has its own, and a loaded machine
          // (the two pis' passes side by side on 2 cores) may take several times a quiet run's time.
          testTimeout: 300_000,
          hookTimeout: 120_000,
          // pi 1.x's bin turns on Node's compile cache (in its default folder, as for anyone running `pi`); the tests keep
          // theirs apart, here. Node 20 (pi 0.73.1) has no compile cache and ignores the variable.
          env: { NODE_COMPILE_CACHE: join(tmpdir(), "pi-subagent-dispatch-e2e-compile-cache") },
        },
      },
    ],
  },
});
