/**
 * The package's modules a sandboxed child loads, relative to the package root: a sandboxed pi gets only the
 * `subagent` tool that refuses (extension.ts, src/start/depth-gate-tool.ts), so it loads the entry, the watch on
 * its parent, the depth variables, the tool's schema and texts, and nothing of the runtime. Only these modules'
 * jiti entries are handed in (src/sandbox/jiti-cache-entries.ts): a handful of files for bubblewrap to copy
 * instead of the whole package's. test/unit/architecture.test.ts checks the list against the imports; a module
 * missing here would only be compiled by the child, never be unsafe.
 */
export const SANDBOXED_CHILD_MODULES: readonly string[] = Object.freeze([
  "extension.ts",
  "src/shared/depth.ts",
  "src/shared/thinking.ts",
  "src/shared/task-id.ts",
  "src/tool/texts.ts",
  "src/run/parent-watchdog.ts",
  "src/shared/proc-identity.ts",
  "src/run/task-marker.ts",
  "src/shared/own-package.ts",
  "src/shared/paths.ts",
  "src/shared/per-process.ts",
  "src/tool/schema.ts",
  "src/start/depth-gate-tool.ts",
]);
