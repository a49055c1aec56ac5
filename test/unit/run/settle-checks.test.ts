import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parseAgentFile } from "../../../src/agents/parse.ts";
import { parseConfigLayer } from "../../../src/config/load.ts";
import { resolveDeliverableCheck, type ConfigLayers } from "../../../src/config/resolve.ts";
import { DeliverableCheck, deliverableCheckFor } from "../../../src/run/settle-checks.ts";
import { RESTATE_PROMPT } from "../../../src/run/deliverable.ts";
import { ended, outcomeOf, settle } from "./settle-driver.ts";

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

function tempFolder(): string {
  const folder = mkdtempSync(join(tmpdir(), "deliverable-"));
  folders.push(folder);
  return folder;
}

describe("the deliverable check", () => {
  it("lets a fine answer close at once, asking nothing and leaving the output as it was", async () => {
    const { prompts, outcome } = await settle(new DeliverableCheck(tempFolder()), ["The answer is 42."]);
    expect(prompts).toEqual([undefined]);
    expect(outcome.output).toBe("The answer is 42.");
    expect(outcome.deliverable).toBe("ok");
  });

  it("asks a pointer once, and records the restated answer as restated", async () => {
    const { prompts, outcome } = await settle(new DeliverableCheck(tempFolder()), [
      "The full report is above.",
      "The bug is in parse.ts.",
    ]);
    expect(prompts).toEqual([RESTATE_PROMPT, undefined]);
    expect(outcome.output).toBe("The bug is in parse.ts.");
    expect(outcome.deliverable).toBe("restated");
  });

  it("asks only once: a second pointer is delivered as missing", async () => {
    const { prompts, outcome } = await settle(new DeliverableCheck(tempFolder()), [
      "See above.",
      "The full report is above.",
      "x",
    ]);
    expect(prompts).toEqual([RESTATE_PROMPT, undefined]);
    expect(outcome.deliverable).toBe("missing");
  });

  it("attaches a file inside the working folder, named, without asking", async () => {
    const folder = tempFolder();
    mkdirSync(join(folder, "docs"));
    writeFileSync(join(folder, "docs", "findings.md"), "FINDINGS\n");
    const { prompts, outcome } = await settle(new DeliverableCheck(folder), ["Written to docs/findings.md"]);
    expect(prompts).toEqual([undefined]);
    expect(outcome.deliverable).toBe("attached docs/findings.md");
    expect(outcome.output).toBe(
      "Written to docs/findings.md\n\n--- attached: docs/findings.md (the file the final message pointed to) ---\n\nFINDINGS\n",
    );
  });

  it("refuses a file outside the working folder, by path or through a link, and asks instead", async () => {
    const outside = tempFolder();
    writeFileSync(join(outside, "secret.md"), "SECRET");
    const folder = tempFolder();
    symlinkSync(join(outside, "secret.md"), join(folder, "link.md"));
    for (const pointer of [
      `Written to ${join(outside, "secret.md")}`,
      "Written to ../secret.md",
      "Written to link.md",
    ]) {
      const { prompts, outcome } = await settle(new DeliverableCheck(join(folder)), [pointer, pointer]);
      expect(prompts).toEqual([RESTATE_PROMPT, undefined]);
      expect(outcome.deliverable).toBe("missing");
      expect(outcome.output).not.toContain("SECRET");
    }
  });

  it("classifies and attaches a JSON child's answer when it ends (no seam to restate through)", () => {
    const folder = tempFolder();
    writeFileSync(join(folder, "REPORT.md"), "R");
    for (const [answer, note] of [
      ["Done.", "ok"],
      ["I've written the report to REPORT.md.", "attached REPORT.md"],
      ["The full report is above.", "missing"],
    ] as const) {
      const state = ended(answer);
      const outcome = outcomeOf(state);
      new DeliverableCheck(folder).conclude(outcome, state);
      expect(outcome.deliverable).toBe(note);
    }
  });

  it("is off for an agent with deliverableCheck: false in its frontmatter, on otherwise", () => {
    const parsed = parseAgentFile(
      "---\nname: scribe\ndescription: d\ndeliverableCheck: false\n---\nBody",
      "/a/scribe.md",
      "user",
    );
    expect(parsed.ok && parsed.agent.deliverableCheck).toBe(false);
    if (!parsed.ok) return;
    const layers = (entry?: Record<string, unknown>) =>
      ({ user: { ...parseConfigLayer(JSON.stringify(entry ? { scribe: entry } : {}), "user") } }) as ConfigLayers;
    expect(resolveDeliverableCheck(parsed.agent, layers())).toBe(false);
    expect(resolveDeliverableCheck({ ...parsed.agent, deliverableCheck: undefined }, layers())).toBe(true);
    // The config entry is layered above the frontmatter, either way.
    expect(resolveDeliverableCheck(parsed.agent, layers({ deliverableCheck: true }))).toBe(true);
    expect(resolveDeliverableCheck({ name: "scribe" }, layers({ deliverableCheck: false }))).toBe(false);
    expect(deliverableCheckFor(false, tempFolder())).toBeUndefined();
    expect(deliverableCheckFor(true, tempFolder())).toBeInstanceOf(DeliverableCheck);
    const wrong = parseAgentFile("---\nname: s\ndescription: d\ndeliverableCheck: nope\n---\n", "/a/s.md", "user");
    expect(wrong.ok && wrong.ignored).toEqual(['"deliverableCheck" must be true or false (got "nope")']);
  });
});
