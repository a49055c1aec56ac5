/**
 * The size of a `subagent` tool definition as it goes with every request of the main agent: the JSON of its name,
 * description, parameters, prompt snippet and guidelines. Ours from its modules; the official example's by
 * running its registration against a stand-in pi that keeps the registered tool.
 */
import { SUBAGENT_TOOL_TEXTS } from "../src/tool/texts.ts";
import { subagentParameters } from "../src/tool/schema.ts";

interface ToolShape {
  name?: string;
  description?: string;
  parameters?: unknown;
  promptSnippet?: string;
  promptGuidelines?: unknown;
}

function definitionBytes(tool: ToolShape): number {
  const { name, description, parameters, promptSnippet, promptGuidelines } = tool;
  return Buffer.byteLength(JSON.stringify({ name, description, parameters, promptSnippet, promptGuidelines }));
}

export function ourToolBytes(): number {
  return definitionBytes({ ...SUBAGENT_TOOL_TEXTS, parameters: subagentParameters });
}

export async function officialToolBytes(examplePath: string): Promise<number> {
  const module = (await import(examplePath)) as { default: (pi: unknown) => void };
  const tools: ToolShape[] = [];
  // The example only registers things at load; every other call is answered with nothing.
  const pi = new Proxy(
    {},
    { get: (_target, key) => (key === "registerTool" ? (tool: ToolShape) => tools.push(tool) : () => undefined) },
  );
  module.default(pi);
  if (!tools[0]) throw new Error(`${examplePath} registered no tool`);
  return definitionBytes(tools[0]);
}
