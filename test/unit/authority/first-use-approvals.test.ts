import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { firstUseApprovalsPath, isApproved, rememberApproval } from "../../../src/authority/first-use-approvals.ts";

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "pi-subagent-approvals-"));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe("first-use approvals", () => {
  it("remembers an approval for exactly one digest of one file, by its real path", async () => {
    const file = join(root, "helper.md");
    writeFileSync(file, "x");
    const link = join(root, "link.md");
    symlinkSync(file, link);
    expect(isApproved(root, file, "aaa")).toBe(false);
    await rememberApproval(root, link, "aaa", "helper", new Date("2026-12-02T00:00:00Z"));
    expect(isApproved(root, file, "aaa")).toBe(true);
    expect(isApproved(root, file, "bbb")).toBe(false);
    expect(JSON.parse(readFileSync(firstUseApprovalsPath(root), "utf8"))).toEqual({
      [file]: { sha256: "aaa", name: "helper", approvedAt: "2026-12-02T00:00:00.000Z" },
    });
    // A new version replaces the old approval.
    await rememberApproval(root, file, "bbb", "helper");
    expect(isApproved(root, file, "aaa")).toBe(false);
    expect(isApproved(root, file, "bbb")).toBe(true);
  });

  it("approves nothing from a broken or hostile file", () => {
    writeFileSync(firstUseApprovalsPath(root), "{ not json");
    expect(isApproved(root, join(root, "a.md"), "aaa")).toBe(false);
    rmSync(firstUseApprovalsPath(root));
    symlinkSync("/dev/zero", firstUseApprovalsPath(root));
    expect(isApproved(root, join(root, "a.md"), "aaa")).toBe(false);
  });
});
