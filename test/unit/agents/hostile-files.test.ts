/**
 * Files a cloned repository can plant among the agents and the config: a link to /dev/zero, a FIFO, a huge
 * file, a frontmatter built to make YAML parsing slow. None may hang, exhaust memory or slow every dispatch.
 */
import { execFileSync } from "node:child_process";
import { symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FRONTMATTER_MAX_CHARS } from "../../../src/agents/parse.ts";
import {
  AGENT_FILE_MAX_BYTES,
  agentFileParsesForTests,
  clearAgentParseCacheForTests,
  readAgentsDir,
} from "../../../src/agents/discover.ts";
import { CONFIG_FILE_MAX_BYTES, readConfigLayer } from "../../../src/config/load.ts";
import { agentFile, createTempTree, type TempTree } from "./temp-tree.ts";

let tree: TempTree;
beforeEach(() => {
  tree = createTempTree();
  clearAgentParseCacheForTests();
});
afterEach(() => tree.remove());

function mkfifo(path: string): void {
  execFileSync("mkfifo", [path]);
}

describe("agent files that are not plain, small files", () => {
  it("skips a link to /dev/zero and a FIFO with a warning naming each, and still loads the others", () => {
    const dir = tree.mkdir("agents");
    symlinkSync("/dev/zero", tree.path("agents/zero.md"));
    mkfifo(tree.path("agents/fifo.md"));
    tree.write("agents/ok.md", agentFile({ name: "ok", description: "x" }));
    const started = Date.now();
    const { agents, warnings } = readAgentsDir(dir, "project");
    expect(Date.now() - started).toBeLessThan(2000);
    expect(agents.map((a) => a.name)).toEqual(["ok"]);
    expect(warnings).toEqual([
      { filePath: tree.path("agents/fifo.md"), reason: "it is a FIFO (named pipe), not a regular file", skipped: true },
      { filePath: tree.path("agents/zero.md"), reason: "it is a character device, not a regular file", skipped: true },
    ]);
  });

  it("skips a file over the size limit without reading it", () => {
    const dir = tree.mkdir("agents");
    tree.write("agents/big.md", `${agentFile({ name: "big", description: "x" })}${"a".repeat(AGENT_FILE_MAX_BYTES)}`);
    const { agents, warnings } = readAgentsDir(dir, "project");
    expect(agents).toEqual([]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.reason).toMatch(/^it is too large \(\d+ bytes; the limit is 1 MiB\)$/);
  });

  it("refuses a frontmatter over the limit before parsing it as YAML", () => {
    const dir = tree.mkdir("agents");
    const keys = Array.from({ length: 50_000 }, (_, i) => `k${i}: ${i}`).join("\n");
    tree.write("agents/keys.md", `---\nname: keys\ndescription: x\n${keys}\n---\nbody\n`);
    const started = Date.now();
    const { agents, warnings } = readAgentsDir(dir, "project");
    expect(Date.now() - started).toBeLessThan(2000);
    expect(agents).toEqual([]);
    expect(warnings[0]!.reason).toMatch(
      new RegExp(`^the frontmatter is too large \\(\\d+ characters; the limit is ${FRONTMATTER_MAX_CHARS}\\)$`),
    );
  });
});

describe("parsing each agent file once while it is unchanged", () => {
  it("serves an unchanged file from the cache and re-parses it once it changes", () => {
    const dir = tree.mkdir("agents");
    const path = tree.write("agents/a.md", agentFile({ name: "a", description: "first" }));
    tree.write("agents/b.md", agentFile({ name: "b", description: "x" }));
    const before = agentFileParsesForTests();
    expect(readAgentsDir(dir, "user").agents.map((a) => a.description)).toEqual(["first", "x"]);
    expect(agentFileParsesForTests() - before).toBe(2);
    readAgentsDir(dir, "user");
    readAgentsDir(dir, "user");
    expect(agentFileParsesForTests() - before).toBe(2);

    writeFileSync(path, agentFile({ name: "a", description: "second" }));
    // The same size and an mtime set back: the inode's change time still tells.
    utimesSync(path, new Date(0), new Date(0));
    expect(readAgentsDir(dir, "user").agents.map((a) => a.description)).toEqual(["second", "x"]);
    expect(agentFileParsesForTests() - before).toBe(3);
  });

  it("a mutation of a returned agent does not leak into the next discovery", () => {
    const dir = tree.mkdir("agents");
    tree.write("agents/a.md", agentFile({ name: "a", description: "first" }));
    readAgentsDir(dir, "user").agents[0]!.description = "changed";
    expect(readAgentsDir(dir, "user").agents[0]!.description).toBe("first");
  });
});

describe("config files that are not plain, small files", () => {
  it("ignores a link to /dev/zero, a FIFO and a huge file, each with a warning naming it", () => {
    const zero = tree.path("zero.json");
    symlinkSync("/dev/zero", zero);
    const fifo = tree.path("fifo.json");
    mkfifo(fifo);
    const big = tree.write("big.json", `{"a": "${"x".repeat(CONFIG_FILE_MAX_BYTES)}"}`);
    expect(readConfigLayer(zero, "project").warnings).toEqual([
      `pi-subagent-dispatch: ${zero}: it is a character device, not a regular file; ignored`,
    ]);
    expect(readConfigLayer(fifo, "project").warnings).toEqual([
      `pi-subagent-dispatch: ${fifo}: it is a FIFO (named pipe), not a regular file; ignored`,
    ]);
    expect(readConfigLayer(big, "user").warnings).toEqual([
      `pi-subagent-dispatch: ${big}: it is too large (${CONFIG_FILE_MAX_BYTES + 9} bytes; the limit is 1 MiB); ignored`,
    ]);
  });
});
