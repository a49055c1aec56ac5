/**
 * The tool definition goes with every request of the main agent, so its size is a budget: the JSON of what pi
 * sends of it (name, description, parameters, prompt snippet, guidelines) stays at most 5000 bytes.
 */
import { describe, expect, it } from "vitest";
import { SUBAGENT_TOOL_TEXTS } from "../../../../src/tool/texts.ts";
import { subagentParameters } from "../../../../src/tool/schema.ts";

export const TOOL_DEFINITION_BUDGET_BYTES = 5000;

export function toolDefinitionBytes(): number {
  const { name, description, promptSnippet, promptGuidelines } = SUBAGENT_TOOL_TEXTS;
  return Buffer.byteLength(
    JSON.stringify({ name, description, parameters: subagentParameters, promptSnippet, promptGuidelines }),
  );
}

describe("the subagent tool definition", () => {
  it(`is at most ${TOOL_DEFINITION_BUDGET_BYTES} bytes of JSON`, () => {
    expect(toolDefinitionBytes()).toBeLessThanOrEqual(TOOL_DEFINITION_BUDGET_BYTES);
  });
});
