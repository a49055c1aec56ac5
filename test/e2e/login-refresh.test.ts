/**
 * The parent renews an OAuth login near its end before a sandboxed child gets its copy of `auth.json` (issue 34),
 * with the real pi, real bubblewrap and an OAuth provider registered by an extension of the test tree
 * (`fixtures/oauth-provider.ts`), whose model is the fake model and whose refreshes are logged to a folder no
 * sandbox can write. The worker runs on that provider in a read-only sandbox; the main pi runs on the fake
 * provider's API key, so it never needs the login itself and only the dispatch renews it. Two pis renewing at
 * once against a slow login server ask it once (the test fails with a renewal that skips pi's lock: two calls).
 *
 * Contract tests (both pis) are tagged one by one; the others test our own logic and run on pi 1.x only.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isWorkerRequest, useE2eSuite } from "../harness/e2e-suite.ts";
import { fakeDirective, messageText, type FakeRequest } from "../harness/fake-model.ts";
import { EXTENSION_ENTRY, REPO_ROOT, runPi } from "../harness/pi-env.ts";
import { mainToolResults, subagentCall, useMarkerFolder } from "../harness/child-scripts.ts";
import { waitForNoProcesses } from "../harness/processes.ts";
import { skipTuiTests } from "../harness/tmux.ts";
import { bwrapInSystemDirs } from "../../src/sandbox/sandbox-layout.ts";
import {
  BROKEN_REFRESH,
  OAUTH_MODEL,
  OAUTH_PROVIDER,
  RENEWED,
  RENEWED_LIFETIME_MS,
} from "./fixtures/oauth-provider.ts";

const suite = useE2eSuite();
const SKIP = !bwrapInSystemDirs() && process.env.CI !== "true";
const marks = useMarkerFolder();
const PROVIDER_EXTENSION = join(REPO_ROOT, "test/e2e/fixtures/oauth-provider.ts");
const MINUTE = 60_000;

/** A pi set-up whose worker runs on the OAuth provider in a read-only sandbox, with `login` in `auth.json`. */
function setUp(login: { access: string; refresh: string; expires: number }) {
  const env = suite.newEnv({ workerFrontmatter: `sandbox: read-only\nmodel: ${OAUTH_PROVIDER}/${OAUTH_MODEL}` });
  const authFile = join(env.agentDir, "auth.json");
  writeFileSync(authFile, JSON.stringify({ [OAUTH_PROVIDER]: { type: "oauth", ...login } }, null, 2));
  const refreshLog = join(marks.dir, "refreshes.jsonl");
  const providerEnv = { OAUTH_FAKE_BASE_URL: suite.fake.baseUrl, OAUTH_FAKE_LOG: refreshLog };
  const run = (prompt: string, extraEnv: NodeJS.ProcessEnv = {}) =>
    runPi(["-e", EXTENSION_ENTRY, "-e", PROVIDER_EXTENSION, "-p", prompt], {
      env: env.env,
      cwd: env.workDir,
      timeoutMs: 120_000,
      extraEnv: { ...providerEnv, ...extraEnv },
    });
  const startTui = () =>
    suite.startTui({ args: ["-e", EXTENSION_ENTRY, "-e", PROVIDER_EXTENSION], extraEnv: providerEnv });
  const storedLogin = () =>
    (
      JSON.parse(readFileSync(authFile, "utf8")) as Record<string, { access: string; refresh: string; expires: number }>
    )[OAUTH_PROVIDER];
  const refreshes = (): Array<{ refresh: string; depth: string }> => {
    try {
      return readFileSync(refreshLog, "utf8")
        .trim()
        .split("\n")
        .filter(Boolean)
        .map((line) => JSON.parse(line) as { refresh: string; depth: string });
    } catch {
      return [];
    }
  };
  return { env, authFile, run, startTui, storedLogin, refreshes };
}

const workerRequests = (): FakeRequest[] => suite.fake.requests.filter(isWorkerRequest);
/** The main pi's prompt: one delegation to the worker, whose child answers `CHILD-ANSWER`. */
const DELEGATE = `Delegate. ${fakeDirective([subagentCall({ agent: "worker", task: `LOGIN-CHILD ${fakeDirective({ text: "CHILD-ANSWER" })}` }), { text: "main done" }])}`;
/** The subagent's result as the main model read it. */
const childResult = (): string | undefined =>
  mainToolResults(suite.fake).find((text) => text.includes("[subagent session:"));

