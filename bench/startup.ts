/**
 * Start-up cost of the extension: the wall time of a whole `pi -p` run (start, one model call against the
 * local fake model, answer, exit) with the package installed by `pi install`, against the same run in an
 * identical pi set-up without it. Runs are interleaved (alternating which goes first) so that load from
 * anything else on the machine hits both sides alike, and the medians are compared.
 */
import { readFileSync } from "node:fs";
import { FakeModel, fakeDirective } from "../test/harness/fake-model.ts";
import { createPiEnv, REPO_ROOT, runPi, type PiEnv } from "../test/harness/pi-env.ts";
import { killProcessesWithMarker, waitForNoProcesses } from "../test/harness/processes.ts";

interface StartupBenchOptions {
  /** Measured runs per side (at least 10). */
  runs?: number;
  /** Largest acceptable slowdown, as a fraction (0.10 = the extension may add 10%). */
  maxOverhead?: number;
  log?: (line: string) => void;
}

interface SideStats {
  runs: number[];
  median: number;
  min: number;
  max: number;
}

interface StartupBenchResult {
  with: SideStats;
  without: SideStats;
  /** median(with) / median(without). */
  ratio: number;
  maxOverhead: number;
  ok: boolean;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

function stats(runs: number[]): SideStats {
  return { runs, median: median(runs), min: Math.min(...runs), max: Math.max(...runs) };
}

async function timedRun(env: PiEnv, label: string): Promise<number> {
  const answer = `bench answer ${label}`;
  const result = await runPi(["-p", "--no-session", `bench ${fakeDirective({ text: answer })}`], {
    env: env.env,
    cwd: env.workDir,
    timeoutMs: 60_000,
  });
  if (result.code !== 0 || result.stdout.trim() !== answer) {
    throw new Error(
      `pi -p (${label}) failed: exit ${result.code}, stdout ${JSON.stringify(result.stdout)}, stderr ${JSON.stringify(result.stderr.slice(0, 500))}`,
    );
  }
  return result.durationMs;
}

function formatStartupTable(result: StartupBenchResult): string {
  const row = (label: string, s: SideStats) =>
    `| ${label.padEnd(20)} | ${String(s.runs.length).padStart(4)} | ${s.median.toFixed(0).padStart(9)} | ${s.min.toFixed(0).padStart(6)} | ${s.max.toFixed(0).padStart(6)} |`;
  const overhead = (result.ratio - 1) * 100;
  return [
    "| pi -p                | runs | median ms | min ms | max ms |",
    "|----------------------|------|-----------|--------|--------|",
    row("without extension", result.without),
    row("with extension", result.with),
    "",
    `ratio with/without: ${result.ratio.toFixed(3)} (${overhead >= 0 ? "+" : ""}${overhead.toFixed(1)}%); target: at most +${(result.maxOverhead * 100).toFixed(0)}%: ${result.ok ? "met" : "NOT MET"}`,
  ].join("\n");
}

async function startupBench(options: StartupBenchOptions = {}): Promise<StartupBenchResult> {
  const runs = Math.max(10, options.runs ?? 12);
  const maxOverhead = options.maxOverhead ?? 0.1;
  const log = options.log ?? ((line: string) => console.log(line));
  const fake = await new FakeModel().start();
  const withExtension = createPiEnv({ baseUrl: fake.baseUrl, warmChildren: true });
  const without = createPiEnv({ baseUrl: fake.baseUrl, warmChildren: true });
  try {
    const install = await runPi(["install", REPO_ROOT], {
      env: withExtension.env,
      cwd: withExtension.workDir,
      timeoutMs: 90_000,
    });
    if (install.code !== 0) throw new Error(`pi install failed: ${install.stderr}`);
    const settings = JSON.parse(readFileSync(`${withExtension.agentDir}/settings.json`, "utf8")) as {
      packages?: unknown[];
    };
    if (!settings.packages?.length) throw new Error("pi install wrote no packages entry");

    // One discarded run each: the first run of a set-up pays one-off costs (transpile cache, auth.json).
    await timedRun(withExtension, "warm-up with");
    await timedRun(without, "warm-up without");

    const withRuns: number[] = [];
    const withoutRuns: number[] = [];
    for (let i = 0; i < runs; i++) {
      const order = i % 2 === 0 ? (["with", "without"] as const) : (["without", "with"] as const);
      for (const side of order) {
        if (side === "with") withRuns.push(await timedRun(withExtension, "with"));
        else withoutRuns.push(await timedRun(without, "without"));
      }
      log(`  run ${i + 1}/${runs}: with ${withRuns.at(-1)} ms, without ${withoutRuns.at(-1)} ms`);
    }
    const result: StartupBenchResult = {
      with: stats(withRuns),
      without: stats(withoutRuns),
      ratio: 0,
      maxOverhead,
      ok: false,
    };
    result.ratio = result.with.median / result.without.median;
    result.ok = result.ratio <= 1 + maxOverhead;
    return result;
  } finally {
    for (const env of [withExtension, without]) {
      if ((await waitForNoProcesses(env.marker, 5_000)).length > 0) killProcessesWithMarker(env.marker);
      env.cleanup();
    }
    await fake.stop();
  }
}

/** The `startup` section of `npm run bench`. */
export async function runStartupSection(): Promise<{ ok: boolean }> {
  const runs = process.env.BENCH_RUNS ? Number(process.env.BENCH_RUNS) : undefined;
  console.log(
    `Start-up: pi -p with and without the extension (${Math.max(10, runs ?? 12)} interleaved runs each, fake model)`,
  );
  const result = await startupBench(runs !== undefined && Number.isFinite(runs) ? { runs } : {});
  console.log("");
  console.log(formatStartupTable(result));
  return { ok: result.ok };
}
