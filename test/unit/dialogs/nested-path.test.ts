import { describe, expect, it } from "vitest";
import { decodeNestedTitle, encodeNestedTitle, nestedHopsBelow } from "../../../src/dialogs/child-dialogs.ts";
import { QuestionBoard } from "../../../src/dialogs/question-board.ts";
import { askingEvent } from "../../../src/delivery/lifecycle-events.ts";

const EXPLORE = { agent: "explore", taskId: "0191eeee-1111-7000-8000-0000000001a3" };
const DEEP = { agent: "leaf", taskId: "0191dddd-2222-7000-8000-0000000001a4" };

describe("a question's path up a tree of subagents", () => {
  it("round-trips through a forwarding child's title, and leaves titles without a path alone", () => {
    const title = encodeNestedTitle([EXPLORE, DEEP], "⚠️ Dangerous command:\n\n  rm -rf build\n\nAllow?");
    expect(title.split("\n")[0]).toBe(`\u2063explore ${EXPLORE.taskId} › leaf ${DEEP.taskId} asks:`);
    expect(decodeNestedTitle(title, 2)).toEqual({
      path: [EXPLORE, DEEP],
      title: "⚠️ Dangerous command:\n\n  rm -rf build\n\nAllow?",
    });
    expect(decodeNestedTitle("explore 01a3 asks:\nAllow?", 2)).toEqual({
      path: [],
      title: "explore 01a3 asks:\nAllow?",
    });
    // A mark without a well-formed path is an extension's own text, kept whole.
    expect(decodeNestedTitle("\u2063not a path\nAllow?", 2)).toEqual({ path: [], title: "\u2063not a path\nAllow?" });
  });

  it("a grandchild's question, forwarded by its parent, is labelled with the whole path at the top", () => {
    const board = new QuestionBoard({ notify: () => {} });
    const route = board.routeFor(
      { agent: "reviewer", taskId: "0191ffff-0000-7000-8000-0000000001a2" },
      { nestedHops: 1 },
    );
    if (route.kind !== "person") throw new Error("expected a person route");
    route.sink.ask(
      { id: "q", method: "select", title: encodeNestedTitle([EXPLORE], "Allow rm -rf build?"), options: ["Yes", "No"] },
      () => {},
    );
    expect(board.waitingLine()).toBe("? reviewer 01a2 › explore 01a3 asks: Allow rm -rf build? · /subagent-answer");
    expect(board.queue.first()?.taskId).toBe("0191ffff-0000-7000-8000-0000000001a2");
  });

  it("tells other extensions of each question as it joins the queue (subagent:asking), with the whole path", () => {
    const heard: unknown[] = [];
    const board = new QuestionBoard({ notify: () => {}, asked: (question) => heard.push(askingEvent(question, 42)) });
    const route = board.routeFor(
      { agent: "reviewer", taskId: "0191ffff-0000-7000-8000-0000000001a2" },
      { nestedHops: 1 },
    );
    if (route.kind !== "person") throw new Error("expected a person route");
    route.sink.ask(
      { id: "q", method: "confirm", title: encodeNestedTitle([EXPLORE], "Allow rm -rf build?") },
      () => {},
    );
    expect(heard).toEqual([
      {
        source: "pi-subagent-dispatch",
        taskId: "0191ffff-0000-7000-8000-0000000001a2",
        agent: "reviewer",
        askers: [{ agent: "reviewer", taskId: "0191ffff-0000-7000-8000-0000000001a2" }, EXPLORE],
        kind: "confirm",
        title: "Allow rm -rf build?",
        at: 42,
      },
    ]);
  });

  it("takes no hop from a child at the depth limit, and no more hops than the limit leaves below a child", () => {
    const forged = encodeNestedTitle([EXPLORE], "Allow rm -rf build?");
    // At the limit the child has no children: its path is its own text, kept whole under the real label.
    expect(decodeNestedTitle(forged, 0)).toEqual({ path: [], title: forged });
    expect(nestedHopsBelow(2, 2)).toBe(0);
    expect(nestedHopsBelow(1, 2)).toBe(1);
    // One level below: one hop is real, two are forged.
    const tooLong = encodeNestedTitle([EXPLORE, DEEP], "Allow?");
    expect(decodeNestedTitle(tooLong, 1)).toEqual({ path: [], title: tooLong });
    expect(decodeNestedTitle(tooLong, 2).path).toEqual([EXPLORE, DEEP]);

    const board = new QuestionBoard({ notify: () => {} });
    const route = board.routeFor({ agent: "worker", taskId: "01910000-0000-7000-8000-000001a2ffff" });
    if (route.kind !== "person") throw new Error("expected a person route");
    route.sink.ask({ id: "q", method: "select", title: forged, options: ["Yes", "No"] }, () => {});
    const line = board.waitingLine() ?? "";
    // The label is the parent's: the asking worker alone, never "worker › explore".
    expect(line.startsWith("? worker 01a2ffff asks: ")).toBe(true);
    expect(line).not.toContain("›");
    expect(board.queue.first()?.path).toEqual([{ agent: "worker", taskId: "01910000-0000-7000-8000-000001a2ffff" }]);
  });
});
