/**
 * The pool of warm children (pi 1.x, the main pi only): after a delegation ends, one child of its shape is started
 * ahead with the command line the next such call would give a cold child (src/warm/warm-launch.ts), and waits. The
 * next call that would start exactly that child takes it instead: only its run lock is written and its task sent
 * over RPC, so it reaches the model in tens of milliseconds instead of pi's whole start. Anything that differs (the
 * command line, the agent's body, a file pi read as it started) starts cold, and the waiting child is ended.
 *
 * A waiting child is bounded: it ends after its idle time, when another shape needs its place, at session switch,
 * `/reload` and exit, and with its pi when that dies hard (it watches its parent, or its sandbox dies with it, as
 * every child does). It holds no model connection (it has sent nothing) and keeps nothing alive: its process and
 * pipes are unreferenced while it waits, and its output waits unread in its pipe until a run takes it.
 */
import type { Readable, Writable } from "node:stream";
import { listPaths } from "../authority/start-snapshot.ts";
import { isEmptyMountPoint } from "../sandbox/mount-points.ts";
import { spawnChild, type SpawnedChild, type WarmSlot } from "../run/runner.ts";
import type { ChildCommand } from "../run/command-line.ts";
import type { RunOutcome } from "../run/event-reducer.ts";
import {
  createSessionFile,
  dropWarmLock,
  removeWarmFolder,
  sessionFilePath,
  writeAgentPrompt,
  writeWarmLock,
} from "../run/session-files.ts";
import {
  killTreeNow,
  onChildSettled,
  onProcessExit,
  startingChildCount,
  trackChild,
  treeRssKiB,
  untrackChild,
} from "../run/processes.ts";
import {
  commandForTask,
  sameLaunch,
  warmableCall,
  startupInputs,
  type StartupInputs,
  type WarmChildView,
  type WarmSettings,
} from "./warm-launch.ts";
import { newTaskId } from "../shared/run-settings.ts";
import { perProcess } from "../shared/this-process.ts";

/**
 * How long after a delegation's end its next child is started ahead: long enough for a `pi -p` whose work is done to
 * exit first (it starts none then), short beside the seconds a model takes before its next call.
 */
export const WARM_START_DELAY_MS = 300;

/** A delegation that ended: the shape of the child the next call like it would start. */
export interface WarmTemplate {
  taskId: string;
  command: ChildCommand;
  cwd: string;
  agentDir: string;
  agentName: string;
  home: string;
  /** The agent's body in its prompt file; absent: the agent has none. */
  body?: string;
  /**
   * What pi reads as it starts, as it was when the call was prepared (`startupFingerprint`): a child started ahead
   * only while it is unchanged, so nothing written since (by the task's own child, say: a new `.pi/extensions` file)
   * runs in a child nobody asked for, under an authority decided before it was there.
   */
  fingerprint: string;
}

/** A call that took a waiting child's task id: it claims the child once its own command line is built. */
export interface WarmReservation {
  taskId: string;
  sessionFile: string;
  /** The protected paths its sandbox made: the call's child would find them missing, as this one did. */
  madePaths: readonly string[];
  /** The child, when `command` and `body` are the ones it started with and nothing it read changed; else ends it. */
  claim(command: ChildCommand, body: string | undefined): SpawnedChild | undefined;
  /** The call will not run (refused, or cancelled while queued): the child is ended, the folder is the call's. */
  cancel(): void;
}

interface WaitingChild {
  key: string;
  taskId: string;
  command: ChildCommand;
  cwd: string;
  agentDir: string;
  agentName: string;
  body: string | undefined;
  inputs: StartupInputs;
  fingerprint: string;
  spawned: SpawnedChild;
  startedAt: number;
  timer: NodeJS.Timeout;
  exited: boolean;
  mountPointsReleased: boolean;
  /** Stops the pool's watch on the child's end (a run that takes the child watches it from then on). */
  unwatch: () => void;
}

