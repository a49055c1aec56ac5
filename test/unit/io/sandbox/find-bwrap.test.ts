import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { findWorkingBwrap } from "../../../../src/io/sandbox/find-bwrap.ts";

let dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  dirs = [];
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "find-bwrap-"));
  dirs.push(dir);
  return dir;
}

describe("findWorkingBwrap", () => {
  it("refuses off Linux", () => {
    expect(findWorkingBwrap("/usr/bin", "darwin")).toEqual({ ok: false, reason: { kind: "platform", platform: "darwin" } });
  });

  it("finds nothing on an empty PATH", () => {
    expect(findWorkingBwrap(tempDir(), "linux")).toEqual({ ok: false, reason: { kind: "not-found" } });
  });

  it("reports a bwrap that cannot make a sandbox, with what it said", () => {
    const dir = tempDir();
    const fake = join(dir, "bwrap");
    writeFileSync(fake, "#!/bin/sh\necho 'bwrap: setting up uid map: Permission denied' >&2\nexit 1\n");
    chmodSync(fake, 0o755);
    expect(findWorkingBwrap(dir, "linux")).toEqual({ ok: false, reason: { kind: "broken", bwrap: fake, detail: "bwrap: setting up uid map: Permission denied" } });
  });
});
