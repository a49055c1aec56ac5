/**
 * The file-system side of discovery: reads the `*.md` files of one agents folder (not its subfolders), in
 * name order, and parses each. Synchronous on purpose: it runs on every dispatch and on the first turn, and a
 * handful of small files is cheaper to read than to schedule.
 */
import { readdirSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { parseAgentFile, quoteForMessage } from "./parse.ts";
import type { AgentDefinition, AgentSource, AgentWarning } from "./types.ts";

export interface AgentsDirContents {
  agents: AgentDefinition[];
  warnings: AgentWarning[];
}

function errorCode(error: unknown): string {
  if (error && typeof error === "object" && "code" in error && typeof error.code === "string") return error.code;
  return error instanceof Error ? error.message : String(error);
}

/** Plain code-unit order, the same on every machine and locale. */
export function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function readAgentsDir(dir: string, source: AgentSource): AgentsDirContents {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    // A missing (or unreadable) folder simply has no agents.
    return { agents: [], warnings: [] };
  }
  const agents: AgentDefinition[] = [];
  const warnings: AgentWarning[] = [];
  const fileByName = new Map<string, string>();
  for (const fileName of names.filter((n) => n.endsWith(".md")).sort(compareNames)) {
    const filePath = join(dir, fileName);
    let text: string;
    try {
      text = readFileSync(filePath, "utf8");
    } catch (error) {
      // A folder that happens to be named *.md is not an agent file and not worth a warning.
      if (errorCode(error) === "EISDIR") continue;
      warnings.push({ filePath, reason: `the file cannot be read (${errorCode(error)})`, skipped: true });
      continue;
    }
    const parsed = parseAgentFile(text, filePath, source);
    if (!parsed.ok) {
      warnings.push({ filePath, reason: parsed.reason, skipped: true });
      continue;
    }
    const earlier = fileByName.get(parsed.agent.name);
    if (earlier !== undefined) {
      warnings.push({
        filePath,
        reason: `duplicate name ${quoteForMessage(parsed.agent.name)} (already defined by ${basename(earlier)} in the same folder)`,
        skipped: true,
      });
      continue;
    }
    fileByName.set(parsed.agent.name, filePath);
    agents.push(parsed.agent);
    if (parsed.ignored.length > 0) {
      const what = parsed.ignored.length === 1 ? "that field is" : "those fields are";
      warnings.push({ filePath, reason: `${parsed.ignored.join("; ")}; ${what} ignored, the agent still loads` });
    }
  }
  return { agents, warnings };
}