/**
 * What pi would read as it starts, as one text: each input's identity (inode, size, times) and, for a folder,
 * everything under it, listed as the files project trust guards are (src/authority/start-snapshot.ts). A path the
 * child's own sandbox made (an empty mount point) counts as missing, as it was when the child started.
 */
function fingerprintOf(inputs: StartupInputs, made: readonly string[] = []): string {
  const listing = listPaths([...inputs.files, ...inputs.folders]);
  return [...listing]
    .filter(([path]) => !(made.includes(path) && isEmptyMountPoint(path)))
    .map(([path, id]) => `${path}=${id}`)
    .join("\n");
}

/** What the child of `template` reads as it starts (its `-e` and `--skill` paths hold no task id). */
function inputsOf(template: Omit<WarmTemplate, "fingerprint">): StartupInputs {
  return startupInputs({
    cwd: template.cwd,
    agentDir: template.agentDir,
    home: template.home,
    args: template.command.args,
    sandboxed: template.command.sandboxArgs !== undefined,
  });
}

/**
 * What pi reads as it starts, now, for a call about to start the child of `template` (its `fingerprint`); `made`: the
 * mount points of the warm child the call reserved, which count as missing.
 */
export function startupFingerprint(template: Omit<WarmTemplate, "fingerprint">, made: readonly string[] = []): string {
  return fingerprintOf(inputsOf(template), made);
}

function keyOf(agentDir: string, agentName: string, cwd: string): string {
  return `${agentDir}\0${agentName}\0${cwd}`;
}

/** Its pipes and process stop keeping pi alive while it waits (`pi -p` exits as if it were not there), or again do. */
function holdLoop(spawned: SpawnedChild, hold: boolean): void {
  const { child } = spawned;
  for (const stream of [child.stdin, child.stdout, child.stderr] as (Readable | Writable | null)[]) {
    const handle = stream as unknown as { ref?: () => void; unref?: () => void } | null;
    if (hold) handle?.ref?.();
    else handle?.unref?.();
  }
  if (hold) child.ref();
  else child.unref();
}

function releaseMountPoints(entry: WaitingChild): void {
  if (entry.mountPointsReleased) return;
  entry.mountPointsReleased = true;
  entry.spawned.mountPointClaim.release();
}

export class WarmPool {
  private readonly waiting = new Map<string, WaitingChild>();
  /** Shapes whose next child waits for the children now starting (the latest template of each). */
  private readonly deferred = new Map<string, WarmTemplate>();
  private stopDeferring: (() => void) | undefined;
  private settings: Pick<WarmSettings, "max" | "idleMs"> = { max: 0, idleMs: 0 };
  private removeExitHook: (() => void) | undefined;

  constructor(
    private readonly now: () => number = Date.now,
    /** How long after a delegation's end its next child is started (tests: 0). */
    private readonly startDelayMs: number = WARM_START_DELAY_MS,
  ) {}

  /** Takes the person's current setting; a lower cap ends the children over it. */
  configure(settings: Pick<WarmSettings, "max" | "idleMs">): void {
    this.settings = { max: settings.max, idleMs: settings.idleMs };
    while (this.waiting.size > this.settings.max) this.endOldest();
    if (this.settings.max === 0) this.forgetDeferred();
  }

  /** The waiting child of this agent in this folder, set aside for one call, or undefined. */
  reserve(agentDir: string, agentName: string, cwd: string): WarmReservation | undefined {
    if (this.settings.max === 0) return undefined;
    const entry = this.waiting.get(keyOf(agentDir, agentName, cwd));
    if (!entry || entry.exited) return undefined;
    this.waiting.delete(entry.key);
    clearTimeout(entry.timer);
    let settled = false;
    const end = () => {
      settled = true;
      this.kill(entry);
      dropWarmLock(entry.agentDir, entry.taskId);
    };
    return {
      taskId: entry.taskId,
      sessionFile: sessionFilePath(entry.agentDir, entry.taskId),
      madePaths: entry.spawned.mountPointClaim.made,
      claim: (command, body) => {
        if (settled) return undefined;
        const same =
          !entry.exited &&
          sameLaunch(entry.command, command) &&
          entry.body === body &&
          fingerprintOf(entry.inputs, entry.spawned.mountPointClaim.made) === entry.fingerprint;
        if (!same) {
          end();
          return undefined;
        }
        settled = true;
        entry.unwatch();
        dropWarmLock(entry.agentDir, entry.taskId);
        holdLoop(entry.spawned, true);
        return entry.spawned;
      },
      cancel: () => {
        if (!settled) end();
      },
    };
  }

