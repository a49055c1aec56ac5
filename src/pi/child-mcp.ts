/**
 * A child's own MCP (pi 1.x). A child that may reach some MCP tools is started with `--no-mcp` and its granted
 * patterns in PI_SUBAGENT_MCP_TOOLS (src/run/command-line.ts); here it runs pi's own MCP extension in place of the
 * built-in one (`createMcpExtension`, which `--no-mcp` leaves alone), reading the same `mcp.json` files with pi's
 * own loader and trust rule, but connecting only the servers those patterns reach: no other server process starts
 * and no other server's credentials are used. Where pi's loader cannot be found, the child has no MCP at all (fail
 * closed) and says so on stderr, which its parent keeps.
 */
import { existsSync, readFileSync, realpathSync } from "node:fs";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import { serversReachedBy } from "../shared/tool-patterns.ts";
import { perProcess } from "../shared/this-process.ts";

/** The parts of pi 1.x's MCP configuration this uses (pi 0.73.1's types have none of it). */
interface McpServerEntry {
  name: string;
}
interface LoadedMcpConfig {
  servers: McpServerEntry[];
  errors: string[];
}
type LoadMcpConfig = (options: { agentDir: string; cwd: string; projectTrusted: boolean }) => LoadedMcpConfig;
interface McpContext {
  cwd: string;
  isProjectTrusted?: () => boolean;
}
type CreateMcpExtension = (options: {
  loadConfig: (ctx: McpContext) => LoadedMcpConfig;
}) => (pi: ExtensionAPI) => void | Promise<void>;

const PI_PACKAGE_NAMES = ["@earendil-works/pi-coding-agent", "@mariozechner/pi-coding-agent"];

/** The running pi's package folder, found from its entry script (`dist/bundle/cli.js` or `dist/cli.js`). */
function piPackageRoot(entry: string | undefined): string | undefined {
  if (entry === undefined) return undefined;
  let dir: string;
  try {
    dir = dirname(realpathSync(entry));
  } catch {
    return undefined;
  }
  for (let depth = 0; depth < 6; depth += 1) {
    const manifest = join(dir, "package.json");
    if (existsSync(manifest)) {
      try {
        const name = (JSON.parse(readFileSync(manifest, "utf8")) as { name?: unknown }).name;
        if (typeof name === "string" && PI_PACKAGE_NAMES.includes(name)) return dir;
      } catch {
        // Not pi's manifest: keep walking up.
      }
    }
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
  return undefined;
}

/** pi's own `loadMcpConfig` (not part of its public exports, so found next to its MCP extension). */
async function piMcpConfigLoader(): Promise<LoadMcpConfig | undefined> {
  const root = piPackageRoot(process.argv[1]);
  const file = root === undefined ? undefined : join(root, "dist", "extensions", "mcp", "config.js");
  if (file === undefined || !existsSync(file)) return undefined;
  const module = (await import(pathToFileURL(file).href)) as { loadMcpConfig?: unknown };
  return typeof module.loadMcpConfig === "function" ? (module.loadMcpConfig as LoadMcpConfig) : undefined;
}

/** Runs pi's MCP for the servers `patternsText` (comma-separated `mcp__…` patterns) reaches; once per process. */
export async function serveChildMcp(pi: ExtensionAPI, patternsText: string): Promise<void> {
  const served = perProcess("child-mcp", () => ({ done: false }));
  if (served.done) return;
  served.done = true;
  const patterns = patternsText
    .split(",")
    .map((pattern) => pattern.trim())
    .filter((pattern) => pattern !== "");
  const piPackage = (await import("@mariozechner/pi-coding-agent")) as unknown as {
    createMcpExtension?: CreateMcpExtension;
    getAgentDir: () => string;
  };
  const loadMcpConfig = await piMcpConfigLoader().catch(() => undefined);
  if (piPackage.createMcpExtension === undefined || loadMcpConfig === undefined) {
    process.stderr.write("pi-subagent-dispatch: this pi's MCP loader was not found; this subagent has no MCP tools\n");
    return;
  }
  const reached = (server: McpServerEntry) =>
    patterns.some((pattern) => serversReachedBy(pattern, [server.name]).length > 0);
  await piPackage.createMcpExtension({
    loadConfig: (ctx) => {
      const loaded = loadMcpConfig({
        agentDir: piPackage.getAgentDir(),
        cwd: ctx.cwd,
        projectTrusted: ctx.isProjectTrusted?.() ?? false,
      });
      return { ...loaded, servers: loaded.servers.filter(reached) };
    },
  })(pi);
}