describe.skipIf(SKIP)("a login near its end is renewed before a sandboxed child gets its copy", () => {
  it("the main pi renews a login that ends in a minute in the person's auth.json, with the person's refresh token; the read-only child calls its model with the new token and succeeds", {
    tags: ["contract"],
  }, async () => {
    const { env, run, storedLogin, refreshes } = setUp({
      access: "ACCESS-OLD",
      refresh: "REFRESH-1",
      expires: Date.now() + MINUTE,
    });
    const before = Date.now();
    const result = await run(DELEGATE);
    expect(result.code, result.stderr).toBe(0);
    // Renewed once, by the main pi (depth 0), with the person's refresh token; the child never asked.
    expect(refreshes()).toEqual([{ refresh: "REFRESH-1", depth: "0" }]);
    // The person's file holds the renewed login, the rotated refresh token and the new expiry.
    const stored = storedLogin();
    expect(stored).toMatchObject({ type: "oauth", access: RENEWED.access, refresh: RENEWED.refresh });
    expect(stored?.expires).toBeGreaterThanOrEqual(before + RENEWED_LIFETIME_MS);
    // The child's copy had the new token: its model call carried it.
    const calls = workerRequests();
    expect(calls.length).toBeGreaterThan(0);
    for (const call of calls) expect(call.authorization).toBe(`Bearer ${RENEWED.access}`);
    expect(childResult()).toContain("CHILD-ANSWER");
    expect(childResult()).toContain("[subagent sandbox: read-only]");
    expect(result.stderr).not.toContain("could not refresh");
    expect(await waitForNoProcesses(env.marker)).toEqual([]);
  });

  it("two pis dispatching at once with one login near its end renew it once, under pi's lock: the second finds it renewed, and both children use the new token", {
    tags: ["contract"],
  }, async () => {
    const { env, run, storedLogin, refreshes } = setUp({
      access: "ACCESS-OLD",
      refresh: "REFRESH-1",
      expires: Date.now() + MINUTE,
    });
    // A slow login server: without the lock both pis would be inside it with the same (single-use) refresh token.
    const slow = { OAUTH_FAKE_REFRESH_DELAY_MS: "3000" };
    const [first, second] = await Promise.all([run(DELEGATE, slow), run(DELEGATE, slow)]);
    expect(first.code, first.stderr).toBe(0);
    expect(second.code, second.stderr).toBe(0);
    expect(refreshes()).toEqual([{ refresh: "REFRESH-1", depth: "0" }]);
    expect(storedLogin()).toMatchObject({ access: RENEWED.access, refresh: RENEWED.refresh });
    const calls = workerRequests();
    expect(calls.length).toBeGreaterThanOrEqual(2);
    for (const call of calls) expect(call.authorization).toBe(`Bearer ${RENEWED.access}`);
    expect(mainToolResults(suite.fake).filter((text) => text.includes("CHILD-ANSWER"))).toHaveLength(2);
    expect(await waitForNoProcesses(env.marker)).toEqual([]);
  });

  it("a login that lasts beyond the margin is left as it is: no refresh, the child gets the current token", async () => {
    const expires = Date.now() + 60 * MINUTE;
    const { env, run, storedLogin, refreshes } = setUp({ access: "ACCESS-LASTING", refresh: "REFRESH-1", expires });
    const result = await run(DELEGATE);
    expect(result.code, result.stderr).toBe(0);
    expect(refreshes()).toEqual([]);
    expect(storedLogin()).toEqual({ type: "oauth", access: "ACCESS-LASTING", refresh: "REFRESH-1", expires });
    expect(workerRequests().map((call) => call.authorization)).toContain("Bearer ACCESS-LASTING");
    expect(await waitForNoProcesses(env.marker)).toEqual([]);
  });

  it("a refresh that fails does not hold the dispatch back: one warning, the child runs with the current login, the person's file is as it was", {
    tags: ["contract"],
  }, async () => {
    // Ten minutes left: within a 20-minute margin, beyond pi's own five-minute window (so the child uses it as it is).
    const expires = Date.now() + 10 * MINUTE;
    const { env, authFile, run, refreshes } = setUp({ access: "ACCESS-OLD", refresh: BROKEN_REFRESH, expires });
    const person = readFileSync(authFile, "utf8");
    const result = await run(DELEGATE, {
      PI_SUBAGENT_LOGIN_REFRESH_MARGIN_MS: String(20 * MINUTE),
    });
    expect(result.code, result.stderr).toBe(0);
    expect(refreshes()).toEqual([{ refresh: BROKEN_REFRESH, depth: "0" }]);
    const warning = `could not refresh the OAuth login of ${OAUTH_PROVIDER} (the login server is down) before the sandboxed subagent started`;
    expect(result.stderr.split(warning).length - 1, result.stderr).toBe(1);
    expect(readFileSync(authFile, "utf8")).toBe(person);
    expect(workerRequests().map((call) => call.authorization)).toContain("Bearer ACCESS-OLD");
    expect(childResult()).toContain("CHILD-ANSWER");
    expect(await waitForNoProcesses(env.marker)).toEqual([]);
  });

  it("a login the parent could not renew that ends during the child's run fails the child with the clear note, and the person's file is never written", {
    tags: ["slow"],
  }, async () => {
    // The child's bash waits until the login has ended (an event, not a fixed sleep); its next model call then needs
    // a refresh it cannot make (pi 1.x already asks for one five minutes before the end, at its first call).
    const expires = Date.now() + 20_000;
    const { env, authFile, run, refreshes } = setUp({ access: "ACCESS-OLD", refresh: BROKEN_REFRESH, expires });
    const person = readFileSync(authFile, "utf8");
    const waitForEnd = `while [ "$(date +%s%3N)" -le ${expires} ]; do sleep 0.2; done; echo LOGIN-ENDED`;
    const childTask = `LOGIN-CHILD ${fakeDirective([{ toolCalls: [{ name: "bash", arguments: { command: waitForEnd } }] }, { text: "child done" }])}`;
    const result = await run(
      `Delegate. ${fakeDirective([subagentCall({ agent: "worker", task: childTask }), { text: "main done" }])}`,
    );
    expect(result.code, result.stderr).toBe(0);
    // Only the parent's attempt is logged: the child's own attempt could not even write the log.
    expect(refreshes()).toEqual([{ refresh: BROKEN_REFRESH, depth: "0" }]);
    const toolResult = childResult();
    expect(toolResult).toContain("Subagent worker failed.");
    expect(toolResult).toContain(
      `The OAuth login of ${OAUTH_PROVIDER} expired while this sandboxed subagent ran; a sandboxed child cannot refresh a login (it never writes your auth.json). Run the task again: your pi refreshes a login near its end before it starts a sandboxed subagent.`,
    );
    expect(toolResult).not.toContain("child done");
    expect(readFileSync(authFile, "utf8")).toBe(person);
    expect(await waitForNoProcesses(env.marker)).toEqual([]);
  });
});

