/**
 * Editing an agent's body in the person's own editor: the body goes to a private temp file, the editor runs
 * in the terminal (`$EDITOR`, else `$VISUAL`, else `vi`; a value may carry arguments, as in `code --wait`),
 * and the file is read back once the editor exits. Inside pi's TUI this happens the way pi itself opens the
 * external editor (Ctrl+G): stop the TUI, run the editor synchronously with the terminal inherited, start the
 * TUI again and redraw everything.
 */
import { spawnSync } from "node:child_process";
import type { SpawnSyncOptions, SpawnSyncReturns } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BodyEditOutcome } from "./config-types.ts";

export const FALLBACK_EDITOR = "vi";

/** The editor command line: `$EDITOR`, then `$VISUAL`, then `vi` (blank values do not count). */
export function editorCommand(env: NodeJS.ProcessEnv = process.env): string {
  for (const name of (["EDITOR", "VISUAL"] as const)) {
    const value = env[name]?.trim();
    if (value) return value;
  }
  return FALLBACK_EDITOR;
}

/** Splits `code --wait` into the program and its arguments (plain whitespace, as pi does for Ctrl+G). */
export function splitCommand(command: string): [string, ...string[]] {
  const [program = FALLBACK_EDITOR, ...args] = command.trim().split(/\s+/);
  return [program, ...args];
}

export type SpawnEditor = (program: string, args: string[], options: SpawnSyncOptions) => SpawnSyncReturns<Buffer | string>;

function errorReason(error: unknown): string {
  if (error && typeof error === "object" && "code" in error && typeof error.code === "string") {
    return error instanceof Error ? `${error.code}: ${error.message}` : error.code;
  }
  return error instanceof Error ? error.message : String(error);
}

/**
 * Runs the editor on `text` and returns what it left in the file. Blocks until the editor exits. The temp
 * file lives in a private (0700) folder named after the agent, so the editor shows a meaningful name and
 * picks Markdown highlighting; it is always removed.
 */
export function runEditorOnText(agentName: string, text: string, env: NodeJS.ProcessEnv = process.env, spawnEditor: SpawnEditor = spawnSync): BodyEditOutcome {
  const command = editorCommand(env);
  const [program, ...args] = splitCommand(command);
  let dir: string | undefined;
  try {
    dir = mkdtempSync(join(tmpdir(), "pi-subagent-body-"));
    const file = join(dir, `${agentName}.md`);
    writeFileSync(file, text.endsWith("\n") ? text : `${text}\n`, { encoding: "utf8", mode: 0o600 });
    const result = spawnEditor(program, [...args, file], { stdio: "inherit", env, shell: process.platform === "win32" });
    if (result.error) return { kind: "launch-failed", command, reason: errorReason(result.error) };
    if (result.status !== 0) return { kind: "exit-code", command, code: result.status, signal: result.signal };
    return { kind: "edited", text: readFileSync(file, "utf8") };
  } catch (error) {
    return { kind: "launch-failed", command, reason: errorReason(error) };
  } finally {
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  }
}

/** The part of pi's TUI the editor hand-over needs. */
export interface StoppableTui {
  stop: () => void;
  start: () => void;
  requestRender: (force?: boolean) => void;
}

/** Hands the terminal to the editor and takes it back, whatever happens in between. */
export function runEditorOutsideTui(tui: StoppableTui, edit: () => BodyEditOutcome): BodyEditOutcome {
  tui.stop();
  try {
    return edit();
  } finally {
    tui.start();
    // The editor used the whole screen (often the alternate screen): redraw everything.
    tui.requestRender(true);
  }
}
