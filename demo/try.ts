/**
 * `npm run try`: the real pi TUI (pi 1.x, bundled, on the bundled Node 22) with this checkout's extension, offline,
 * against the bundled fake model following a tour (tour.ts), in a throw-away agent dir, home and sample project.
 * No API key, and nothing of yours is read or written: everything lives in one temp folder, removed when pi exits,
 * with any process still carrying this run's marker ended first.
 */
import { spawn, spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { FakeModel } from "../test/harness/fake-model.ts";
import { EXTENSION_ENTRY, FAKE_MODEL, FAKE_PROVIDER, modelsJson } from "../test/harness/pi-env.ts";
import { piUnderTest, withPiPath } from "../test/harness/pi-under-test.ts";
import { scriptTour, writeSampleProject } from "./tour.ts";

/** Set in pi's environment (and so its children's): how the leftovers of this run are found, not by name. */
const TRY_MARKER_VAR = "PI_SUBAGENT_TRY_MARKER";

const bold = (text: string) => `\u001b[1m${text}\u001b[22m`;
const dim = (text: string) => `\u001b[2m${text}\u001b[22m`;

/** Processes (not this one) whose environment holds the marker, read from /proc. */
function processesWithMarker(marker: string): number[] {
  const needle = `${TRY_MARKER_VAR}=${marker}`;
  const found: number[] = [];
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return found; // no /proc (not Linux): pi's own clean-up is all there is
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${entry}/environ`, "latin1").split("\0").includes(needle)) found.push(Number(entry));
    } catch {
      // exited while we looked, or not ours to read
    }
  }
  return found;
}

function endLeftovers(marker: string): number {
  const left = processesWithMarker(marker);
  for (const pid of left) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
  return left.length;
}

async function main(): Promise<void> {
  const pi = piUnderTest("1");
  const root = mkdtempSync(join(tmpdir(), "pi-subagent-try-"));
  const agentDir = join(root, "agent");
  const home = join(root, "home");
  const project = join(root, "greeter");
  for (const dir of [agentDir, home, project]) mkdirSync(dir, { recursive: true });
  const fake = await new FakeModel().start();
  const marker = randomUUID();
  let cleanedUp = false;
  const cleanUp = async () => {
    if (cleanedUp) return;
    cleanedUp = true;
    const ended = endLeftovers(marker);
    rmSync(root, { recursive: true, force: true });
    await fake.stop();
    console.log(
      dim(
        `npm run try: removed ${root} and the tour's sessions with it${ended > 0 ? `; ended ${ended} process(es) left behind` : ""}.`,
      ),
    );
  };

  try {
    scriptTour(fake);
    writeSampleProject(project);
    writeFileSync(join(agentDir, "models.json"), modelsJson(fake.baseUrl));
    writeFileSync(
      join(agentDir, "settings.json"),
      JSON.stringify({ defaultProvider: FAKE_PROVIDER, defaultModel: FAKE_MODEL }, null, 2),
    );
    const env = withPiPath({ ...process.env }, pi);
    Object.assign(env, { PI_CODING_AGENT_DIR: agentDir, HOME: home, PI_OFFLINE: "1", [TRY_MARKER_VAR]: marker });

    const nodeVersion = spawnSync(pi.node, ["--version"], { encoding: "utf8" }).stdout.trim();
    console.log(
      `${bold("npm run try")}: the real ${pi.label} (bundled, on Node ${nodeVersion}) with this checkout's extension, offline.`,
    );
    console.log(`The model is a ${bold("FAKE")}: a scripted stand-in, no API key, no network. Whatever you type, it`);
    console.log(
      "delegates a task to a subagent, so you see the receipt, the progress widget, the card and the result.",
    );
    console.log(
      `Then try /subagent-watch, /subagent-result, /subagent-cancel, /subagent-config. ${bold("/quit")} ends it.`,
    );
    console.log(dim(`Everything lives in ${root} (removed at exit); pi runs in its sample project, greeter/.\n`));

    const header = join(dirname(fileURLToPath(import.meta.url)), "tour-header.ts");
    const child = spawn(pi.node, [pi.cli, "-e", EXTENSION_ENTRY, "-e", header], {
      cwd: project,
      env,
      stdio: "inherit",
    });
    // pi owns the terminal; a signal meant for the run (a closed terminal, a kill) is passed on, and the clean-up
    // below runs once pi is gone. Ctrl+C reaches pi as a key, not as a signal, while its TUI runs.
    for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
      process.on(signal, () => child.kill(signal));
    }
    const code = await new Promise<number>((resolve) => {
      child.on("error", (error) => {
        console.error(`npm run try: could not start pi: ${error.message}`);
        resolve(1);
      });
      child.on("exit", (exitCode, signal) => resolve(exitCode ?? (signal ? 1 : 0)));
    });
    process.exitCode = code;
  } finally {
    await cleanUp();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exitCode = 1;
});
