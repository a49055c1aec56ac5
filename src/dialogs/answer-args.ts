/**
 * What `/subagent-answer` was asked (pure): nothing (open the oldest question), or `refuse [task id or prefix]`
 * (answer every waiting question of one task `cancelled`; the oldest question's task when no id is given).
 */

export type AnswerArgs = { kind: "open" } | { kind: "refuse"; task?: string } | { kind: "unknown"; message: string };

export const ANSWER_USAGE = "Usage: /subagent-answer (open the oldest question) or /subagent-answer refuse [task id] (answer all of a task's questions cancelled).";

export function parseAnswerArgs(args: string): AnswerArgs {
  const words = args.trim().split(/\s+/).filter((word) => word !== "");
  if (words.length === 0) return { kind: "open" };
  if (words[0] === "refuse" && words.length <= 2) return words[1] === undefined ? { kind: "refuse" } : { kind: "refuse", task: words[1] };
  return { kind: "unknown", message: ANSWER_USAGE };
}
