/**
 * The one error type of the write-back path (subagent-isolation.json and agent files). Every refusal is thrown
 * before anything is written, so catching it means the files on disk are exactly as they were; the message is
 * meant to be shown to the person as it is.
 */

/**
 * The codes:
 * - `"invalid-agent-name"`: The agent name cannot be a key (reserved, `$`-prefixed, empty, ...).
 * - `"invalid-value"`: A value in the patch is invalid (empty model, unknown thinking level, unknown patch key, ...).
 * - `"invalid-json"`: The target JSON file does not parse.
 * - `"not-an-object"`: The target JSON file parses, but is not a JSON object.
 * - `"no-frontmatter"`: The agent file has no `---` frontmatter block.
 * - `"invalid-frontmatter"`: The agent file's frontmatter is not valid YAML (or not a mapping), so no line can be
 *  edited safely.
 * - `"name-read-only"`: The patch names `name`, the agent's read-only identity.
 * - `"multi-line-value"`: The patched key's current value spans several lines (or cannot be rewritten on one line
 *  safely).
 * - `"lock-timeout"`: Another writer held the lock for longer than the wait allows.
 */
export type WriteBackErrorCode = "invalid-agent-name"
  | "invalid-value"
  | "invalid-json"
  | "not-an-object"
  | "no-frontmatter"
  | "invalid-frontmatter"
  | "name-read-only"
  | "multi-line-value"
  | "lock-timeout";

export class WriteBackError extends Error {
  readonly code: WriteBackErrorCode;

  constructor(code: WriteBackErrorCode, message: string) {
    super(message);
    this.name = "WriteBackError";
    this.code = code;
  }
}

export function isWriteBackError(error: unknown): error is WriteBackError {
  return error instanceof WriteBackError;
}