describe.skipIf(SKIP || skipTuiTests())(
  "in the TUI, a background child's login is renewed when it is dispatched",
  () => {
    const envelopes = (req: FakeRequest) =>
      req.messages.filter((m) => m.role === "user" && messageText(m).includes("[subagent-result]")).length;
    const resultsSeen = (count: number) =>
      suite.fake.waitForRequest(
        (req) => !isWorkerRequest(req) && envelopes(req) >= count,
        90_000,
        `${count} result envelope(s)`,
      );

    it("a single background dispatch and a batch of two: each renewal happens once, in the main pi, and every child calls its model with the new token", {
      tags: ["tui"],
    }, async () => {
      const { env, startTui, storedLogin, refreshes } = setUp({
        access: "ACCESS-OLD",
        refresh: "REFRESH-1",
        expires: Date.now() + MINUTE,
      });
      // An envelope quotes the child's task, directive included: the main pi must not act on that directive.
      suite.fake.on({
        when: (req) => !isWorkerRequest(req) && req.lastRole === "user" && req.lastText.includes("[subagent-result]"),
        reply: { text: "noted" },
      });
      const t = await startTui();
      // The tmux server and its shell carry the marker too, and stay until the suite disposes of them.
      const harness = await t.harnessPids();
      const childTask = (tag: string) => `${tag} ${fakeDirective({ text: `${tag}-ANSWER` })}`;
      await t.submit(
        `Delegate. ${fakeDirective([subagentCall({ agent: "worker", task: childTask("SINGLE") }), { text: "dispatched" }])}`,
      );
      await resultsSeen(1);
      expect(refreshes()).toEqual([{ refresh: "REFRESH-1", depth: "0" }]);
      expect(storedLogin()).toMatchObject({ access: RENEWED.access, refresh: RENEWED.refresh });
      // The login near its end again, for the batch: both parts are dispatched after one renewal.
      writeFileSync(
        join(env.agentDir, "auth.json"),
        JSON.stringify(
          {
            [OAUTH_PROVIDER]: {
              type: "oauth",
              access: "ACCESS-OLD-2",
              refresh: "REFRESH-2",
              expires: Date.now() + MINUTE,
            },
          },
          null,
          2,
        ),
      );
      const batch = {
        tasks: [
          { agent: "worker", task: childTask("PART-A") },
          { agent: "worker", task: childTask("PART-B") },
        ],
      };
      await t.submit(`Delegate both. ${fakeDirective([subagentCall(batch), { text: "batch dispatched" }])}`);
      await resultsSeen(2);
      expect(refreshes()).toEqual([
        { refresh: "REFRESH-1", depth: "0" },
        { refresh: "REFRESH-2", depth: "0" },
      ]);
      const calls = workerRequests();
      expect(calls.length).toBeGreaterThanOrEqual(3);
      for (const call of calls) expect(call.authorization).toBe(`Bearer ${RENEWED.access}`);
      expect(await t.quit()).toBe(0);
      expect(await waitForNoProcesses(env.marker, 15_000, harness)).toEqual([]);
    });
  },
);
