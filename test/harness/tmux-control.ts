/**
 * One tmux control-mode client (`tmux -C`) on a TmuxPi's private server: commands go down its stdin and their
 * output comes back between `%begin` and `%end` lines, with no process started per command. A TUI test reads the
 * screen every 100 ms while it waits; a `tmux capture-pane` process per read cost about 15 ms of CPU on these
 * machines, a good part of the suite's time on two cores.
 *
 * The client attaches with `no-output` (pi's drawing is not copied to it) and `ignore-size` (the window keeps its
 * size). It runs without the test's marker variable: it is the harness's, not something the test started, and it
 * ends with the server (or at close()).
 */
import { spawn, type ChildProcess } from "node:child_process";

interface Pending {
  resolve: (output: string) => void;
  reject: (error: Error) => void;
  command: string;
}

export class TmuxControl {
  private readonly child: ChildProcess;
  private readonly pending: Pending[] = [];
  private buffered = "";
  /** The lines of the block being read, when inside one this client's command opened. */
  private block: string[] | undefined;
  private closed = false;

  /** `env`: the tmux client's environment (the server's is its own already). */
  constructor(tmux: string, socketPath: string, session: string, env: NodeJS.ProcessEnv) {
    this.child = spawn(tmux, ["-S", socketPath, "-C", "attach-session", "-f", "no-output,ignore-size", "-t", session], {
      env,
      stdio: ["pipe", "pipe", "ignore"],
    });
    this.child.stdout?.setEncoding("utf8");
    this.child.stdout?.on("data", (chunk: string) => this.read(chunk));
    this.child.stdin?.on("error", () => this.fail("its input closed"));
    this.child.on("error", (error) => this.fail(error.message));
    this.child.on("exit", () => this.fail("it exited"));
  }

  /** False once the client is gone (the server was killed, or close() was called): use a tmux process then. */
  get open(): boolean {
    return !this.closed;
  }

  /** Runs one command (tmux's command syntax: quote any argument that has blanks) and returns what it printed. */
  run(command: string): Promise<string> {
    if (this.closed) return Promise.reject(new Error(`tmux control client closed before ${command}`));
    return new Promise((resolve, reject) => {
      this.pending.push({ resolve, reject, command });
      this.child.stdin?.write(`${command}\n`);
    });
  }

  /** Detaches the client and makes sure its process is gone. */
  close(): void {
    this.fail("it was closed");
    this.child.stdin?.end();
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill("SIGTERM");
  }

  private fail(why: string): void {
    if (this.closed) return;
    this.closed = true;
    for (const waiting of this.pending.splice(0))
      waiting.reject(new Error(`tmux control client: ${why} before ${waiting.command} answered`));
  }

  private read(chunk: string): void {
    this.buffered += chunk;
    for (let end = this.buffered.indexOf("\n"); end !== -1; end = this.buffered.indexOf("\n")) {
      const line = this.buffered.slice(0, end);
      this.buffered = this.buffered.slice(end + 1);
      this.line(line);
    }
  }

  /**
   * A block's guard lines carry time, command number and flags; flags 1 marks a command this client sent (the
   * attach itself answers with flags 0). Notifications (`%session-changed`, ...) come only between blocks.
   */
  private line(line: string): void {
    if (this.block === undefined) {
      if (/^%begin \d+ \d+ 1$/.test(line)) this.block = [];
      return;
    }
    const guard = /^%(end|error) \d+ \d+ 1$/.exec(line);
    if (!guard) {
      this.block.push(line);
      return;
    }
    const output = this.block.map((text) => `${text}\n`).join("");
    this.block = undefined;
    const waiting = this.pending.shift();
    if (!waiting) return;
    if (guard[1] === "end") waiting.resolve(output);
    else waiting.reject(new Error(`tmux ${waiting.command} failed: ${output.trim()}`));
  }
}