  /**
   * A delegation ended: unless a child of its shape waits already, one is started a moment later (a pi that ends
   * right after its delegation, as `pi -p` often does, starts none), once no child of this pi is still loading pi:
   * a child started ahead would take a core from the children of the calls made now (a fan-out's other parts).
   */
  remember(template: WarmTemplate, outcome: RunOutcome): void {
    // A child that never reached the model (it could not start, its pi failed) is not worth starting again ahead.
    if (this.settings.max === 0 || outcome.usage.turns === 0) return;
    this.fillLater([template]);
  }

  private fillLater(templates: WarmTemplate[]): void {
    const timer = setTimeout(() => {
      for (const template of templates) {
        if (startingChildCount() > 0) {
          this.defer(template);
          continue;
        }
        try {
          this.fill(template);
        } catch {
          // a child that cannot be started ahead is started when its call comes, and says why then
        }
      }
    }, this.startDelayMs);
    timer.unref();
  }

  private defer(template: WarmTemplate): void {
    this.deferred.set(keyOf(template.agentDir, template.agentName, template.cwd), template);
    this.stopDeferring ??= onChildSettled(() => {
      if (startingChildCount() > 0) return;
      const templates = [...this.deferred.values()];
      this.forgetDeferred();
      this.fillLater(templates);
    });
  }

  private forgetDeferred(): void {
    this.deferred.clear();
    this.stopDeferring?.();
    this.stopDeferring = undefined;
  }

  /** Whether a call could be served by a child started ahead (src/warm/warm-launch.ts). */
  warmable(call: Parameters<typeof warmableCall>[0]): boolean {
    return warmableCall(call);
  }

  /**
   * A run's link to the pool: the reserved child if the call's command line is the one it started with, and, when
   * the run ends, the next child of its shape, started from `template` (its start inputs read now, as the call is
   * prepared; `reservation`'s own mount points count as missing). `taken` is told when the child is taken.
   */
  slot(
    reservation: WarmReservation | undefined,
    template: Omit<WarmTemplate, "fingerprint">,
    taken: () => void,
  ): WarmSlot {
    const full: WarmTemplate = { ...template, fingerprint: startupFingerprint(template, reservation?.madePaths) };
    return {
      take: () => {
        const child = reservation?.claim(full.command, full.body);
        if (child) taken();
        return child;
      },
      ended: (outcome) => {
        try {
          this.remember(full, outcome);
        } catch {
          // the pool is a speed-up: the next call starts cold
        }
      },
    };
  }

  /** The children waiting now, for `/subagent-usage`. */
  describe(): WarmChildView[] {
    return [...this.waiting.values()].map((entry) => ({
      agent: entry.agentName,
      cwd: entry.cwd,
      pid: entry.spawned.child.pid,
      idleMs: this.now() - entry.startedAt,
      ...(entry.spawned.child.pid !== undefined ? { rssKiB: treeRssKiB(entry.spawned.child.pid) } : {}),
    }));
  }

  get max(): number {
    return this.settings.max;
  }

  /** Ends every waiting child and removes its folder (session switch, `/reload`, exit). Synchronous. */
  drain(): void {
    this.forgetDeferred();
    for (const entry of [...this.waiting.values()]) this.end(entry);
  }

