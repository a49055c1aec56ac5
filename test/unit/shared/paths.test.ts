import { homedir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { getAgentDir } from "@mariozechner/pi-coding-agent";
import {
  agentDir,
  agentDirByPiRule,
  subagentSessionsDir,
  useAgentDirResolver,
} from "../../../src/shared/this-process.ts";

const saved = process.env.PI_CODING_AGENT_DIR;
afterEach(() => {
  if (saved === undefined) delete process.env.PI_CODING_AGENT_DIR;
  else process.env.PI_CODING_AGENT_DIR = saved;
  useAgentDirResolver(agentDirByPiRule);
});

describe("the agent dir", () => {
  it("without the entry, follows pi's rule: PI_CODING_AGENT_DIR with ~ expanded, else ~/.pi/agent", () => {
    for (const value of ["/srv/pi-agent", "~/custom/agent", "~", undefined]) {
      if (value === undefined) delete process.env.PI_CODING_AGENT_DIR;
      else process.env.PI_CODING_AGENT_DIR = value;
      expect(agentDir(), String(value)).toBe(getAgentDir());
    }
    expect(agentDirByPiRule()).toBe(join(homedir(), ".pi", "agent"));
    process.env.PI_CODING_AGENT_DIR = "~/custom/agent";
    expect(agentDir()).toBe(join(homedir(), "custom", "agent"));
  });

  it("once the entry hands over pi's resolution, every path follows it", () => {
    useAgentDirResolver(() => "/from/pi");
    expect(agentDir()).toBe("/from/pi");
    expect(subagentSessionsDir()).toBe(join("/from/pi", "subagent-sessions"));
  });
});
