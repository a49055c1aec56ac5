/**
 * The `warm` section of `npm run bench` (issue 40): warm children on pi 1.x against pi's official subagent example on
 * the same pi, paired rounds, the local fake model. Each run is one `pi -p` session whose model delegates twice: a
 * first delegation (cold for both), then, once the main model "has thought" (its answer is held until our warm child
 * has finished starting, as a real model's seconds would let it), a second one. Measured from the fake model's own
 * clock: from the moment the main model's tool call has been sent to the moment the main model is asked again with
 * the result (a delegation's wall time), and to the child's first model request.
 *  - a warm delegation (the second in a session) ÷ the official example's second delegation;
 *  - the tool call → the child's first model request, warm (ours, second) and cold (ours, first; official, second);
 *  - a batch of 4 and of 8 parts of the same agent as the second delegation (one part warm: one child waits a
 *    shape), ÷ the official example's parallel mode;
 *  - resident memory of one waiting child (its whole tree), and the peak memory of the largest process of the session
 *    with warm children on ÷ off (ours both).
 * `BENCH_ROUNDS` (default 5) sets the rounds. pi 0.73.1 has no warm children: not measured.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { FakeModel, fakeDirective, type FakeAction, type FakeRequest } from "../test/harness/fake-model.ts";
import { createPiEnv, EXTENSION_ENTRY, runProcess, type PiEnv } from "../test/harness/pi-env.ts";
import { piUnderTest, withPiPath, type PiUnderTest } from "../test/harness/pi-under-test.ts";
import { killProcessesWithMarker, processesWithMarker, waitForNoProcesses } from "../test/harness/processes.ts";
import { median } from "./startup.ts";
import { pair } from "./versus.ts";
import { isTaskId } from "../src/shared/nesting.ts";

const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 5));
const TIME = "/usr/bin/time";
const WORKER_BODY = "You are the bench worker. Answer briefly.";
const WORKER = `---\nname: worker\ndescription: Bench worker\n---\n${WORKER_BODY}\n`;

/** Issue 40's budgets. */
const GOALS = {
  /** A warm delegation's tool call → its child's first model request, median ms. */
  warmFirstRequestMs: 150,
  /** A warm delegation ÷ the official example's, paired. */
  warmDelegation: 0.5,
  /** One waiting child's resident memory. */
  idleMiB: 140,
  /** The session's peak memory, warm children on minus off. */
  parentOverMiB: 3,
};

interface Session {
  /** Tool call sent → the result back at the main model, of the second delegation. */
  secondMs: number;
  /** Tool call sent → the first request of the child serving the first delegation. */
  firstCallToRequestMs: number;
  /** The same, for the second delegation (its first part, for a batch). */
  secondCallToRequestMs: number;
  /** One waiting child's resident memory (ours, warm on), KiB. */
  warmRssKiB?: number;
  /** GNU time's maximum resident set size of the session. */
  peakKiB: number;
}

/** CPU time (utime + stime, in ticks) of a process, or undefined once it is gone. */
function cpuTicks(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return undefined;
  }
}

function rssKiB(pid: number): number {
  try {
    return Number(/^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "latin1"))?.[1] ?? 0);
  } catch {
    return 0;
  }
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Waits for this env's waiting child (its folder's `warm.lock`) and until it has finished starting (its CPU time no
 * longer grows); returns its resident memory with that of the processes it started.
 */
async function warmChildReady(env: PiEnv): Promise<number | undefined> {
  const deadline = Date.now() + 20_000;
  const sessions = join(env.agentDir, "subagent-sessions");
  let id: string | undefined;
  while (!id && Date.now() < deadline) {
    id = existsSync(sessions)
      ? readdirSync(sessions).find((name) => isTaskId(name) && existsSync(join(sessions, name, "warm.lock")))
      : undefined;
    if (!id) await pause(20);
  }
  if (!id) return undefined;
  const tree = () =>
    processesWithMarker(env.marker).filter((p) => {
      try {
        return readFileSync(`/proc/${p.pid}/environ`, "latin1").split("\0").includes(`PI_SUBAGENT_TASK_ID=${id}`);
      } catch {
        return false;
      }
    });
  let last = -1;
  while (Date.now() < deadline) {
    const total = tree().reduce((sum, p) => sum + (cpuTicks(p.pid) ?? 0), 0);
    if (total === last && total > 0) break;
    last = total;
    await pause(150);
  }
  return tree().reduce((sum, p) => sum + rssKiB(p.pid), 0);
}

