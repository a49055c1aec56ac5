/**
 * Small builders the e2e tests share to script a child through the fake model and read back what it did: a
 * `subagent` call, a child task that runs one bash command, the child's bash output as its next request carried it,
 * the tool results the main agent's model received, and a marker folder for the attack tests.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach } from "vitest";
import { fakeDirective, messageText, type FakeAction, type FakeModel, type FakeRequest } from "./fake-model.ts";
import { EXTENSION_ENTRY, runPi, type PiEnv, type RunResult } from "./pi-env.ts";

/** pi in print mode with the extension (`-e`), in `env`'s agent dir and work dir, `args` before `-p <prompt>`. */
export function printWithExtension(env: PiEnv, args: string[], prompt: string): Promise<RunResult> {
  return runPi(["-e", EXTENSION_ENTRY, ...args, "-p", prompt], { env: env.env, cwd: env.workDir, timeoutMs: 90_000 });
}

/** The main agent's model calls the `subagent` tool with `args`. */
export function subagentCall(args: Record<string, unknown>): FakeAction {
  return { toolCalls: [{ name: "subagent", arguments: args }] };
}

/** A child's task: `text`, then the fake model's script for the child (`actions`). */
export function scriptedTask(text: string, actions: FakeAction | FakeAction[]): string {
  return `${text} ${fakeDirective(actions)}`;
}

/** A child's first request: its prompt is the task, which holds `tag`. */
export const childAsked =
  (tag: string) =>
  (req: FakeRequest): boolean =>
    req.lastRole === "user" && req.lastText.startsWith("Task: ") && req.lastText.includes(tag);

/** A child task that runs one bash command, then answers with `answer`; `tag` finds its requests. */
export function bashTask(tag: string, command: string, answer: string): string {
  return `${tag} ${fakeDirective([{ toolCalls: [{ name: "bash", arguments: { command } }] }, { text: answer }])}`;
}

/** What the child's bash tool gave back: the tool message of the child's request after it. */
export async function childBashOutput(fake: FakeModel, tag: string): Promise<string> {
  const req = await fake.waitForRequest(
    (r: FakeRequest) =>
      r.lastRole === "tool" && r.messages.some((m) => m.role === "user" && messageText(m).includes(tag)),
    60_000,
    `the child's bash result (${tag})`,
  );
  return req.lastText;
}

/** The tool results the main agent's model received. */
export function mainToolResults(fake: FakeModel): string[] {
  return fake.requests.flatMap((req) => req.messages.filter((m) => m.role === "tool").map(messageText));
}

/**
 * A fresh folder per test where planted code leaves its marker: under `/var/tmp`, outside the test's root, its
 * work dir, agent dir and HOME, so a sandboxed child sees it read-only at most. Removed after each test.
 */
export function useMarkerFolder(): { readonly dir: string } {
  const folder = { dir: "" };
  beforeEach(() => {
    folder.dir = mkdtempSync(join("/var/tmp", "pi-subagent-markers-"));
  });
  afterEach(() => {
    rmSync(folder.dir, { recursive: true, force: true });
  });
  return folder;
}
