/**
 * How a question travels up a tree of subagents (pure). A child that is itself a subagent (an RPC pi whose
 * extension is ours) forwards its own child's question to its parent as a dialog of its own; the dialog's title
 * then starts with one line naming the path so far, `⁣explore 01a3…(whole id) asks:`, behind an invisible mark
 * (U+2063) so that the parent can tell it from a title an extension wrote. The parent takes the path off and
 * labels the question with the whole path, `reviewer 01a2 › explore 01a3 asks:`. A client that is not ours
 * (an RPC client at the top) sees a readable first line.
 *
 * The hops are the parents' word, never the asking child's: a parent reads a path only from a child that may
 * itself have children, and only as many hops as the tree's depth limit leaves below that child. A child at the
 * limit (it has no children) that writes a path into its title gets its title shown as it wrote it, under the
 * label its parent built.
 */
import type { Asker } from "./question-label.ts";

const PATH_MARK = "\u2063";
const ASKS = " asks:";
const SEPARATOR = " › ";
/** An agent name has no spaces (safe names), a task id is a UUID. */
const ASKER = /^(\S+) ([0-9a-f-]{8,36})$/;

/** The title a forwarding child sends up: the path (outermost first) on its own first line, then the title. */
export function encodeNestedTitle(path: readonly Asker[], title: string): string {
  return `${PATH_MARK}${path.map((asker) => `${asker.agent} ${asker.taskId}`).join(SEPARATOR)}${ASKS}\n${title}`;
}

/**
 * The path a title carries (empty when it carries none) and the title without it. `maxHops`: how many hops the
 * child that sent it can truly have below it (the tree's depth limit minus its depth); a longer path is not one
 * its descendants could have built, so the title is kept whole.
 */
export function decodeNestedTitle(title: string, maxHops: number): { path: Asker[]; title: string } {
  if (maxHops < 1 || !title.startsWith(PATH_MARK)) return { path: [], title };
  const newline = title.indexOf("\n");
  const head = newline < 0 ? title.slice(1) : title.slice(1, newline);
  if (!head.endsWith(ASKS)) return { path: [], title };
  const path: Asker[] = [];
  for (const part of head.slice(0, -ASKS.length).split(SEPARATOR)) {
    const match = ASKER.exec(part);
    if (!match) return { path: [], title };
    path.push({ agent: match[1] ?? "", taskId: match[2] ?? "" });
  }
  if (path.length > maxHops) return { path: [], title };
  return { path, title: newline < 0 ? "" : title.slice(newline + 1) };
}

/** How many hops a child at `childDepth` can have below it in a tree limited to `maxDepth` (0 at the limit). */
export function nestedHopsBelow(childDepth: number, maxDepth: number): number {
  return Math.max(0, maxDepth - childDepth);
}
