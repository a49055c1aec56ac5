/**
 * Drives the real interactive pi TUI inside tmux for end-to-end tests.
 *
 * Each `TmuxPi` owns a private tmux server (its own socket in its own temp dir, `tmux -S <dir>/tmux.sock`), so
 * killing it never touches anybody else's tmux. The server runs one fixed-size window (120x40 by default) with a
 * plain `bash --norc --noprofile`, and pi is started by typing its command into that shell, so that, as for a
 * person at a terminal, pi is a job of an interactive shell and not the session leader.
 *
 * The test's environment (PI_CODING_AGENT_DIR, HOME, the marker variable, ...) is the environment the tmux
 * server is started with, so the shell and pi inherit it; the tmux server itself carries the marker too, which
 * is why `dispose()` (kill-server) must run before `waitForNoProcesses(marker)`.
 *
 * Two rules from PI-FACTS.md: never turn on tmux `extended-keys` (typed input then never reaches pi) and never
 * send Ctrl+L (it opens pi's model picker); `press` refuses C-l.
 *
 * The screen is read, and pi's pid found, through one control-mode client (tmux-control.ts), not a tmux process
 * per read: waits read the screen every 100 ms.
 */
import { execFile, spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MARKER_VAR, PI_CLI, PI_NODE } from "./pi-env.ts";
import { TmuxControl } from "./tmux-control.ts";

const TMUX = "tmux";
const POLL_INTERVAL_MS = 100;
/** How much of a typed text's end `submit` waits to see on the screen before it presses Enter. */
const TYPED_TAIL_CHARS = 16;
/** The editor's top and bottom borders: full-width rules of U+2500. Their presence means pi's TUI is drawn. */
const EDITOR_BORDER = /^\u2500{20,}\s*$/m;
const EXIT_CODE_PREFIX = "__tmuxpi_exit:";

let availability: boolean | undefined;

/** Whether a tmux binary can be run on this machine (checked once per process). */
function tmuxAvailable(): boolean {
  if (availability === undefined) {
    const probe = spawnSync(TMUX, ["-V"], { encoding: "utf8" });
    availability = probe.status === 0 && !probe.error;
  }
  return availability;
}

let skipNoticeShown = false;

/**
 * The skip policy for TUI tests, for `describe.skipIf(skipTuiTests())(...)`:
 * - tmux present: run (returns false);
 * - tmux missing and `CI` is not `true`: skip, with a visible warning printed once per process;
 * - tmux missing and `CI=true`: throw, so the test file fails loudly instead of passing silently.
 */
export function skipTuiTests(): boolean {
  if (tmuxAvailable()) return false;
  if (process.env.CI === "true") {
    throw new Error(
      "TUI end-to-end tests need tmux, and CI=true makes them mandatory: install tmux (e.g. apt-get install tmux).",
    );
  }
  if (!skipNoticeShown) {
    skipNoticeShown = true;
    console.warn("[tmux] tmux not found: skipping the TUI end-to-end tests (they are mandatory under CI=true).");
  }
  return true;
}

export interface TmuxPiOptions {
  /** The test's environment (from createPiEnv): PI_CODING_AGENT_DIR, HOME, the marker, ... */
  env: NodeJS.ProcessEnv;
  /** Where the shell starts and pi runs. */
  cwd: string;
  /** pi's arguments, e.g. `["-e", EXTENSION_ENTRY]`. */
  args?: string[];
  /** A whole command line to type instead of `<node> <pi cli> <args>` (a script that starts pi, like `npm run try`). */
  command?: string[];
  width?: number;
  height?: number;
  /** How long to wait for pi's TUI to be drawn (default 30 s: the machine is shared). */
  readyTimeoutMs?: number;
  /** What on screen means "ready" (default: the editor's border lines). */
  readyText?: string | RegExp;
}

export type KeyName = string;

/** Keys `press` accepts without complaint are tmux key names: Enter, Escape, Up, Down, Left, Right, Tab, BSpace, C-c, C-d, ... */
const FORBIDDEN_KEYS = new Set(["C-l", "C-L", "^L"]);

