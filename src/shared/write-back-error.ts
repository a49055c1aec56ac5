/**
 * The one error type of the write-back path (subagent-isolation.json and agent files). Every refusal is thrown
 * before anything is written, so catching it means the files on disk are exactly as they were; the message is
 * meant to be shown to the person as it is.
 */
export type WriteBackErrorCode =
  /** The agent name cannot be a key (reserved, `$`-prefixed, empty, ...). */
  | "invalid-agent-name"
  /** A value in the patch is invalid (empty model, unknown thinking level, unknown patch key, ...). */
  | "invalid-value"
  /** The target JSON file does not parse. */
  | "invalid-json"
  /** The target JSON file parses, but is not a JSON object. */
  | "not-an-object"
  /** The agent file has no `---` frontmatter block. */
  | "no-frontmatter"
  /** The agent file's frontmatter is not valid YAML (or not a mapping), so no line can be edited safely. */
  | "invalid-frontmatter"
  /** The patch names `name`, the agent's read-only identity. */
  | "name-read-only"
  /** The patched key's current value spans several lines (or cannot be rewritten on one line safely). */
  | "multi-line-value"
  /** Another writer held the lock for longer than the wait allows. */
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
