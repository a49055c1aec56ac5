/**
 * Proves the tmux TUI driver (test/harness/tmux.ts) against the real pi 0.73.1 and the fake model: pi starts
 * in a private tmux server, a typed prompt reaches the model, the reply appears on screen, /quit ends pi with
 * status 0, and nothing the test started is left running.
 *
 * Skip policy: these tests need tmux. Without tmux they are skipped with a visible warning, unless CI=true,
 * where a missing tmux fails the file (skipTuiTests throws).
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FakeModel, fakeDirective } from "../harness/fake-model.ts";
import { createPiEnv, EXTENSION_ENTRY, type PiEnv } from "../harness/pi-env.ts";
import { killProcessesWithMarker, waitForNoProcesses } from "../harness/processes.ts";
import { skipTuiTests, TmuxPi } from "../harness/tmux.ts";

describe.skipIf(skipTuiTests())("tmux TUI driver", () => {
  let fake: FakeModel;
  let env: PiEnv;
  let tui: TmuxPi | undefined;

  beforeEach(async () => {
    fake = await new FakeModel().start();
    env = createPiEnv({ baseUrl: fake.baseUrl });
  });

  afterEach(async () => {
    await tui?.dispose();
    tui = undefined;
    killProcessesWithMarker(env.marker);
    await fake.stop();
    env.cleanup();
  });

  it("starts pi with the extension, shows the model's reply, quits cleanly and leaves no process", {
    tags: ["contract"],
  }, async () => {
    tui = await TmuxPi.start({ env: env.env, cwd: env.workDir, args: ["-e", EXTENSION_ENTRY] });
    const piPid = await tui.piPid();
    expect(piPid).toBeGreaterThan(0);
    // The pane is the fixed size the driver asked for.
    expect(await tui.tmux("display-message", "-p", "-t", "pi", "#{pane_width}x#{pane_height}")).toBe("120x40\n");

    const reply = "Harness reply: the tmux driver works";
    await tui.submit(`Say something ${fakeDirective({ text: reply })}`);
    const request = await fake.waitForRequest(
      (req) => req.lastText.includes("Say something"),
      60_000,
      "the typed prompt",
    );
    expect(request.lastRole).toBe("user");
    // The prompt (echoed on screen) contains the reply inside its directive, so look for the reply on a line of
    // its own: the assistant's message.
    await tui.waitForScreen(
      (text) => text.split("\n").some((line) => line.includes(reply) && !line.includes("@fake")),
      30_000,
      "the model's reply",
    );

    expect(await tui.quit()).toBe(0);
    expect(await tui.piPid()).toBeUndefined();
    await tui.dispose();
    expect(await waitForNoProcesses(env.marker)).toEqual([]);
  });

  it("waitForText fails with the last screen in its message, and dispose is idempotent", async () => {
    tui = await TmuxPi.start({ env: env.env, cwd: env.workDir });
    await tui.type("draft text not submitted");
    await tui.waitForText("draft text not submitted", 10_000);
    const failure = await tui.waitForText("text that never appears", 500).catch((error: Error) => error);
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message).toContain("Last screen:");
    expect((failure as Error).message).toContain("draft text not submitted");
    await expect(tui.press("C-l")).rejects.toThrow(/model picker/);

    // Clear the editor (Ctrl+C once), then quit with Ctrl+D on the empty editor.
    await tui.press("C-c");
    await tui.waitForNoText("draft text not submitted", 10_000);
    expect(await tui.quit({ via: "ctrl-d" })).toBe(0);
    await tui.dispose();
    await tui.dispose();
    expect(await waitForNoProcesses(env.marker)).toEqual([]);
  });
});
