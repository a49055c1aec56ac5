/**
 * Keeps the progress widget and the footer segment in step with the background tasks.
 *
 * - The widget is set once when the first task appears and removed (setWidget undefined) when none is left;
 *   in between it is only redrawn.
 * - One shared 1 s timer redraws it (the elapsed clocks) and runs only while tasks are in flight; it is
 *   unref'd so it never keeps pi alive.
 * - A task added, started or ended shows at once; a child's progress redraws at most every `throttleMs`, so a
 *   chatty child does not redraw the screen for every event it prints.
 * - Without a UI (print/JSON mode, before `session_start`, after `session_shutdown`) nothing is drawn.
 */
import type { ExtensionUIContext } from "@mariozechner/pi-coding-agent";
import type { Counts } from "../../tasks/background-tasks.ts";
import type { TaskSnapshot } from "../../tasks/registry.ts";
import { ProgressWidget, WIDGET_KEY } from "./progress-widget.ts";
import { STATUS_KEY, styledStatus } from "./status-segment.ts";

/** What the controller reads from the background tasks. */
export interface TaskSource {
  snapshot(): TaskSnapshot[];
  counts(): Counts;
  onChange(listener: () => void): () => void;
  /** A subagent question waiting for the person, as the widget's line. */
  waitingQuestion?(): string | undefined;
}

/** The part of pi's UI it uses. */
export type ProgressUi = Pick<ExtensionUIContext, "setWidget" | "setStatus" | "theme">;

export interface ProgressControllerOptions {
  tickMs?: number;
  throttleMs?: number;
  now?: () => number;
}

export const TICK_MS = 1000;
export const THROTTLE_MS = 250;

export class ProgressController {
  private readonly tickMs: number;
  private readonly throttleMs: number;
  private readonly now: () => number;
  private unsubscribe: (() => void) | undefined;
  private ticker: NodeJS.Timeout | undefined;
  private pending: NodeJS.Timeout | undefined;
  private lastRefreshAt = Number.NEGATIVE_INFINITY;
  private lastCounts = "";
  /** The UI the widget is currently set on, and the redraw hook pi gave its component. */
  private shownOn: ProgressUi | undefined;
  private requestRender: (() => void) | undefined;
  private statusOn: ProgressUi | undefined;
  private lastStatus: string | undefined;

  constructor(
    private readonly source: TaskSource,
    private readonly ui: () => ProgressUi | undefined,
    options: ProgressControllerOptions = {},
  ) {
    this.tickMs = options.tickMs ?? TICK_MS;
    this.throttleMs = options.throttleMs ?? THROTTLE_MS;
    this.now = options.now ?? Date.now;
  }

  start(): void {
    this.unsubscribe ??= this.source.onChange(() => this.scheduleRefresh());
    this.refresh();
  }

  /** Whether the 1 s timer is running (for tests and diagnostics). */
  get ticking(): boolean {
    return this.ticker !== undefined;
  }

  private scheduleRefresh(): void {
    // A task added, started or ended shows at once; only progress within the same counts is throttled.
    if (countsKey(this.source.counts()) !== this.lastCounts) {
      this.refresh();
      return;
    }
    if (this.pending) return;
    const wait = this.lastRefreshAt + this.throttleMs - this.now();
    if (wait <= 0) {
      this.refresh();
      return;
    }
    this.pending = setTimeout(() => {
      this.pending = undefined;
      this.refresh();
    }, wait);
    this.pending.unref();
  }

  /** Brings the widget, the status segment and the timer in line with the tasks now. */
  refresh(): void {
    if (this.pending) clearTimeout(this.pending);
    this.pending = undefined;
    this.lastRefreshAt = this.now();
    const ui = this.ui();
    const counts = this.source.counts();
    this.lastCounts = countsKey(counts);
    const inFlight = counts.running + counts.queued > 0;
    if (!ui) {
      this.forgetUi();
      return;
    }
    if (inFlight) {
      if (this.shownOn !== ui) this.showWidget(ui);
      else this.requestRender?.();
      this.startTicker();
    } else {
      this.hideWidget();
      this.stopTicker();
    }
    this.updateStatus(ui, counts);
  }

  /** Clears what is on screen and forgets the UI (the session is going away); tasks are still followed. */
  detach(): void {
    this.hideWidget();
    if (this.statusOn && this.lastStatus !== undefined) safely(() => this.statusOn?.setStatus(STATUS_KEY, undefined));
    this.forgetUi();
  }

  /** Stops following the tasks altogether. */
  dispose(): void {
    this.detach();
    this.unsubscribe?.();
    this.unsubscribe = undefined;
  }

  private showWidget(ui: ProgressUi): void {
    this.hideWidget();
    this.shownOn = ui;
    safely(() =>
      ui.setWidget(WIDGET_KEY, (tui, theme) => {
        this.requestRender = () => tui.requestRender();
        return new ProgressWidget(() => this.source.snapshot(), theme, this.now, undefined, () => this.source.waitingQuestion?.());
      }),
    );
  }

  private hideWidget(): void {
    const ui = this.shownOn;
    this.shownOn = undefined;
    this.requestRender = undefined;
    if (ui) safely(() => ui.setWidget(WIDGET_KEY, undefined));
  }

  private updateStatus(ui: ProgressUi, counts: Counts): void {
    const text = safely(() => styledStatus(counts, ui.theme));
    if (text === this.lastStatus && (this.statusOn === ui || text === undefined)) return;
    this.statusOn = ui;
    this.lastStatus = text;
    safely(() => ui.setStatus(STATUS_KEY, text));
  }

  private forgetUi(): void {
    this.shownOn = undefined;
    this.requestRender = undefined;
    this.statusOn = undefined;
    this.lastStatus = undefined;
    this.stopTicker();
    if (this.pending) clearTimeout(this.pending);
    this.pending = undefined;
  }

  private startTicker(): void {
    if (this.ticker) return;
    this.ticker = setInterval(() => this.refresh(), this.tickMs);
    this.ticker.unref();
  }

  private stopTicker(): void {
    if (this.ticker) clearInterval(this.ticker);
    this.ticker = undefined;
  }
}

function countsKey(counts: Counts): string {
  return `${counts.running}/${counts.queued}/${counts.done}`;
}

/** UI calls on a context pi has replaced may throw; the next session's context takes over then. */
function safely<T>(action: () => T): T | undefined {
  try {
    return action();
  } catch {
    return undefined;
  }
}
