/**
 * ADVANCED.md gives the strings and rules the product really has: each envelope body is built here from a record
 * and must be in the manual word for word (and no docs/ page may name the partial output's heading otherwise);
 * the parameter table lists every parameter and action the tool's schema accepts; the validation list has the
 * order the tool checks in (the depth gate first).
 */
import { describe, expect, it } from "vitest";
import { buildEnvelope } from "../../../src/delivery/envelope.ts";
import { subagentParameters } from "../../../src/tool/schema.ts";
import type { TaskRecord } from "../../../src/records/record.ts";
import { readDoc, topicPages } from "./markdown.ts";

const ADVANCED = readDoc("ADVANCED.md");
const SESSION_FILE = "/agent/subagent-sessions/x/session.jsonl";

/** The text under a heading; `flat` joins wrapped lines (one space for each line break and its indent). */
function section(heading: string, flat = false): string {
  const start = ADVANCED.indexOf(`\n${heading}\n`);
  expect(start, heading).toBeGreaterThan(-1);
  const level = heading.split(" ")[0]!;
  const rest = ADVANCED.slice(start + heading.length + 2);
  // The next heading of the same or a higher level; an envelope's `## [subagent-result]` title in an example is none.
  const end = rest.search(new RegExp(`\\n#{1,${level.length}} (?!\\[)`));
  const text = end === -1 ? rest : rest.slice(0, end);
  return flat ? text.replace(/\n\s*/g, " ") : text;
}

function record(overrides: Partial<TaskRecord>): TaskRecord {
  return {
    version: 1,
    taskId: "x",
    agent: "worker",
    task: "t",
    mode: "async",
    status: "timed out",
    exitCode: null,
    stopReason: "activity_timeout",
    usage: { turns: 1, input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0, contextTokens: 0 },
    durationMs: 1000,
    dispatchedAt: 0,
    startedAt: 0,
    finishedAt: 1000,
    output: "",
    sessionFile: SESSION_FILE,
    cwd: "/work",
    delivered: false,
    ...overrides,
  } as TaskRecord;
}

/** What follows the envelope's `---` line, with the session file written as the manual writes it. */
function envelopeBody(overrides: Partial<TaskRecord>): string {
  const text = buildEnvelope(record(overrides), [], { activityTimeoutMs: 1000, hardTimeoutMs: 0 });
  return text.slice(text.indexOf("\n---\n") + 5).replaceAll(SESSION_FILE, "<path>");
}

describe("ADVANCED.md, the envelope's bodies", () => {
  const envelopeSection = () => section("### The `[subagent-result]` envelope", true);

  it("gives the body of a stopped run that produced nothing, and that of a failure without an answer", () => {
    const stopped = envelopeBody({ status: "timed out", partialTools: [] });
    const failed = envelopeBody({ status: "failed", stopReason: "error" });
    expect(stopped).toBe("The subagent produced no output before it was stopped. Its session file: <path>");
    expect(envelopeSection()).toContain(`\`${stopped}\``);
    expect(envelopeSection()).toContain(`\`${failed}\``);
  });

  it("names the heading a cancelled task's output really comes under", () => {
    const body = envelopeBody({ status: "cancelled", cancelledBy: "user", output: "half done", partialTools: [] });
    const heading = body.split("\n\n")[1]!.split("\n")[0]!;
    expect(heading).toBe("Partial output before it was stopped:");
    expect(envelopeSection()).toContain(`followed by a blank line and its partial output under \`${heading}\``);
    // The same heading when an older record kept no tool list.
    expect(envelopeBody({ status: "cancelled", cancelledBy: "user", output: "half done" })).toContain(
      `\n\n${heading}\nhalf done`,
    );
    for (const doc of ["ADVANCED.md", ...topicPages()])
      expect(readDoc(doc), doc).not.toMatch(/(?<!Partial )`Output before it was stopped:`/);
  });
});

describe("ADVANCED.md, the subagent tool", () => {
  const toolSection = () => section("## The `subagent` tool");

  it("has a row for every parameter of the schema, and the action row lists every action", () => {
    const rows = new Map(
      toolSection()
        .split("\n")
        .flatMap((line) => {
          const match = /^\| `([A-Za-z]+)` \| ([^|]*(?:\\\|[^|]*)*) \|/.exec(line);
          return match ? [[match[1]!, match[2]!] as const] : [];
        }),
    );
    for (const name of Object.keys(subagentParameters.properties)) expect(rows.has(name), name).toBe(true);
    const actions = subagentParameters.properties.action as unknown as { enum?: string[]; anyOf?: { const: string }[] };
    const names = actions.enum ?? actions.anyOf?.map((option) => option.const) ?? [];
    expect(names).toEqual(["dispatch", "cancel", "message", "merge"]);
    for (const action of names) expect(rows.get("action")).toContain(`\`${action}\``);
  });

  it("lists the depth gate before the unknown-action check, as the tool checks them", () => {
    const validation = section("### Validation");
    const depth = validation.indexOf("Depth gate");
    const unknown = validation.indexOf("`Unknown action");
    expect(depth).toBeGreaterThan(-1);
    expect(unknown).toBeGreaterThan(depth);
    expect(validation).toMatch(/^0\. Depth gate/m);
  });
});
