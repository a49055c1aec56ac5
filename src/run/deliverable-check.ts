/**
 * The deliverable check behind the runner's settle seam (`RunSpec.settle`): when a child's run ends on its own,
 * its final message is classified (src/run/deliverable.ts). `ok` lets it close, with no file read and no extra
 * prompt. A pointer to a file inside the child's working folder attaches the file's text. Anything else sends the
 * still-live child back once with RESTATE_PROMPT; its next final message is then `restated`, `attached <file>` or
 * `missing`. A JSON-mode child has no seam (nothing can be sent to it): its answer is classified and a file
 * attached when it ends, never restated.
 */
import { closeSync, openSync, readSync, realpathSync, statSync } from "node:fs";
import { isAbsolute, relative, resolve } from "node:path";
import {
  attachedHeading,
  classifyDeliverable,
  RESTATE_PROMPT,
  type DeliverableNote,
  type DeliverableVerdict,
} from "./deliverable.ts";
import type { RunOutcome, RunState } from "./event-reducer.ts";
import type { SettleCheck } from "./runner.ts";

/** The most of a pointed-to file that is read; the result is then cut like any output (PI_SUBAGENT_MAX_OUTPUT). */
const MAX_ATTACHED_BYTES = 1024 * 1024;

/**
 * The text of `file` when it is a regular file inside `folder` (after following every link), else undefined.
 * Read up to MAX_ATTACHED_BYTES; a longer file says it was cut.
 */
function readInsideFolder(folder: string, file: string): string | undefined {
  try {
    const root = realpathSync(folder);
    const real = realpathSync(resolve(root, file));
    const inside = relative(root, real);
    if (inside === "" || inside.startsWith("..") || isAbsolute(inside)) return undefined;
    const stats = statSync(real);
    if (!stats.isFile()) return undefined;
    const buffer = Buffer.alloc(Math.min(stats.size, MAX_ATTACHED_BYTES));
    const fd = openSync(real, "r");
    let length = 0;
    try {
      length = readSync(fd, buffer, 0, buffer.length, 0);
    } finally {
      closeSync(fd);
    }
    const text = buffer.subarray(0, length).toString("utf8");
    return stats.size > MAX_ATTACHED_BYTES ? `${text}\n[… cut at ${MAX_ATTACHED_BYTES} bytes of ${stats.size}]` : text;
  } catch {
    return undefined;
  }
}

function verdictOf(state: Pick<RunState, "finalText" | "stopReason">): DeliverableVerdict {
  return classifyDeliverable({ text: state.finalText, endedOnToolCall: state.stopReason === "toolUse" });
}

export class DeliverableCheck implements SettleCheck {
  private asked = false;
  private note: DeliverableNote | undefined;
  private attached: { file: string; text: string } | undefined;

  /** `folder`: the child's working folder (its cwd or worktree); a pointed-to file must be inside it. */
  constructor(private readonly folder: string) {}

  /** The file a verdict points to, attached when it is readable inside the folder. */
  private attach(verdict: DeliverableVerdict): boolean {
    if (verdict.kind !== "pointer-to-file" || !verdict.file) return false;
    const text = readInsideFolder(this.folder, verdict.file);
    if (text === undefined) return false;
    this.attached = { file: verdict.file, text };
    this.note = `attached ${verdict.file}`;
    return true;
  }

  afterRun(state: Readonly<RunState>): Promise<string | undefined> {
    // An answer cut off (`length`) or aborted is a failed run, judged as such: no restate for it.
    if (state.stopReason !== undefined && state.stopReason !== "stop" && state.stopReason !== "toolUse")
      return Promise.resolve(undefined);
    const verdict = verdictOf(state);
    if (verdict.kind === "ok") this.note = this.asked ? "restated" : "ok";
    else if (!this.attach(verdict)) {
      if (!this.asked) {
        this.asked = true;
        return Promise.resolve(RESTATE_PROMPT);
      }
      this.note = "missing";
    }
    return Promise.resolve(undefined);
  }

  /** Adds what the check found to a finished run's outcome (a JSON child's answer is classified here). */
  conclude(outcome: RunOutcome, state: Readonly<RunState>): void {
    if (outcome.status !== "succeeded") return;
    if (this.note === undefined) {
      const verdict = verdictOf(state);
      if (verdict.kind === "ok") this.note = "ok";
      else if (!this.attach(verdict)) this.note = "missing";
    }
    if (this.note === undefined) return;
    outcome.deliverable = this.note;
    if (this.attached)
      outcome.output = `${outcome.output}\n\n${attachedHeading(this.attached.file)}\n\n${this.attached.text}`;
  }
}

/** The check for a dispatch: none when the agent's config entry or frontmatter says `deliverableCheck: false`. */
export function deliverableCheckFor(enabled: boolean | undefined, folder: string): DeliverableCheck | undefined {
  return enabled === false ? undefined : new DeliverableCheck(folder);
}
