/**
 * A throw-away pi installation for one test: its own PI_CODING_AGENT_DIR (models.json and settings.json
 * pointing at the fake model), its own work dir, and a unique marker in the environment of every process it
 * starts, so the test can find anything left behind (children and grandchildren inherit the marker).
 */
import { spawn } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { randomUUID } from "node:crypto";
import { piUnderTest, withPiPath } from "./pi-under-test.ts";

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
export const EXTENSION_ENTRY = join(REPO_ROOT, "extension.ts");
/** The pi under test (`PI_E2E_PI`, see pi-under-test.ts): which CLI entry and which node run it. */
export const PI = piUnderTest();
/** The pi CLI entry under test (the same file the `pi` bin links to). */
export const PI_CLI = PI.cli;
/** The node binary that runs the pi under test. */
export const PI_NODE = PI.node;
export const MARKER_VAR = "PI_SUBAGENT_TEST_MARKER";

export interface PiEnvOptions {
  /** Base URL of the fake model (http://127.0.0.1:PORT/v1). */
  baseUrl: string;
  /** Extra settings.json keys. */
  settings?: Record<string, unknown>;
  /**
   * Keep pi 1.x's warm children on, as they are for a person (src/warm/warm-pool.ts). Off by default here: each
   * delegation's end starts a waiting child, which every test's check for processes left behind would count;
   * `test/e2e/warm-children.test.ts`, the bench and the demo turn them on.
   */
  warmChildren?: boolean;
}

export interface PiEnv {
  root: string;
  agentDir: string;
  workDir: string;
  marker: string;
  env: NodeJS.ProcessEnv;
  /** Writes a file relative to the work dir (creating folders). */
  writeWorkFile(relativePath: string, content: string): string;
  /** Writes a file relative to the agent dir (creating folders). */
  writeAgentDirFile(relativePath: string, content: string): string;
  cleanup(): void;
}

export const FAKE_PROVIDER = "fake";
export const FAKE_MODEL = "fake-model";
/** A model that supports reasoning, so the thinking level shows up as `reasoning_effort` in requests. */
export const FAKE_REASONER = "fake-reasoner";

export function modelsJson(baseUrl: string): string {
  const cost = { input: 1, output: 2, cacheRead: 0, cacheWrite: 0 };
  return JSON.stringify(
    {
      providers: {
        [FAKE_PROVIDER]: {
          baseUrl,
          api: "openai-completions",
          apiKey: "fake-key",
          compat: { supportsDeveloperRole: false, supportsReasoningEffort: true },
          models: [
            { id: FAKE_MODEL, name: "Fake", reasoning: false, contextWindow: 128000, maxTokens: 4096, cost },
            {
              id: FAKE_REASONER,
              name: "Fake Reasoner",
              reasoning: true,
              thinkingLevelMap: { xhigh: "xhigh" },
              contextWindow: 128000,
              maxTokens: 4096,
              cost,
            },
          ],
        },
      },
    },
    null,
    2,
  );
}

export function createPiEnv(options: PiEnvOptions): PiEnv {
  const root = mkdtempSync(join(tmpdir(), "pi-subagent-test-"));
  const agentDir = join(root, "agent");
  const workDir = join(root, "work");
  const home = join(root, "home");
  for (const dir of [agentDir, workDir, home]) mkdirSync(dir, { recursive: true });
  writeFileSync(join(agentDir, "models.json"), modelsJson(options.baseUrl));
  writeFileSync(
    join(agentDir, "settings.json"),
    JSON.stringify(
      {
        defaultProvider: FAKE_PROVIDER,
        defaultModel: FAKE_MODEL,
        quietStartup: true,
        retry: { enabled: false, provider: { maxRetries: 0 } },
        ...options.settings,
      },
      null,
      2,
    ),
  );
  const marker = randomUUID();
  // The pi under test's node goes first on PATH, so pi's children (ours and its tools') run on it too.
  const env: NodeJS.ProcessEnv = withPiPath({ ...process.env }, PI);
  // Nothing from the developer's own pi set-up or from an outer subagent may leak into a test.
  for (const key of Object.keys(env)) {
    if (key.startsWith("PI_")) delete env[key];
  }
  Object.assign(env, {
    PI_CODING_AGENT_DIR: agentDir,
    PI_OFFLINE: "1",
    HOME: home,
    [MARKER_VAR]: marker,
  });
  if (!options.warmChildren) env.PI_SUBAGENT_WARM_CHILDREN = "0";
  const writeUnder = (base: string) => (relativePath: string, content: string) => {
    const path = join(base, relativePath);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, content);
    return path;
  };
  return {
    root,
    agentDir,
    workDir,
    marker,
    env,
    writeWorkFile: writeUnder(workDir),
    writeAgentDirFile: writeUnder(agentDir),
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  durationMs: number;
  timedOut: boolean;
}

export interface RunOptions {
  env: NodeJS.ProcessEnv;
  cwd: string;
  timeoutMs?: number;
  /** Extra environment on top of `env`. */
  extraEnv?: NodeJS.ProcessEnv;
  /** Called with the child's pid once it runs (to signal it from a test). */
  onSpawn?: (pid: number) => void;
  /** Called with every stdout chunk (to wait for a line while it runs). */
  onStdout?: (chunk: string) => void;
}

/**
 * Runs a command in its own process group and collects its output. On timeout the whole group is killed,
 * so a hung pi never outlives the test.
 */
export function runProcess(command: string, args: string[], options: RunOptions): Promise<RunResult> {
  const started = Date.now();
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: { ...options.env, ...options.extraEnv },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
      options.onStdout?.(chunk);
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    if (child.pid !== undefined) options.onSpawn?.(child.pid);
    const timer = setTimeout(() => {
      timedOut = true;
      if (child.pid !== undefined) {
        try {
          process.kill(-child.pid, "SIGKILL");
        } catch {
          // already gone
        }
      }
    }, options.timeoutMs ?? 60_000);
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolvePromise({ code, signal, stdout, stderr, durationMs: Date.now() - started, timedOut });
    });
  });
}

/**
 * pi's own permission gate (`examples/extensions/permission-gate.ts` of the pi under test) in `env`'s agent dir, so the
 * main pi and every child (which inherits the agent dir) ask before a dangerous command; and a `build` folder holding
 * a file in the work dir, for a worker to be asked to remove. Returns that folder.
 */
export function withPermissionGate(env: PiEnv): string {
  mkdirSync(join(env.agentDir, "extensions"), { recursive: true });
  copyFileSync(
    join(PI.packageRoot, "examples", "extensions", "permission-gate.ts"),
    join(env.agentDir, "extensions", "permission-gate.ts"),
  );
  const dir = join(env.workDir, "build");
  mkdirSync(dir);
  writeFileSync(join(dir, "artifact.o"), "x");
  return dir;
}

/** Runs the real pi CLI under test (a devDependency) with the given arguments. */
export function runPi(args: string[], options: RunOptions): Promise<RunResult> {
  return runProcess(PI_NODE, [PI_CLI, ...args], options);
}

/** Parses JSON-mode output into events (skips lines that are not JSON). */
export function parseJsonLines(stdout: string): Array<Record<string, unknown>> {
  const events: Array<Record<string, unknown>> = [];
  for (const line of stdout.split("\n")) {
    if (!line.trim()) continue;
    try {
      events.push(JSON.parse(line) as Record<string, unknown>);
    } catch {
      // not an event line
    }
  }
  return events;
}
