// @ts-check
/** Types of the git worktree isolation (`isolation: "worktree"`). */

/** @typedef {"none" | "worktree"} Isolation */
/** @type {readonly Isolation[]} */
export const ISOLATIONS = ["none", "worktree"];

/**
 * @param {unknown} value
 * @returns {value is Isolation}
 */
export function isIsolation(value) {
  return value === "none" || value === "worktree";
}

/**
 * One changed file of a subagent branch, as `git diff --name-status` reports it (A, M, D, R100, ...).
 * @typedef {object} ChangedFile
 * @property {string} status
 * @property {string} path
 */

/**
 * What became of a task's worktree when the task ended; kept in the task's record.
 * @typedef {object} WorktreeReport
 * @property {string} branch `subagent/<task id>`
 * @property {string} path The worktree folder (removed again when `kept` is false).
 * @property {string} base The commit the worktree started from (the project's HEAD at dispatch).
 * @property {string} repoRoot The repository's main working tree (where the person works).
 * @property {boolean} kept False: the subagent changed nothing, and the worktree and branch were removed.
 * @property {string} [commit] The subagent branch's tip after the task (holding the child's changes), short form.
 * @property {ChangedFile[]} [files] Changed files between base and the branch, at most MAX_LISTED_FILES of them.
 * @property {number} [filesTotal] How many files changed in all (files may list fewer).
 * @property {string} [diffStat] `git diff --stat` between base and the branch, cut to a bounded number of lines.
 * @property {string} [problem] Something went wrong while finishing; everything was kept so nothing is lost.
 * @property {string[]} [notes] Said when the worktree was made (uncommitted changes it does not have).
 */
