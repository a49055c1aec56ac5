import { describe, expect, it } from "vitest";
import { DEFAULT_FORK_MAX_CHARS, resolveDispatchLimits } from "../../../src/config/resolve.ts";
import { parseConfigLayer } from "../../../src/config/load.ts";

const layer = (json: unknown, name: "user" | "project") =>
  parseConfigLayer(JSON.stringify(json), name, `/cfg/${name}.json`);
const none = { user: layer({}, "user"), project: layer({}, "project") };

describe("resolveDispatchLimits", () => {
  it("defaults to depth 1 and the documented fork limit", () => {
    expect(resolveDispatchLimits({}, none)).toEqual({
      maxDepth: { value: 1, source: "default" },
      forkMaxChars: { value: DEFAULT_FORK_MAX_CHARS, source: "default" },
      warnings: [],
    });
    expect(DEFAULT_FORK_MAX_CHARS).toBe(400_000);
  });

  it("takes the environment over the project file over the user file", () => {
    const layers = {
      user: layer({ $maxDepth: 2, $forkMaxChars: 1000 }, "user"),
      project: layer({ $maxDepth: 3 }, "project"),
    };
    const fromFiles = resolveDispatchLimits({}, layers);
    expect(fromFiles.maxDepth).toEqual({ value: 3, source: "project" });
    expect(fromFiles.forkMaxChars).toEqual({ value: 1000, source: "user" });
    const fromEnv = resolveDispatchLimits({ PI_SUBAGENT_MAX_DEPTH: "2", PI_SUBAGENT_FORK_MAX_CHARS: " 5000 " }, layers);
    expect(fromEnv.maxDepth).toEqual({ value: 2, source: "env" });
    expect(fromEnv.forkMaxChars).toEqual({ value: 5000, source: "env" });
  });

  it("ignores invalid values with a warning each, falling through to the next source", () => {
    const layers = {
      user: layer({ $maxDepth: 2 }, "user"),
      project: layer({ $maxDepth: 0, $forkMaxChars: "lots" }, "project"),
    };
    const limits = resolveDispatchLimits({ PI_SUBAGENT_MAX_DEPTH: "9" }, layers);
    expect(limits.maxDepth).toEqual({ value: 2, source: "user" });
    expect(limits.forkMaxChars.source).toBe("default");
    expect(limits.warnings).toEqual([
      "pi-subagent-dispatch: PI_SUBAGENT_MAX_DEPTH=9 is not a whole number from 1 to 5; ignored",
      'pi-subagent-dispatch: /cfg/project.json: "$maxDepth" is not a whole number from 1 to 5; ignored',
      'pi-subagent-dispatch: /cfg/project.json: "$forkMaxChars" is not a whole number of characters (1 or more); ignored',
    ]);
  });

  it("keeps $ settings out of the agent entries", () => {
    const parsed = layer({ $maxDepth: 2, worker: "fake/m" }, "user");
    expect(Object.keys(parsed.entries)).toEqual(["worker"]);
    expect(parsed.warnings).toEqual([]);
  });
});
