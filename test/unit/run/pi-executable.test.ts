import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { findPiExecutable } from "../../../src/shared/run-settings.ts";

const dir = mkdtempSync(join(tmpdir(), "pi-subagent-exe-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("findPiExecutable", () => {
  it("runs the parent's own node and pi entry", () => {
    const entry = join(dir, "cli.js");
    writeFileSync(entry, "");
    expect(findPiExecutable(["node", entry], process.execPath, "")).toEqual({
      ok: true,
      pi: { command: process.execPath, prefixArgs: [entry] },
    });
  });

  it("names a missing node or pi entry", () => {
    expect(findPiExecutable(["node", join(dir, "gone.js")], process.execPath, "")).toEqual({
      ok: false,
      message: `Cannot start the subagent: the pi entry script ${join(dir, "gone.js")} does not exist.`,
    });
    expect(findPiExecutable(["node", join(dir, "cli.js")], join(dir, "no-node"), "")).toEqual({
      ok: false,
      message: `Cannot start the subagent: the node executable ${join(dir, "no-node")} does not exist.`,
    });
  });

  it("falls back to an executable `pi` on PATH when the entry is unknown", () => {
    const bin = join(dir, "bin");
    const notExecutable = join(dir, "plain");
    for (const folder of [bin, notExecutable]) {
      rmSync(folder, { recursive: true, force: true });
      mkdirSync(folder);
      writeFileSync(join(folder, "pi"), "#!/bin/sh\n");
    }
    chmodSync(join(bin, "pi"), 0o755);
    expect(findPiExecutable(["node"], process.execPath, `${notExecutable}::${bin}`)).toEqual({
      ok: true,
      pi: { command: join(bin, "pi"), prefixArgs: [] },
    });
  });

  it("says so when there is no pi at all", () => {
    expect(findPiExecutable(["node"], process.execPath, join(dir, "empty"))).toEqual({
      ok: false,
      message:
        "Cannot start the subagent: no pi executable was found (pi's entry script is unknown and no `pi` is on PATH).",
    });
  });
});