function shellQuote(word: string): string {
  if (/^[A-Za-z0-9_\/.,:=@%+-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

function withoutBlanks(text: string): string {
  return text.replace(/\s+/g, "");
}

function matches(screen: string, wanted: string | RegExp): boolean {
  return typeof wanted === "string" ? screen.includes(wanted) : wanted.test(screen);
}

function describeWanted(wanted: string | RegExp): string {
  return typeof wanted === "string" ? JSON.stringify(wanted) : String(wanted);
}

/** One argument for tmux's command parser: single-quoted unless plain (the harness's own arguments, never a quote). */
function quoteForTmux(arg: string): string {
  if (/^[\w.-]+$/.test(arg)) return arg;
  if (arg.includes("'")) throw new Error(`quoteForTmux: ${JSON.stringify(arg)} has a single quote`);
  return `'${arg}'`;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Direct children of a process, read from /proc (no name matching). */
function childPids(parentPid: number): number[] {
  try {
    const listed = readFileSync(`/proc/${parentPid}/task/${parentPid}/children`, "latin1").trim();
    return listed ? listed.split(/\s+/).map(Number) : [];
  } catch {
    // Kernels without CONFIG_PROC_CHILDREN: scan every process's parent pid.
    const found: number[] = [];
    for (const entry of readdirSync("/proc")) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, "latin1");
        // Fields after the command name (which may contain spaces and parentheses): state, ppid, ...
        const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        if (Number(rest[1]) === parentPid) found.push(Number(entry));
      } catch {
        // exited while we looked
      }
    }
    return found;
  }
}

function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    return !/\) [ZX] /.test(stat);
  } catch {
    return false;
  }
}

export class TmuxPi {
  /** The private temp dir holding the tmux socket (removed by dispose). */
  readonly dir: string;
  readonly socketPath: string;
  readonly width: number;
  readonly height: number;
  private readonly env: NodeJS.ProcessEnv;
  private disposed = false;
  private lastScreen = "";
  private knownPiPid: number | undefined;
  private control: TmuxControl | undefined;

  private constructor(env: NodeJS.ProcessEnv, width: number, height: number) {
    this.dir = mkdtempSync(join(tmpdir(), "tmuxpi-"));
    this.socketPath = join(this.dir, "tmux.sock");
    this.width = width;
    this.height = height;
    const cleanEnv: NodeJS.ProcessEnv = { ...env };
    // An outer tmux's variables would make the client talk about nesting; our socket is explicit anyway.
    delete cleanEnv.TMUX;
    delete cleanEnv.TMUX_PANE;
    this.env = cleanEnv;
  }

  /**
   * Starts a private tmux server with a fixed-size window running `bash --norc --noprofile`, types
   * `<node> <PI_CLI> <args>` into it and waits until pi's TUI is drawn and its process is found.
   * On any failure the tmux server is killed before the error is thrown.
   */
  static async start(options: TmuxPiOptions): Promise<TmuxPi> {
    const session = new TmuxPi(options.env, options.width ?? 120, options.height ?? 40);
    try {
      await session.startShell(options.cwd);
      const command = (options.command ?? [PI_NODE, PI_CLI, ...(options.args ?? [])]).map(shellQuote).join(" ");
      await session.submitToShell(command);
      const timeoutMs = options.readyTimeoutMs ?? 30_000;
      await session.waitForText(options.readyText ?? EDITOR_BORDER, timeoutMs);
      await session.waitForPiPid(timeoutMs);
      return session;
    } catch (error) {
      await session.dispose();
      throw error;
    }
  }

  /** Runs one tmux command against this session's private server. */
  tmux(...args: string[]): Promise<string> {
    return new Promise((resolve, reject) => {
      execFile(TMUX, ["-S", this.socketPath, ...args], { env: this.env, encoding: "utf8" }, (error, stdout, stderr) => {
        if (error) reject(new Error(`tmux ${args.join(" ")} failed: ${stderr.trim() || error.message}`));
        else resolve(stdout);
      });
    });
  }

