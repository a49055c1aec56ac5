/**
 * Drives `pi --mode rpc` for end-to-end tests: send commands as JSON lines on stdin, wait for events on stdout.
 * pi runs in its own process group; `stop()` ends the group.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { EventEmitter } from "node:events";
import { PI_CLI, PI_NODE } from "./pi-env.ts";
import { waitForMatch } from "./wait-for-match.ts";

export type RpcEvent = Record<string, unknown>;

export class PiRpc {
  readonly events: RpcEvent[] = [];
  /** Lines on stdout that are not JSON: anything here broke the RPC stream a client reads. */
  readonly strayLines: string[] = [];
  stderr = "";
  private readonly emitter = new EventEmitter();
  private buffer = "";
  private exited: Promise<number | null>;

  private constructor(private readonly child: ChildProcessWithoutNullStreams) {
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => this.onData(chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (this.stderr += chunk));
    this.exited = new Promise((resolve) => child.on("close", (code) => resolve(code)));
  }

  static start(args: string[], options: { env: NodeJS.ProcessEnv; cwd: string }): PiRpc {
    const child = spawn(PI_NODE, [PI_CLI, "--mode", "rpc", ...args], {
      cwd: options.cwd,
      env: options.env,
      stdio: ["pipe", "pipe", "pipe"],
      detached: true,
    });
    return new PiRpc(child);
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  private onData(chunk: string): void {
    this.buffer += chunk;
    let newline: number;
    while ((newline = this.buffer.indexOf("\n")) >= 0) {
      const line = this.buffer.slice(0, newline);
      this.buffer = this.buffer.slice(newline + 1);
      if (!line.trim()) continue;
      try {
        const event = JSON.parse(line) as RpcEvent;
        this.events.push(event);
        this.emitter.emit("event", event);
      } catch {
        this.strayLines.push(line);
      }
    }
  }

  send(command: Record<string, unknown>): void {
    this.child.stdin.write(`${JSON.stringify(command)}\n`);
  }

  waitForEvent(predicate: (event: RpcEvent) => boolean, timeoutMs = 60_000, what = "an event"): Promise<RpcEvent> {
    return waitForMatch(
      this.events,
      this.emitter,
      "event",
      predicate,
      timeoutMs,
      () => `rpc: timed out after ${timeoutMs} ms waiting for ${what}; stderr: ${this.stderr.slice(-2000)}`,
    );
  }

  /** Ends pi: closes stdin, then terminates its process group; resolves with the exit code. */
  async stop(): Promise<number | null> {
    this.child.stdin.end();
    if (this.child.pid !== undefined && this.child.exitCode === null) {
      try {
        process.kill(-this.child.pid, "SIGTERM");
      } catch {
        // already gone
      }
    }
    return this.exited;
  }
}
