/**
 * Splits a child's stdout into lines with bounded memory. A line longer than `maxLineChars` is not kept whole:
 * only its head and tail survive (enough for the fast paths of the event reducer), so a runaway child cannot
 * make us buffer without limit.
 */

export interface SplitLine {
  /** The whole line, when it fitted. */
  text?: string;
  /** For an oversized line: its first and last characters, and its full length. */
  head?: string;
  tail?: string;
  length: number;
}

/** 8 Mi characters: far above any real answer, and low enough that a child printing 100 MB without a newline stays within 64 MB of heap. */
export const DEFAULT_MAX_LINE_CHARS = 8 * 1024 * 1024;
const KEEP_CHARS = 256 * 1024;

export class LineSplitter {
  private readonly onLine: (line: SplitLine) => void;
  private readonly maxLineChars: number;
  private parts: string[] = [];
  private partsLength = 0;
  private head: string | undefined;
  /** An oversized line's last pieces, trimmed to KEEP_CHARS only once they hold twice that (so each character is copied a bounded number of times, however small the chunks). */
  private tailParts: string[] = [];
  private tailLength = 0;
  private overflowLength = 0;

  constructor(onLine: (line: SplitLine) => void, maxLineChars: number = DEFAULT_MAX_LINE_CHARS) {
    this.onLine = onLine;
    this.maxLineChars = maxLineChars;
  }

  push(chunk: string): void {
    let start = 0;
    for (;;) {
      const newline = chunk.indexOf("\n", start);
      if (newline < 0) {
        if (start < chunk.length) this.append(chunk.slice(start));
        return;
      }
      this.append(chunk.slice(start, newline));
      this.emit();
      start = newline + 1;
    }
  }

  /** Emits what is left when the stream ends without a final newline. */
  end(): void {
    if (this.partsLength > 0 || this.head !== undefined) this.emit();
  }

  private append(piece: string): void {
    if (piece.length === 0) return;
    if (this.head !== undefined) {
      this.overflowLength += piece.length;
      this.tailParts.push(piece.length > KEEP_CHARS ? piece.slice(-KEEP_CHARS) : piece);
      this.tailLength += Math.min(piece.length, KEEP_CHARS);
      if (this.tailLength > 2 * KEEP_CHARS) this.setTail(this.tailParts.join("").slice(-KEEP_CHARS));
      return;
    }
    this.parts.push(piece);
    this.partsLength += piece.length;
    if (this.partsLength > this.maxLineChars) {
      const joined = this.parts.join("");
      this.head = joined.slice(0, KEEP_CHARS);
      this.setTail(joined.slice(-KEEP_CHARS));
      this.overflowLength = joined.length;
      this.parts = [];
      this.partsLength = 0;
    }
  }

  private setTail(tail: string): void {
    this.tailParts = tail === "" ? [] : [tail];
    this.tailLength = tail.length;
  }

  private emit(): void {
    if (this.head !== undefined) {
      const tail = this.tailParts.join("").slice(-KEEP_CHARS);
      this.onLine({ head: this.head, tail, length: this.overflowLength });
      this.head = undefined;
      this.setTail("");
      this.overflowLength = 0;
      return;
    }
    const text = this.parts.length === 1 ? (this.parts[0] as string) : this.parts.join("");
    this.parts = [];
    this.partsLength = 0;
    this.onLine({ text, length: text.length });
  }
}