let sessionCount = 0;

/**
 * One `pi -p` session that delegates twice (the second a batch of `batch` parts when given), the main model's answer
 * after the first result held until our waiting child is ready.
 */
async function session(
  pi: PiUnderTest,
  fake: FakeModel,
  env: PiEnv,
  extension: string,
  options: { batch?: number; warm: boolean },
): Promise<Session> {
  const tag = `WB${++sessionCount}`;
  const task = (name: string) => `Bench ${tag} ${name}. ${fakeDirective({ text: `CHILD-${tag}-${name}` })}`;
  const second: FakeAction = options.batch
    ? {
        toolCalls: [
          {
            name: "subagent",
            arguments: {
              tasks: Array.from({ length: options.batch }, (_, index) => ({
                agent: "worker",
                task: task(`b${index}`),
              })),
            },
          },
        ],
      }
    : { toolCalls: [{ name: "subagent", arguments: { agent: "worker", task: task("second") } }] };
  const isMain = (req: FakeRequest) =>
    !req.system.includes(WORKER_BODY) && req.messages.some((m) => JSON.stringify(m.content ?? "").includes(tag));
  const toolResults = (req: FakeRequest) => req.messages.filter((m) => m.role === "tool").length;
  const sent: number[] = [];
  let warmRssKiB: number | undefined;
  fake.on({
    when: (req) => isMain(req) && toolResults(req) === 0,
    reply: () => {
      sent[0] = Date.now();
      return { toolCalls: [{ name: "subagent", arguments: { agent: "worker", task: task("first") } }] };
    },
  });
  fake.on({
    when: (req) => isMain(req) && toolResults(req) === 1,
    reply: async () => {
      if (options.warm) warmRssKiB = await warmChildReady(env);
      sent[1] = Date.now();
      return second;
    },
  });
  fake.on({ when: (req) => isMain(req) && toolResults(req) >= 2, reply: { text: `DONE-${tag}` } });
  const result = await runProcess(
    TIME,
    ["-f", "BENCH-TIME %M", pi.node, pi.cli, "-e", extension, "-p", "--no-session", `Delegate ${tag}.`],
    {
      env: { ...withPiPath(env.env, pi), ...(options.warm ? {} : { PI_SUBAGENT_WARM_CHILDREN: "0" }) },
      cwd: env.workDir,
      timeoutMs: 120_000,
    },
  );
  const peak = /BENCH-TIME (\d+)/.exec(result.stderr);
  if (result.code !== 0 || !peak || !result.stdout.includes(`DONE-${tag}`))
    throw new Error(
      `${pi.label} warm bench session: exit ${result.code}, stderr ${JSON.stringify(result.stderr.slice(-500))}`,
    );
  const requests = fake.requests;
  const childFirst = (name: string) =>
    requests.find((req) => req.system.includes(WORKER_BODY) && req.lastText.includes(`Bench ${tag} ${name}.`))?.at;
  const backAt = requests.find((req) => isMain(req) && toolResults(req) === 2)?.at;
  const firstChild = childFirst("first");
  const secondChild = options.batch
    ? Math.min(...Array.from({ length: options.batch }, (_, index) => childFirst(`b${index}`) ?? Infinity))
    : childFirst("second");
  if (backAt === undefined || firstChild === undefined || secondChild === undefined || !sent[0] || !sent[1])
    throw new Error(`${pi.label} warm bench session ${tag}: a request is missing from the fake model's log`);
  return {
    secondMs: backAt - sent[1],
    firstCallToRequestMs: firstChild - sent[0],
    secondCallToRequestMs: secondChild - sent[1],
    ...(warmRssKiB !== undefined ? { warmRssKiB } : {}),
    peakKiB: Number(peak[1]),
  };
}

const ms = (values: number[]) => `${Math.round(median(values))} ms`;