  private async startShell(cwd: string): Promise<void> {
    // `-f /dev/null`: no user tmux.conf (and so never extended-keys). The server inherits `this.env`.
    await this.tmux(
      "-f",
      "/dev/null",
      "new-session",
      "-d",
      "-s",
      "pi",
      "-x",
      String(this.width),
      "-y",
      String(this.height),
      "-c",
      cwd,
      "bash --norc --noprofile",
    );
    // No status line, so the whole window is the pane; keep the size fixed whatever attaches.
    await this.tmux("set-option", "-g", "status", "off");
    await this.tmux("set-option", "-g", "window-size", "manual");
    await this.tmux("resize-window", "-t", "pi", "-x", String(this.width), "-y", String(this.height));
    const { [MARKER_VAR]: _marker, ...unmarked } = this.env;
    this.control = new TmuxControl(TMUX, this.socketPath, "pi", unmarked);
    // The prompt of bash --norc ("bash-5.2$ " or "# " for root) means the shell reads input.
    await this.waitForText(/[$#]\s*$/m, 10_000);
  }

  /** Types text literally (tmux `send-keys -l`); no Enter. */
  async type(text: string): Promise<void> {
    if (text.length === 0) return;
    await this.tmux("send-keys", "-t", "pi", "-l", "--", text);
  }

  /** Presses keys by tmux name: Enter, Escape, Up, Down, Left, Right, Tab, BSpace, C-c, C-d, ... (never C-l). */
  async press(...keys: KeyName[]): Promise<void> {
    for (const key of keys) {
      if (FORBIDDEN_KEYS.has(key))
        throw new Error("TmuxPi.press: Ctrl+L opens pi's model picker; tests must not send it");
      await this.tmux("send-keys", "-t", "pi", key);
    }
  }

  /**
   * Types the text, waits until the screen shows its end (so the keys were taken by what is on screen, not lost
   * to a program still starting or busy on a loaded machine), then presses Enter.
   */
  async submit(text: string): Promise<void> {
    await this.type(text);
    await this.waitForTyped(text);
    await this.press("Enter");
  }

  /**
   * A command line for the pane's shell: typed, then Enter, without waiting for its echo. bash's line editor takes
   * keys as they come, and after pi was killed the terminal may still have line wrapping off, so a long line never
   * shows whole.
   */
  async submitToShell(text: string): Promise<void> {
    await this.type(text);
    await this.press("Enter");
  }

  /** Waits until the screen shows the last characters of `text` (blanks ignored: the editor wraps long lines). */
  async waitForTyped(text: string, timeoutMs = 30_000): Promise<void> {
    const tail = withoutBlanks(text).slice(-TYPED_TAIL_CHARS);
    if (tail === "") return;
    await this.waitForScreen(
      (screen) => withoutBlanks(screen).includes(tail),
      timeoutMs,
      `the typed text's end ${JSON.stringify(tail)} to show`,
    );
  }

  /** A command through the control client while it is attached (its arguments quoted for tmux's parser). */
  private query(...args: string[]): Promise<string> {
    if (!this.control?.open) return this.tmux(...args);
    return this.control.run(args.map((arg) => quoteForTmux(arg)).join(" "));
  }

  /** The visible screen as plain text (tmux `capture-pane -p`), one line per row. */
  async screen(): Promise<string> {
    this.lastScreen = await this.query("capture-pane", "-p", "-t", "pi");
    return this.lastScreen;
  }

  /** The last screen captured (by screen() or a wait), without asking tmux again. */
  get lastCapturedScreen(): string {
    return this.lastScreen;
  }

  /**
   * Re-captures the screen every 100 ms until it contains the text (or matches the pattern); returns that
   * screen. On timeout throws an error that includes the last screen.
   */
  async waitForText(wanted: string | RegExp, timeoutMs = 20_000): Promise<string> {
    return this.waitForScreen((screen) => matches(screen, wanted), timeoutMs, `text ${describeWanted(wanted)}`);
  }

  /**
   * Like waitForText, until one screen shows every text (or pattern). Things drawn in one frame can still reach
   * tmux in more than one write: a test that asserts several of them waits for them together, not for the first.
   */
  async waitForAll(wanted: ReadonlyArray<string | RegExp>, timeoutMs = 20_000): Promise<string> {
    return this.waitForScreen(
      (screen) => wanted.every((one) => matches(screen, one)),
      timeoutMs,
      `all of ${wanted.map(describeWanted).join(", ")}`,
    );
  }

  /** Like waitForText, until the text is gone from the screen. */
  async waitForNoText(unwanted: string | RegExp, timeoutMs = 20_000): Promise<string> {
    return this.waitForScreen((screen) => !matches(screen, unwanted), timeoutMs, `no text ${describeWanted(unwanted)}`);
  }

  /** Re-captures until the predicate holds for the screen, bounded by the timeout. */
  async waitForScreen(predicate: (screen: string) => boolean, timeoutMs: number, what = "the screen"): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const screen = await this.screen();
      if (predicate(screen)) return screen;
      if (Date.now() >= deadline) {
        throw new Error(`TmuxPi: timed out after ${timeoutMs} ms waiting for ${what}. Last screen:\n${screen}`);
      }
      await sleep(POLL_INTERVAL_MS);
    }
  }

