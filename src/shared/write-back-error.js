// @ts-check
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
 *   edited safely.
 * - `"name-read-only"`: The patch names `name`, the agent's read-only identity.
 * - `"multi-line-value"`: The patched key's current value spans several lines (or cannot be rewritten on one line
 *   safely).
 * - `"lock-timeout"`: Another writer held the lock for longer than the wait allows.
 * @typedef {"invalid-agent-name"
 *   | "invalid-value"
 *   | "invalid-json"
 *   | "not-an-object"
 *   | "no-frontmatter"
 *   | "invalid-frontmatter"
 *   | "name-read-only"
 *   | "multi-line-value"
 *   | "lock-timeout"} WriteBackErrorCode
 */

export class WriteBackError extends Error {
  /**
   * @readonly
   * @type {WriteBackErrorCode}
   */
  code;

  /**
   * @param {WriteBackErrorCode} code
   * @param {string} message
   */
  constructor(code, message) {
    super(message);
    this.name = "WriteBackError";
    this.code = code;
  }
}

/**
 * @param {unknown} error
 * @returns {error is WriteBackError}
 */
export function isWriteBackError(error) {
  return error instanceof WriteBackError;
}
