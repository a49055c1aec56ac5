import { describe, expect, it } from "vitest";
import { classifyDeliverable, deliverableNoteText, type DeliverableVerdict } from "../../../src/run/deliverable.ts";

/** Real-shaped final messages of subagents, and what the check must make of each. */
const FLAGGED: ReadonlyArray<[string, DeliverableVerdict]> = [
  ["", { kind: "empty" }],
  ["   \n\n  ", { kind: "empty" }],
  ["The full report is above.", { kind: "pointer-to-messages" }],
  ["See my previous message for details.", { kind: "pointer-to-messages" }],
  ["The complete analysis is in my previous message.", { kind: "pointer-to-messages" }],
  ["Done. The summary was given above.", { kind: "pointer-to-messages" }],
  ["See above.", { kind: "pointer-to-messages" }],
  ["My findings are above — let me know if you need more.", { kind: "pointer-to-messages" }],
  ["Everything is in my earlier response.", { kind: "pointer-to-messages" }],
  ["I've written the report to REPORT.md.", { kind: "pointer-to-file", file: "REPORT.md" }],
  ["Written to docs/findings.md", { kind: "pointer-to-file", file: "docs/findings.md" }],
  ["Done — results in ./out/summary.txt", { kind: "pointer-to-file", file: "./out/summary.txt" }],
  ["The full report has been saved to `analysis/report.md`.", { kind: "pointer-to-file", file: "analysis/report.md" }],
  ["I saved the findings in notes/security-review.md.", { kind: "pointer-to-file", file: "notes/security-review.md" }],
  ["See REVIEW.md for the details.", { kind: "pointer-to-file", file: "REVIEW.md" }],
  ["Report written to /tmp/work/report.md.", { kind: "pointer-to-file", file: "/tmp/work/report.md" }],
  [
    "The summary is in SUMMARY.md. Let me know if anything is unclear.",
    { kind: "pointer-to-file", file: "SUMMARY.md" },
  ],
  ["Now I'll write the summary.", { kind: "preamble" }],
  ["Let me compile the findings:", { kind: "preamble" }],
  ["Okay, now let me put together the final report.", { kind: "preamble" }],
  ["I'll now summarize what I found.", { kind: "preamble" }],
  ["Here is the summary:", { kind: "preamble" }],
];

const LONG_REPORT = [
  "## Findings",
  "",
  "1. `src/parse.ts` accepts a path that leaves the project: the check above the loop compares strings, not real paths.",
  "2. The cache in `src/cache.ts` is never invalidated when the config changes; see the previous message's note on this.",
  "3. Written to disk without a lock: `state.json` (two writers can interleave).",
  "",
  "Recommendation: resolve paths with realpath before comparing, add a version to the cache key, and take the lock.",
].join("\n");

/** Substantive answers, several of which mention "above", "previous", "written to" or file names in passing. */
const NOT_FLAGGED: readonly string[] = [
  LONG_REPORT,
  `The full report is above. ${"x".repeat(10)} ${"The parser fails on empty input because the guard returns early. ".repeat(7)}`,
  "42",
  "Yes — the function is pure; it reads no files.",
  "The bug is in parse.ts line 42: the regex above the loop does not anchor at the start. Fix: add ^.",
  "As noted above, the answer is 42.",
  "I fixed the off-by-one in src/range.ts and added a test in test/range.test.ts; all 12 tests pass.",
  "Renamed `config.json` to `settings.json` and updated the two imports that read it.",
  "The previous implementation leaked a file handle per request; the new one closes it in a finally block.",
  "The test suite passes (48 tests). No changes were needed.",
  "No, REPORT.md does not exist in this repository; the closest is docs/overview.md, which describes the build.",
  "Found 3 uses of `fetchUser`: src/api.ts:12, src/cli.ts:40, test/api.test.ts:7.",
  'The commit above main is abc1234 ("fix: trim input"); it only touches src/trim.ts.',
  "- a.ts: unused import\n- b.ts: missing await\n- c.ts: ok\n- d.ts: ok\n- e.ts: dead code\n- f.ts: ok",
  "The deadline written in the spec is 23:55 UTC; the config says 23:50, so the config is wrong.",
  "Output of `npm test`: 12 passed, 0 failed.",
  "It returns null when the list is empty, and the caller above it does not check for null, so it crashes.",
  "The README's install section is out of date: it names Node 16 but package.json requires Node 20.",
  "Summary: the API is stable, two endpoints are deprecated (/v1/users and /v1/teams), and nothing else changed.",
  "All three files compile; the warning in utils.ts is about an unused variable and is harmless.",
  `Here is the summary:\n\n${LONG_REPORT}`,
  `Let me compile the findings:\n${LONG_REPORT}`,
  `I've written the report to REPORT.md. ${"It lists every endpoint, its owner and the tests that cover it, with the gaps marked. ".repeat(5)}`,
];

describe("the deliverable classifier", () => {
  it.each(FLAGGED)("flags %j", (text, verdict) => {
    expect(classifyDeliverable({ text })).toEqual(verdict);
  });

  it.each(NOT_FLAGGED.map((text) => [text]))("leaves a substantive answer alone: %j", (text) => {
    expect(classifyDeliverable({ text })).toEqual({ kind: "ok" });
  });

  it("a run that ended on a tool call with little or no text is flagged; with a real answer it is not", () => {
    expect(classifyDeliverable({ text: "", endedOnToolCall: true })).toEqual({ kind: "tool-call" });
    expect(classifyDeliverable({ text: "Checking the file.", endedOnToolCall: true })).toEqual({ kind: "tool-call" });
    expect(classifyDeliverable({ text: LONG_REPORT, endedOnToolCall: true })).toEqual({ kind: "ok" });
  });

  it("has a table of at least 40 real-shaped messages", () => {
    expect(FLAGGED.length + NOT_FLAGGED.length).toBeGreaterThanOrEqual(40);
  });

  it("says nothing when the deliverable was fine, and one plain line otherwise", () => {
    expect(deliverableNoteText("ok")).toBeUndefined();
    expect(deliverableNoteText("missing")).toContain("did not deliver its result in its final message");
    expect(deliverableNoteText("attached REPORT.md")).toMatch(/^attached REPORT\.md/);
    expect(deliverableNoteText("restated")).toMatch(/^restated/);
  });
});