  /** The pid of the pane's shell (bash). */
  async shellPid(): Promise<number> {
    const out = await this.query("display-message", "-p", "-t", "pi", "#{pane_pid}");
    const pid = Number(out.trim());
    if (!Number.isInteger(pid) || pid <= 0) throw new Error(`TmuxPi: no pane pid (${JSON.stringify(out)})`);
    return pid;
  }

  /**
   * The harness's own processes, which carry the test's marker too and stay until the suite disposes of them: the
   * tmux server and the pane's shell, and with `withPi` the TUI's pi (when it runs). A test that checks nothing of
   * its own is left passes them to `waitForNoProcesses`.
   */
  async harnessPids(withPi = false): Promise<number[]> {
    const pids = [await this.shellPid(), Number((await this.query("display-message", "-p", "#{pid}")).trim())];
    return withPi ? [...pids, (await this.piPid()) ?? -1] : pids;
  }

  /**
   * The pid of the pi node process: the child of the pane's shell (found through /proc, not by name).
   * Undefined when pi is not running (not started yet, or exited).
   */
  async piPid(): Promise<number | undefined> {
    const shell = await this.shellPid();
    const children = childPids(shell).filter(isAlive);
    const pid = children[0];
    if (pid !== undefined) this.knownPiPid = pid;
    return pid;
  }

  private async waitForPiPid(timeoutMs: number): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const pid = await this.piPid();
      if (pid !== undefined) return pid;
      if (Date.now() >= deadline)
        throw new Error(`TmuxPi: pi's process did not appear within ${timeoutMs} ms. Last screen:\n${this.lastScreen}`);
      await sleep(POLL_INTERVAL_MS);
    }
  }

  /** Waits (bounded) until pi's process has exited. */
  async waitForPiExit(timeoutMs = 20_000): Promise<void> {
    const pid = this.knownPiPid ?? (await this.piPid());
    if (pid === undefined) return;
    const deadline = Date.now() + timeoutMs;
    while (isAlive(pid)) {
      if (Date.now() >= deadline) {
        const screen = await this.screen().catch(() => this.lastScreen);
        throw new Error(`TmuxPi: pi (pid ${pid}) still running after ${timeoutMs} ms. Last screen:\n${screen}`);
      }
      await sleep(POLL_INTERVAL_MS);
    }
  }

  /**
   * Quits pi the way a person does: `/quit` + Enter (or, with `{ via: "ctrl-d" }`, Ctrl+D); both expect an
   * empty editor and no open dialog.
   * Waits until pi has exited and returns its exit status as the shell saw it.
   */
  async quit(options: { via?: "command" | "ctrl-d"; timeoutMs?: number } = {}): Promise<number> {
    const timeoutMs = options.timeoutMs ?? 20_000;
    if (options.via === "ctrl-d") await this.press("C-d");
    else await this.submit("/quit");
    await this.waitForPiExit(timeoutMs);
    return this.lastExitCode(timeoutMs);
  }

  /** Asks the shell for `$?` (the exit status of the last command, i.e. pi once it has exited). */
  async lastExitCode(timeoutMs = 10_000): Promise<number> {
    await this.submitToShell(`echo "${EXIT_CODE_PREFIX}$?"`);
    const pattern = new RegExp(`^${EXIT_CODE_PREFIX}(\\d+)\\s*$`, "m");
    const screen = await this.waitForText(pattern, timeoutMs);
    return Number(pattern.exec(screen)?.[1]);
  }

  /** Kills this session's private tmux server (and with it the shell and, by SIGHUP, pi). */
  async kill(): Promise<void> {
    try {
      await this.tmux("kill-server");
    } catch {
      // no server running (already killed, or never started)
    }
  }

  /** Always safe and idempotent: kills the private server and removes its temp dir. */
  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    await this.kill();
    this.control?.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/**
 * Types a command whose last word pi completes (a task id prefix) and submits it as typed. pi offers the matching
 * completions as soon as the prefix is typed, and Enter on an open list accepts a completion instead of sending;
 * on a loaded machine the list may still be the one for the text before the prefix. So wait for `suggested` (a
 * text of the list), close the list with Escape, and only then press Enter. Returns the screen with the list.
 */
export async function submitWithoutCompletion(t: TmuxPi, command: string, suggested: string): Promise<string> {
  await t.type(command);
  const screen = await t.waitForText(suggested, 15_000);
  await t.press("Escape");
  await t.waitForNoText(suggested, 10_000);
  await t.press("Enter");
  return screen;
}
