import { describe, expect, it } from "vitest";
import { resultMetadataLines } from "../../../src/commands/task-commands.ts";
import { buildEnvelope } from "../../../src/delivery/envelope.ts";
import { cardText } from "../../../src/pi/ui/cards.ts";
import { detailsFromRecord } from "../../../src/records/record-store.ts";
import { syncResultText } from "../../../src/tool/run-sync.ts";
import { ID_A, record } from "../pi/commands/fakes.ts";

const LIMITS = { activityTimeoutMs: 600_000, hardTimeoutMs: 0 };
const MISSING =
  "missing: the subagent did not deliver its result in its final message (it gave a pointer, a preamble or nothing, also when asked once more where it could be); the output is what it said";

describe("the deliverable check's one line", () => {
  it("is nowhere when the answer was the deliverable: the envelope, tool result, card and details are as before", () => {
    const plain = record(ID_A, { output: "The answer." });
    const ok = record(ID_A, { output: "The answer.", deliverable: "ok" });
    expect(buildEnvelope(ok, [], LIMITS)).toBe(buildEnvelope(plain, [], LIMITS));
    expect(syncResultText(ok, LIMITS)).toBe(syncResultText(plain, LIMITS));
    expect(detailsFromRecord(ok)).toEqual(detailsFromRecord(plain));
    expect(resultMetadataLines(ok)).toEqual(resultMetadataLines(plain));
  });

  it("says plainly, to the model and the person, that a pointer was delivered in place of the result", () => {
    const missing = record(ID_A, { output: "The full report is above.", deliverable: "missing" });
    expect(buildEnvelope(missing, [], LIMITS)).toContain(`\n- Deliverable: ${MISSING}\n- Session: ${ID_A}\n`);
    expect(syncResultText(missing, LIMITS)).toBe(
      `The full report is above.\n\n[subagent deliverable: ${MISSING}]\n[subagent session: ${ID_A}]`,
    );
    expect(cardText(detailsFromRecord(missing)).notes).toEqual([`Deliverable: ${MISSING}`]);
    expect(resultMetadataLines(missing)).toContain(`Deliverable: ${MISSING}`);
  });

  it("names a restated answer and an attached file", () => {
    const restated = record(ID_A, { deliverable: "restated" });
    expect(buildEnvelope(restated, [], LIMITS)).toContain(
      "- Deliverable: restated (its first final message was not the deliverable; asked once, it restated it)",
    );
    const attached = record(ID_A, { deliverable: "attached REPORT.md" });
    expect(cardText(detailsFromRecord(attached)).notes).toEqual([
      "Deliverable: attached REPORT.md (its final message pointed to the file; the file's text follows the output)",
    ]);
  });
});
