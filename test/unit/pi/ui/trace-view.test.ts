/**
 * `/subagent-trace`'s viewer: the trace's lines in pi's theme under a title, scrolled by the viewers' keys, a
 * `live` footer while the delegation runs, and closed with q or Esc.
 */
import { describe, expect, it } from "vitest";
import { TraceView } from "../../../../src/pi/ui/trace-view.ts";
import { buildTrace } from "../../../../src/trace/trace.ts";
import { sessionSteps } from "../../../../src/trace/session-steps.ts";
import { record, STEP2, STEP2_SESSION, T0 } from "../../trace/trace-fixtures.ts";
import { darkTheme, plainLines } from "./helpers.ts";

function view(finished: boolean, rows = 12) {
  const closed: string[] = [];
  const trace = buildTrace({
    id: STEP2,
    kind: "task",
    rootIds: [STEP2],
    tasks: [
      finished
        ? { taskId: STEP2, record: record(STEP2, { start: 1000, end: 2600 }), steps: sessionSteps(STEP2_SESSION) }
        : {
            taskId: STEP2,
            live: { agent: "worker", task: "middle", startedAt: T0 + 1000 },
            steps: sessionSteps(STEP2_SESSION),
          },
    ],
  });
  const component = new TraceView({
    trace,
    theme: darkTheme(),
    rows: () => rows,
    now: () => T0 + 3000,
    onClose: () => closed.push("closed"),
  });
  return { component, closed };
}

describe("the trace viewer", () => {
  it("fills the screen: title, the trace from its top, the position and the keys", () => {
    const { component } = view(true);
    const lines = plainLines(component.render(100));
    expect(lines).toHaveLength(12);
    expect(lines[0]).toBe(` Subagent trace · task ${STEP2}`);
    expect(lines[2]).toMatch(/^ task 01a24476-5637-7465-a195-249f4152e710 · 1 subagent · 1.6 s · /);
    expect(lines[11]).toMatch(/^ 1-8 of 1[0-9] · ↑↓\/j\/k scroll · PgUp\/PgDn page · g\/G top\/end · q\/Esc close$/);
  });

  it("scrolls with the viewers' keys and closes with q", () => {
    const { component, closed } = view(true);
    component.handleInput("G");
    const end = plainLines(component.render(100));
    expect(end[9]).toContain("turn 4");
    component.handleInput("q");
    expect(closed).toEqual(["closed"]);
  });

  it("says live while the delegation runs, and takes a newer trace", () => {
    const { component } = view(false);
    expect(component.live).toBe(true);
    expect(plainLines(component.render(120)).at(-1)).toContain(" · live · ");
    component.update(view(true).component["trace"]);
    expect(component.live).toBe(false);
  });
});
