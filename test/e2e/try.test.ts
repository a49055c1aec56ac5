/**
 * `npm run try`, typed as a newcomer types it into a terminal (here a tmux pane, from a folder outside the clone):
 * the real pi 1.x TUI on the bundled Node 22 against the bundled fake model's tour. Its first screen says the model
 * is a fake; whatever is typed first is delegated, and the receipt, the progress widget, the result card and the
 * main agent's answer appear; the second prompt's longer task can be cancelled; after `/quit` no process of the
 * run is left and its temp folder is gone. `npm run try` always runs pi 1.x, so only the pi 1 pass runs this file.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomUUID } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { MARKER_VAR, PI, REPO_ROOT } from "../harness/pi-env.ts";
import { killProcessesWithMarker, waitForNoProcesses } from "../harness/processes.ts";
import { skipTuiTests, TmuxPi } from "../harness/tmux.ts";

const TRY_ROOT = /(\/\S*pi-subagent-try-[A-Za-z0-9]+)\/greeter/;

describe.skipIf(PI.line !== "1" || skipTuiTests())("npm run try", () => {
  let tmux: TmuxPi | undefined;
  let folder: string | undefined;
  let marker = "";

  afterEach(async () => {
    await tmux?.dispose();
    tmux = undefined;
    killProcessesWithMarker(marker);
    if (folder) rmSync(folder, { recursive: true, force: true });
  });

  it("tours a delegation in the real TUI against the fake model and leaves nothing behind after /quit", {
    tags: ["slow", "tui"],
    timeout: 300_000,
  }, async () => {
    folder = mkdtempSync(join(tmpdir(), "pi-subagent-try-test-"));
    marker = randomUUID();
    // A newcomer's shell: no npm variables, nothing of the tests' pi set-up.
    const env: NodeJS.ProcessEnv = { ...process.env, [MARKER_VAR]: marker };
    for (const key of Object.keys(env))
      if (key.startsWith("npm_") || key === "INIT_CWD" || key === "PI_E2E_PI") delete env[key];

    tmux = await TmuxPi.start({
      env,
      cwd: folder,
      command: ["npm", "--prefix", REPO_ROOT, "run", "try"],
      readyText: "Type anything",
      readyTimeoutMs: 60_000,
    });
    const first = await tmux.waitForAll([TRY_ROOT, "the model is a FAKE: scripted, offline, no API key"], 30_000);
    const root = TRY_ROOT.exec(first)![1]!;
    expect(existsSync(join(root, "greeter/src/greet.ts"))).toBe(true);

    await tmux.submit("What does this project do?");
    await tmux.waitForAll([/Dispatched explore\. taskId: [0-9a-f-]{36}/, "I am the fake model of npm run try"], 30_000);
    await tmux.waitForText(/Subagents · 1 running[\s\S]*explore/, 30_000);
    await tmux.waitForText("✓ explore succeeded", 60_000);
    await tmux.waitForText("It says:", 30_000);
    expect(tmux.lastCapturedScreen).toContain("src/greet.ts");

    // The second prompt starts the longer task; the cancel picker stops it.
    await tmux.submit("And something longer?");
    await tmux.waitForText(/Subagents · 1 running[\s\S]*last tool/, 60_000);
    await tmux.submit("/subagent-cancel");
    await tmux.waitForText("Cancel a subagent task", 15_000);
    await tmux.press("Enter");
    await tmux.waitForText("✗ explore cancelled", 30_000);
    await tmux.waitForText("The subagent was cancelled", 30_000);

    expect(await tmux.quit({ timeoutMs: 30_000 })).toBe(0);
    expect(tmux.lastCapturedScreen).toContain(`npm run try: removed ${root} and the tour's sessions with it.`);
    expect(existsSync(root)).toBe(false);
    // The tmux server and its shell carry the marker too: end them first, then nothing may be left.
    await tmux.dispose();
    tmux = undefined;
    expect(await waitForNoProcesses(marker)).toEqual([]);
  }); // timeout 300 s: npm, pi and two subagents one after the other, on a shared 2-core machine
});
