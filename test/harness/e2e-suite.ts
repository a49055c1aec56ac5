/**
 * The shared life cycle of an end-to-end test file: one fake model for the file, a fresh pi set-up for each
 * test (with the `worker` project agent most tests delegate to), a TUI that is always disposed, and every
 * process the test started killed before the next one. Call `useE2eSuite()` once at the top of a file (or of a
 * describe block) and use what it returns inside the tests.
 */
import { approveProjectAgent } from "./approve-agent.ts";
import { afterAll, afterEach, beforeAll } from "vitest";
import { FakeModel, type FakeRequest } from "./fake-model.ts";
import { createPiEnv, EXTENSION_ENTRY, type PiEnv } from "./pi-env.ts";
import { killProcessesWithMarker } from "./processes.ts";
import { TmuxPi, type TmuxPiOptions } from "./tmux.ts";

/** A line of the worker agent's body: requests whose system prompt has it come from a worker child. */
export const WORKER_BODY_MARKER = "WORKER-BODY-MARKER";
export const WORKER_BODY = `${WORKER_BODY_MARKER}: you are the test worker. Answer briefly.`;

/** The `worker` agent file; `extraFrontmatter` adds lines such as `tools: read, bash`. */
export function workerAgentFile(extraFrontmatter = ""): string {
  const extra = extraFrontmatter ? `${extraFrontmatter.trimEnd()}\n` : "";
  return `---\nname: worker\ndescription: A test worker agent\n${extra}---\n${WORKER_BODY}\n`;
}

export const isWorkerRequest = (req: FakeRequest): boolean => req.system.includes(WORKER_BODY_MARKER);

interface NewEnvOptions {
  /** Extra frontmatter lines of the worker agent. */
  workerFrontmatter?: string;
  /** Leave the worker agent out. */
  noWorker?: boolean;
  /** Do not record the person's first-use approval of the worker (the TUI then asks before its first run). */
  workerUnapproved?: boolean;
  /** Keep warm children on (see `PiEnvOptions.warmChildren`). */
  warmChildren?: boolean;
}

export interface E2eSuite {
  /** The file's fake model (reset after each test). */
  readonly fake: FakeModel;
  /** The current test's pi set-up (after `newEnv` or `startTui`). */
  readonly env: PiEnv;
  /** The current test's TUI, if it started one. */
  readonly tui: TmuxPi | undefined;
  newEnv(options?: NewEnvOptions): PiEnv;
  /**
   * Starts pi in tmux with the extension (`-e`) in the current env (made first when there is none);
   * `extraEnv` adds variables for this pi only (an `EDITOR`, say).
   */
  startTui(options?: Partial<Omit<TmuxPiOptions, "env" | "cwd">> & { extraEnv?: NodeJS.ProcessEnv }): Promise<TmuxPi>;
}

export function useE2eSuite(): E2eSuite {
  let fake: FakeModel | undefined;
  let env: PiEnv | undefined;
  let tui: TmuxPi | undefined;

  beforeAll(async () => {
    fake = await new FakeModel().start();
  });
  afterAll(async () => {
    await fake?.stop();
  });
  afterEach(async () => {
    await tui?.dispose();
    tui = undefined;
    if (env) {
      killProcessesWithMarker(env.marker);
      env.cleanup();
      env = undefined;
    }
    fake?.reset();
  });

  const suite: E2eSuite = {
    get fake() {
      if (!fake) throw new Error("e2e suite: the fake model is not started (use the suite inside tests)");
      return fake;
    },
    get env() {
      if (!env) throw new Error("e2e suite: no pi set-up yet (call newEnv first)");
      return env;
    },
    get tui() {
      return tui;
    },
    newEnv(options = {}) {
      env = createPiEnv({ baseUrl: suite.fake.baseUrl, warmChildren: options.warmChildren });
      if (!options.noWorker) {
        const file = env.writeWorkFile(".pi/agents/worker.md", workerAgentFile(options.workerFrontmatter));
        // The person approved this worker before (first-use trust), so a TUI test of another feature is not asked.
        if (!options.workerUnapproved) approveProjectAgent(env, file);
      }
      return env;
    },
    async startTui({ extraEnv, ...options } = {}) {
      const current = env ?? suite.newEnv();
      tui = await TmuxPi.start({
        args: ["-e", EXTENSION_ENTRY],
        ...options,
        env: { ...current.env, ...extraEnv },
        cwd: current.workDir,
      });
      return tui;
    },
  };
  return suite;
}