  private fill(template: WarmTemplate): void {
    if (this.settings.max === 0) return;
    const inputs = inputsOf(template);
    // Read before the start: a change made while the child reads its files shows as a change at its claim.
    const fingerprint = fingerprintOf(inputs);
    if (fingerprint !== template.fingerprint) return;
    const key = keyOf(template.agentDir, template.agentName, template.cwd);
    const present = this.waiting.get(key);
    if (present) {
      const same =
        sameLaunch(present.command, commandForTask(template.command, template.taskId, present.taskId)) &&
        present.body === template.body;
      if (same) return;
      // The last call of this agent here was started differently (another model, tools, sandbox): it is the next.
      this.end(present);
    }
    while (this.waiting.size >= this.settings.max) this.endOldest();
    const taskId = newTaskId();
    const command = commandForTask(template.command, template.taskId, taskId);
    createSessionFile(template.agentDir, taskId, template.cwd);
    let spawned: SpawnedChild;
    try {
      if (template.body !== undefined) writeAgentPrompt(template.agentDir, taskId, template.body);
      writeWarmLock(template.agentDir, taskId);
      spawned = spawnChild(command, template.cwd);
      const entry: WaitingChild = {
        key,
        taskId,
        command,
        cwd: template.cwd,
        agentDir: template.agentDir,
        agentName: template.agentName,
        body: template.body,
        inputs,
        fingerprint,
        spawned,
        startedAt: this.now(),
        timer: setTimeout(() => this.end(entry), this.settings.idleMs),
        exited: false,
        mountPointsReleased: false,
        unwatch: () => {},
      };
      entry.timer.unref();
      this.watch(entry);
      this.waiting.set(key, entry);
      this.removeExitHook ??= onProcessExit(() => this.drain());
    } catch (error) {
      removeWarmFolder(template.agentDir, taskId);
      throw error;
    }
  }

  private watch(entry: WaitingChild): void {
    const { child } = entry.spawned;
    const pid = child.pid;
    if (pid !== undefined) trackChild(pid, entry.spawned.marker);
    holdLoop(entry.spawned, false);
    // Not yet taken: nothing reads its output, which waits in its pipe for the run that takes it.
    const gone = () => {
      if (entry.exited) return;
      entry.exited = true;
      if (pid !== undefined) untrackChild(pid);
      releaseMountPoints(entry);
      // Died while waiting (its pi's exit, a crash): its folder goes with it, unless a call holds its id.
      if (this.waiting.get(entry.key) === entry) {
        this.waiting.delete(entry.key);
        clearTimeout(entry.timer);
        removeWarmFolder(entry.agentDir, entry.taskId);
      }
    };
    child.once("exit", gone);
    child.once("error", gone);
    entry.unwatch = () => {
      child.off("exit", gone);
      child.off("error", gone);
    };
  }

  /** Ends a waiting child and removes its folder. */
  private end(entry: WaitingChild): void {
    if (this.waiting.get(entry.key) === entry) this.waiting.delete(entry.key);
    clearTimeout(entry.timer);
    this.kill(entry);
    removeWarmFolder(entry.agentDir, entry.taskId);
  }

  private endOldest(): void {
    const oldest = [...this.waiting.values()].sort((a, b) => a.startedAt - b.startedAt)[0];
    if (oldest) this.end(oldest);
  }

  /**
   * At once, with its whole tree: it has no work to lose, and a cold child of the same task id may start right after,
   * which an ending spread over a grace period would reach through the shared task marker.
   */
  private kill(entry: WaitingChild): void {
    const pid = entry.spawned.child.pid;
    if (pid !== undefined && !entry.exited) killTreeNow(pid, entry.spawned.marker);
    // Its sandbox's mount points go now, not at its exit event, which a pi that is exiting never sees: a child that
    // was never given a task has nothing that could use the moment to create a protected path for real.
    releaseMountPoints(entry);
  }
}

/** This process's pool (one for every load of the extension: a `/reload` drains it, the next load reuses it). */
export function warmPool(): WarmPool {
  return perProcess("warm-children", () => new WarmPool());
}
