import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  cachedRoster,
  rememberRoster,
  ROSTER_CACHE_ENTRIES,
  ROSTER_CACHE_FILE_NAME,
  ROSTER_SHAPING_FILES,
  rosterFingerprint,
  type RosterCacheOptions,
} from "../../../src/roster/roster-cache.ts";
import { PACKAGE_ROOT } from "../../../src/shared/this-process.ts";

let root: string;
let options: RosterCacheOptions;
let cwd: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "roster-cache-"));
  options = {
    agentDir: join(root, "agent"),
    builtinDir: join(root, "builtin"),
    packageRoot: join(root, "pkg"),
    home: join(root, "home"),
  };
  cwd = join(root, "home", "project", "sub");
  for (const dir of [join(root, "agent", "agents"), join(root, "builtin"), join(root, "pkg"), cwd])
    mkdirSync(dir, { recursive: true });
  writeFileSync(join(root, "builtin", "explore.md"), "---\nname: explore\ndescription: Looks\n---\n");
  writeFileSync(join(root, "pkg", "package.json"), "{}");
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe("the roster's fingerprint", () => {
  it("stays the same while nothing changes, and changes with every input of the roster", () => {
    const first = rosterFingerprint(cwd, options);
    expect(rosterFingerprint(cwd, options)).toBe(first);

    const userFile = join(root, "agent", "agents", "mine.md");
    writeFileSync(userFile, "---\nname: mine\ndescription: Mine\n---\n");
    const withUserAgent = rosterFingerprint(cwd, options);
    expect(withUserAgent).not.toBe(first);

    writeFileSync(userFile, "---\nname: mine\ndescription: Mine, edited\n---\n");
    const edited = rosterFingerprint(cwd, options);
    expect(edited).not.toBe(withUserAgent);

    mkdirSync(join(root, "home", "project", ".pi", "agents"), { recursive: true });
    const withProject = rosterFingerprint(cwd, options);
    expect(withProject).not.toBe(edited);
    expect(withProject).toContain(join(root, "home", "project", ".pi", "agents"));

    writeFileSync(join(root, "pkg", "package.json"), '{"version":"2"}');
    expect(rosterFingerprint(cwd, options)).not.toBe(withProject);

    unlinkSync(join(root, "builtin", "explore.md"));
    expect(rosterFingerprint(cwd, options)).not.toBe(withProject);
  });

  it("changes with the package's modules that shape the block, which all exist (a move must update the list)", () => {
    for (const file of ROSTER_SHAPING_FILES) expect(existsSync(join(PACKAGE_ROOT, file)), file).toBe(true);
    const before = rosterFingerprint(cwd, options);
    const roster = join(root, "pkg", "src", "roster", "roster.ts");
    mkdirSync(dirname(roster), { recursive: true });
    writeFileSync(roster, "export {};\n");
    expect(rosterFingerprint(cwd, options)).not.toBe(before);
  });
});

describe("the roster's fingerprint and Claude Code's folders", () => {
  it("changes with a file added to ~/.claude/agents or to the project's .claude/agents", () => {
    const first = rosterFingerprint(cwd, options);
    const claudeUser = join(root, "home", ".claude", "agents");
    mkdirSync(claudeUser, { recursive: true });
    writeFileSync(join(claudeUser, "mine.md"), "---\nname: mine\ndescription: Mine\n---\n");
    const withUser = rosterFingerprint(cwd, options);
    expect(withUser).not.toBe(first);
    const claudeProject = join(root, "home", "project", ".claude", "agents");
    mkdirSync(claudeProject, { recursive: true });
    writeFileSync(join(claudeProject, "theirs.md"), "---\nname: theirs\ndescription: Theirs\n---\n");
    expect(rosterFingerprint(cwd, options)).not.toBe(withUser);
  });
});
describe("the remembered rosters", () => {
  it("give back a block (or no roster) under its fingerprint only, newest first, at most a few", async () => {
    expect(cachedRoster("a", options)).toBeUndefined();
    await rememberRoster("a", "## Available Subagents\n- a", options);
    await rememberRoster("none", undefined, options);
    expect(cachedRoster("a", options)).toEqual({ block: "## Available Subagents\n- a" });
    expect(cachedRoster("none", options)).toEqual({ block: undefined });
    expect(cachedRoster("b", options)).toBeUndefined();

    for (let i = 0; i < ROSTER_CACHE_ENTRIES + 2; i++) await rememberRoster(`k${i}`, `block ${i}`, options);
    const file = JSON.parse(readFileSync(join(root, "agent", ROSTER_CACHE_FILE_NAME), "utf8")) as {
      entries: Array<{ fingerprint: string }>;
    };
    expect(file.entries.map((entry) => entry.fingerprint)).toEqual(
      Array.from({ length: ROSTER_CACHE_ENTRIES }, (_, i) => `k${ROSTER_CACHE_ENTRIES + 1 - i}`),
    );
    expect(cachedRoster("a", options)).toBeUndefined();
  });

  it("treat a damaged file as empty", async () => {
    writeFileSync(join(root, "agent", ROSTER_CACHE_FILE_NAME), "{not json");
    expect(cachedRoster("a", options)).toBeUndefined();
    writeFileSync(
      join(root, "agent", ROSTER_CACHE_FILE_NAME),
      JSON.stringify({ entries: [{ fingerprint: "a", block: 5 }, "x"] }),
    );
    expect(cachedRoster("a", options)).toBeUndefined();
    await rememberRoster("a", "fresh", options);
    expect(cachedRoster("a", options)).toEqual({ block: "fresh" });
  });
});