/** The `warm` section of `npm run bench`. */
export async function runWarmSection(): Promise<{ ok: boolean }> {
  const pi = piUnderTest("1");
  console.log(`Warm children on ${pi.label} vs pi's official subagent example, ${ROUNDS} paired rounds`);
  const fake = await new FakeModel().start();
  const env = createPiEnv({ baseUrl: fake.baseUrl, warmChildren: true });
  env.writeAgentDirFile("agents/worker.md", WORKER);
  const official = join(pi.packageRoot, "examples/extensions/subagent/index.ts");
  const f = {
    ratio: [] as number[],
    oursWarm: [] as number[],
    officialSecond: [] as number[],
    warmFirst: [] as number[],
    coldFirst: [] as number[],
    officialFirst: [] as number[],
    batch4: [] as number[],
    batch8: [] as number[],
    idle: [] as number[],
    peakOn: [] as number[],
    peakOff: [] as number[],
  };
  try {
    // Warm-up: the first runs pay one-off costs (jiti's and node's caches).
    await session(pi, fake, env, EXTENSION_ENTRY, { warm: true });
    await session(pi, fake, env, official, { warm: false });
    for (let round = 0; round < ROUNDS; round++) {
      const [ours, theirs] = await pair(
        round,
        () => session(pi, fake, env, EXTENSION_ENTRY, { warm: true }),
        () => session(pi, fake, env, official, { warm: false }),
      );
      f.ratio.push(ours.secondMs / theirs.secondMs);
      f.oursWarm.push(ours.secondMs);
      f.officialSecond.push(theirs.secondMs);
      f.warmFirst.push(ours.secondCallToRequestMs);
      f.coldFirst.push(ours.firstCallToRequestMs);
      f.officialFirst.push(theirs.secondCallToRequestMs);
      if (ours.warmRssKiB !== undefined) f.idle.push(ours.warmRssKiB);
      const off = await session(pi, fake, env, EXTENSION_ENTRY, { warm: false });
      f.peakOn.push(ours.peakKiB);
      f.peakOff.push(off.peakKiB);
      for (const size of [4, 8] as const) {
        const [oursBatch, theirBatch] = await pair(
          round,
          () => session(pi, fake, env, EXTENSION_ENTRY, { warm: true, batch: size }),
          () => session(pi, fake, env, official, { warm: false, batch: size }),
        );
        (size === 4 ? f.batch4 : f.batch8).push(oursBatch.secondMs / theirBatch.secondMs);
      }
      console.log(
        `  round ${round + 1}/${ROUNDS}: second delegation ${ours.secondMs}/${theirs.secondMs} ms, call → first request warm ${ours.secondCallToRequestMs} ms, cold ${ours.firstCallToRequestMs} ms (official ${theirs.secondCallToRequestMs} ms), waiting child ${Math.round((ours.warmRssKiB ?? 0) / 1024)} MiB`,
      );
      fake.reset();
    }
  } finally {
    await fake.stop();
    if ((await waitForNoProcesses(env.marker, 5_000)).length > 0) killProcessesWithMarker(env.marker);
    env.cleanup();
  }
  const mib = (kib: number) => Math.round(kib / 1024);
  const checks = {
    first: median(f.warmFirst) <= GOALS.warmFirstRequestMs,
    ratio: median(f.ratio) <= GOALS.warmDelegation,
    idle: mib(median(f.idle)) <= GOALS.idleMiB,
    parent: median(f.peakOn) - median(f.peakOff) <= GOALS.parentOverMiB * 1024,
  };
  console.log("");
  console.log(
    [
      `| figure (median of ${ROUNDS} paired rounds, ${pi.label}) | value | goal |`,
      "|---|---|---|",
      `| a warm delegation (the second in a session) ÷ the official example's | ${median(f.ratio).toFixed(2)} (${ms(f.oursWarm)} vs ${ms(f.officialSecond)}) | ≤ ${GOALS.warmDelegation} |`,
      `| tool call → the child's first model request, warm | ${ms(f.warmFirst)} | ≤ ${GOALS.warmFirstRequestMs} ms |`,
      `| the same, cold (ours, the first delegation) | ${ms(f.coldFirst)} | (shown) |`,
      `| the same, the official example | ${ms(f.officialFirst)} | (shown) |`,
      `| a batch of 4 as the second delegation (one part warm) ÷ the official parallel mode | ${median(f.batch4).toFixed(2)} | (shown) |`,
      `| a batch of 8, the same | ${median(f.batch8).toFixed(2)} | (shown) |`,
      `| one waiting child, resident memory of its tree | ${mib(median(f.idle))} MiB | ≤ ${GOALS.idleMiB} MiB |`,
      `| peak memory of the session's largest process, warm children on vs off | ${mib(median(f.peakOn))} vs ${mib(median(f.peakOff))} MiB | ≤ off + ${GOALS.parentOverMiB} |`,
    ].join("\n"),
  );
  const ok = Object.values(checks).every(Boolean);
  console.log(`\ngoals: ${ok ? "met" : "NOT MET"}`);
  return { ok };
}
