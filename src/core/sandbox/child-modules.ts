/**
 * The package's modules a sandboxed child loads, relative to the package root: a sandboxed pi gets only the
 * `subagent` tool that refuses (extension.ts, src/start/depth-gate-tool.ts), so it loads the entry, the watch on
 * its parent, the depth variables, the tool's schema and texts, and nothing of the runtime. Only these modules'
 * jiti entries are handed in (src/io/sandbox/jiti-cache-entries.ts): a handful of files for bubblewrap to copy
 * instead of the whole package's. test/unit/architecture.test.ts checks the list against the imports; a module
 * missing here would only be compiled by the child, never be unsafe.
 */
export const SANDBOXED_CHILD_MODULES: readonly string[] = Object.freeze([
  "extension.ts",
  "src/core/shared/depth.ts",
  "src/core/shared/thinking.ts",
  "src/core/tasks/task-id.ts",
  "src/core/tool/texts.ts",
  "src/io/run/parent-watchdog.ts",
  "src/io/run/proc-identity.ts",
  "src/io/run/task-marker.ts",
  "src/io/shared/own-package.ts",
  "src/io/shared/paths.ts",
  "src/io/shared/per-process.ts",
  "src/pi/tool/schema.ts",
  "src/start/depth-gate-tool.ts",
]);
