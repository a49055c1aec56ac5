import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { addToOutbox, deliveryRight, outboxDir, pendingFor, takeOver } from "../../../src/delivery/outbox.ts";
import type { ProcessIdentity } from "../../../src/shared/proc-identity.ts";
import { newTaskId } from "../../../src/shared/run-settings.ts";

let agentDir: string;
beforeEach(() => (agentDir = mkdtempSync(join(tmpdir(), "outbox-"))));
afterEach(() => rmSync(agentDir, { recursive: true, force: true }));

const me: ProcessIdentity = { pid: 100, start: "500" };
const other: ProcessIdentity = { pid: 200, start: "600" };

describe("outbox ownership", () => {
  it("lets only the owner deliver while it lives, and anyone once it died", () => {
    const alive = () => true;
    const dead = () => false;
    expect(deliveryRight({ owner: me }, me, alive)).toBe("mine");
    expect(deliveryRight({ owner: other }, me, alive)).toBe("owner-alive");
    expect(deliveryRight({ owner: other }, me, dead)).toBe("orphaned");
    // A reused pid (same pid, another start time) is not the owner.
    expect(deliveryRight({ owner: { pid: 100, start: "1" } }, me, dead)).toBe("orphaned");
    // Entries written before owners existed are anyone's.
    expect(deliveryRight({}, me, alive)).toBe("orphaned");
  });

  it("skips another live window's results and takes over a dead one's, oldest first", () => {
    const [a, b, c] = [newTaskId(), newTaskId(), newTaskId()];
    addToOutbox(agentDir, { taskId: a, parentSessionId: "s", finishedAt: 3, owner: me });
    addToOutbox(agentDir, { taskId: b, parentSessionId: "s", finishedAt: 1, owner: other });
    addToOutbox(agentDir, { taskId: c, parentSessionId: "other-session", finishedAt: 2, owner: me });
    expect(pendingFor(agentDir, "s", { self: me, alive: () => true })).toEqual([a]);
    expect(pendingFor(agentDir, "s", { self: me, alive: () => false })).toEqual([b, a]);
    // The taken-over entry now names this process, so the old owner's pid no longer matters.
    expect(JSON.parse(readFileSync(join(outboxDir(agentDir), `${b}.json`), "utf8")).owner).toEqual(me);
    expect(readdirSync(outboxDir(agentDir)).sort()).toEqual([`${a}.json`, `${b}.json`, `${c}.json`].sort());
  });

  it("lets exactly one of two racing processes take an orphaned entry over", () => {
    const id = newTaskId();
    const path = join(outboxDir(agentDir), `${id}.json`);
    addToOutbox(agentDir, { taskId: id, parentSessionId: "s", finishedAt: 1, owner: { pid: 999_999, start: "1" } });
    // Both read the entry while its owner was dead; `me` takes it over first.
    const seenByBoth = JSON.parse(readFileSync(path, "utf8"));
    expect(takeOver(agentDir, seenByBoth, me)).toBe(true);
    // `other` comes second with what it read before: the entry now names `me`, so it is left alone.
    expect(takeOver(agentDir, seenByBoth, other)).toBe(false);
    expect(JSON.parse(readFileSync(path, "utf8")).owner).toEqual(me);
    // And when the entry is gone (delivered meanwhile) there is nothing to take.
    rmSync(path);
    expect(takeOver(agentDir, seenByBoth, other)).toBe(false);
    expect(readdirSync(outboxDir(agentDir))).toEqual([]);
  });

  it("throws a write failure to the caller (a file where the outbox folder should be)", () => {
    mkdirSync(join(agentDir, "subagent-sessions"));
    writeFileSync(outboxDir(agentDir), "not a folder");
    expect(() => addToOutbox(agentDir, { taskId: newTaskId(), finishedAt: 1, owner: me })).toThrow();
    expect(pendingFor(agentDir, "s", { self: me })).toEqual([]);
  });
});

describe("bad outbox entries (issue 28, item 10)", () => {
  it("an entry holding JSON null, another of the wrong shape and a link are moved aside; the good ones are still delivered", () => {
    const [good, nullEntry, wrongShape, link, later] = [
      newTaskId(),
      newTaskId(),
      newTaskId(),
      newTaskId(),
      newTaskId(),
    ];
    addToOutbox(agentDir, { taskId: good, parentSessionId: "s", finishedAt: 1, owner: me });
    const dir = outboxDir(agentDir);
    writeFileSync(join(dir, `${nullEntry}.json`), "null");
    writeFileSync(
      join(dir, `${wrongShape}.json`),
      JSON.stringify({ taskId: wrongShape, parentSessionId: "s", finishedAt: "soon", owner: me }),
    );
    const outside = join(agentDir, "outside.json");
    writeFileSync(outside, JSON.stringify({ taskId: link, parentSessionId: "s", finishedAt: 2, owner: me }));
    symlinkSync(outside, join(dir, `${link}.json`));
    addToOutbox(agentDir, { taskId: later, parentSessionId: "s", finishedAt: 3, owner: me });
    expect(pendingFor(agentDir, "s", { self: me, alive: () => true })).toEqual([good, later]);
    expect(readdirSync(dir).sort()).toEqual(
      [`${good}.json`, `${later}.json`, `${nullEntry}.json.bad`, `${wrongShape}.json.bad`, `${link}.json.bad`].sort(),
    );
    expect(readFileSync(outside, "utf8")).toContain(link);
    // Asked again, the same two: the bad ones are no longer looked at.
    expect(pendingFor(agentDir, "s", { self: me, alive: () => true })).toEqual([good, later]);
  });
});
