/**
 * Messages to a running child, coalesced. pi delivers queued steers one per model call (its default steering
 * mode), so a burst of messages would cost the child one model call each. Instead at most one steer is
 * waiting in the child at a time: the first message goes at once; those that arrive while it waits are held,
 * and when the child takes the waiting one in (its user message shows in the child's event stream), all held
 * messages go as one steer, in the order they came. Pure: the runner gives it the send and reports the take-in.
 */

/** Part of the header every message to a running child carries (see markedMessage in rpc-protocol.ts). */
export const RUNNING_MESSAGE_MARK = "sent while you were working]";

/**
 * The prompt that starts one more run when the child ended its run with a steer still waiting (it arrived
 * just after pi's last look at its queue): pi's new run takes the waiting steer in first, after this line.
 */
export const STRANDED_STEER_PROMPT =
  "[Messages sent to you while you were finishing follow. Take them into account; your reply to them is your final answer.]";

/** Between two messages of one coalesced steer. */
export const MESSAGE_SEPARATOR = "\n\n";

const MESSAGE_END_PREFIX = '{"type":"message_end"';

/** Whether a line of the child's stream is the child taking in one of our steers. */
export function isSteerTakenIn(line: string): boolean {
  return line.startsWith(MESSAGE_END_PREFIX) && line.includes('"role":"user"') && line.includes(RUNNING_MESSAGE_MARK);
}

export class SteerBatch {
  private readonly send: (text: string) => boolean;
  /** A steer was sent that the child has not taken in yet. */
  private waiting = false;
  private held: string[] = [];

  constructor(send: (text: string) => boolean) {
    this.send = send;
  }

  /** Sends `text` now, or holds it for the next steer; false when it could not be sent (the child's input is closed). */
  offer(text: string): boolean {
    if (this.waiting) {
      this.held.push(text);
      return true;
    }
    if (!this.send(text)) return false;
    this.waiting = true;
    return true;
  }

  /** The child took the waiting steer in: send everything held as one steer. */
  takenIn(): void {
    if (this.held.length === 0) {
      this.waiting = false;
      return;
    }
    const text = this.held.join(MESSAGE_SEPARATOR);
    this.held = [];
    this.waiting = this.send(text);
  }

  /**
   * At the end of the child's run: whether a steer is still waiting in the child (sent after its last look at
   * its queue), so the run must go on for it. Answers true once per such steer.
   */
  takeStranded(): boolean {
    if (!this.waiting) return false;
    this.waiting = false;
    return true;
  }

  /** Messages held for the next steer. */
  get heldCount(): number {
    return this.held.length;
  }
}
