import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineConfig } from "vitest/config";

// Two projects: fast unit tests of the pure core run in parallel; end-to-end tests start real pi
// processes (and tmux), so their files run one at a time with generous timeouts on a 2-core machine.
export default defineConfig({
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
          fileParallelism: false,
          testTimeout: 120_000,
          hookTimeout: 60_000,
          // Node 22 (pi 1.x) keeps the compiled code of pi's modules here between the suite's hundreds of pi starts
          // (about 15% of each start); Node 20 ignores it. Only the tests set it: the bench measures pi as people run it.
          env: { NODE_COMPILE_CACHE: join(tmpdir(), "pi-subagent-dispatch-e2e-compile-cache") },
        },
      },
    ],
  },
});
