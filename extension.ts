/**
 * pi-subagent-dispatch: the entry pi loads, in every session and in every subagent child. It registers at once
 * only what pi needs at start and loads the rest on first use, so the package costs next to nothing where it
 * is not used (ARCHITECTURE.md: the concerns, the lazy seams, how to add a command, tool action or hook).
 * - a child pi first watches the pi that started it, to end its whole task if that pi dies;
 * - a child granted MCP tools (pi 1.x) runs pi's MCP extension for their servers only (src/pi/child-mcp.ts);
 * - a subagent at the depth limit (PI_SUBAGENT_MAX_DEPTH, passed down by its parent) gets nothing else of ours:
 *   no `subagent` tool, snippet or guidelines, whether the package is installed or came with its parent's `-e`;
 * - a sandboxed subagent below the limit (PI_SUBAGENT_SANDBOX) gets the `subagent` tool refusing every call, saying
 *   why (src/start/sandbox-gate-tool.ts);
 * - the main pi gets src/start/main-pi.ts: the manifest in front of the runtime (src/pi/runtime.ts), loaded on first use;
 *   a second clone of the package loaded in the same pi registers only a notice saying so (src/shared/this-process.ts).
 * Only the nesting variables are imported up front: a child at the limit loads neither pi's packages nor TypeBox.
 */
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import { childMcpPatterns, PARENT_ENV, subagentToolSurface } from "./src/shared/nesting.ts";

export default async function subagentDispatch(pi: ExtensionAPI): Promise<void> {
  // Only a child has a parent to watch (a no-op after the first load in a child).
  if (process.env[PARENT_ENV]) (await import("./src/run/parent-watchdog.ts")).watchParentFromChild();
  // A child granted MCP tools runs pi's MCP for their servers only (pi 1.x; it was started with `--no-mcp`).
  const childMcp = childMcpPatterns();
  if (childMcp) await (await import("./src/pi/child-mcp.ts")).serveChildMcp(pi, childMcp);
  const surface = subagentToolSurface();
  if (surface === "none") return;
  const thisProcess = await import("./src/shared/this-process.ts");
  // One after another: pi's loader can show a module still being evaluated half-made to a concurrent import.
  const { getAgentDir } = await import("@mariozechner/pi-coding-agent");
  thisProcess.useAgentDirResolver(getAgentDir);
  const { subagentParameters } = await import("./src/tool/schema.ts");
  if (surface === "refusing") {
    (await import("./src/start/sandbox-gate-tool.ts")).registerSandboxGateTool(pi, subagentParameters);
    return;
  }
  // A second clone of the package (installed and `-e`) explains itself instead of colliding on the tool's name.
  const { claimLoadedCopy, releaseLoadedCopy, secondCopyNotice, PACKAGE_ROOT } = thisProcess;
  const claim = claimLoadedCopy(PACKAGE_ROOT);
  if (claim.kind === "other") {
    const notice = secondCopyNotice(claim.root, PACKAGE_ROOT);
    pi.on("session_start", async (_event, ctx) =>
      (await import("./src/agents/warnings.ts")).reportWarningsOnce([notice], ctx),
    );
    return;
  }
  pi.on("session_shutdown", () => {
    releaseLoadedCopy(PACKAGE_ROOT);
    // Children started ahead for this session's next tasks end with it (src/warm/warm-pool.ts).
    thisProcess.perProcessIfMade<{ drain(): void }>("warm-children")?.drain();
  });
  (await import("./src/start/main-pi.ts")).registerMainPi(pi, subagentParameters);
}
