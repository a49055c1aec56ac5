import { describe, expect, it } from "vitest";
import {
  QuestionQueue,
  closeReasonOf,
  DialogBridge,
  type CloseReason,
  type Question,
  type ChildDialog,
  type DialogAnswer,
  type DialogResponse,
} from "../../../src/dialogs/child-dialogs.ts";
import {
  QuestionBoard,
  QUESTIONS_PER_TASK_MAX,
  ANSWER_USAGE,
  parseAnswerArgs,
} from "../../../src/dialogs/question-board.ts";

const dialog = (id: string, title = `Allow ${id}?`): ChildDialog => ({
  id,
  method: "select",
  title,
  options: ["Yes", "No"],
});

function queue() {
  const replies: Array<[string, DialogAnswer]> = [];
  const closed: Array<[string, CloseReason]> = [];
  let changes = 0;
  const q = new QuestionQueue({
    reply: (question: Question, answer) => replies.push([question.dialog.id, answer]),
    onClosed: (question, why) => closed.push([question.dialog.id, why]),
    onChange: () => (changes += 1),
    now: () => 1000,
  });
  return { q, replies, closed, changes: () => changes };
}

describe("the question queue", () => {
  it("shows questions one at a time, in arrival order, across tasks", () => {
    const { q, replies } = queue();
    q.ask("task-a", [{ agent: "explore", taskId: "task-a" }], dialog("a1"));
    q.ask("task-b", [{ agent: "reviewer", taskId: "task-b" }], dialog("b1"));
    q.ask("task-a", [{ agent: "explore", taskId: "task-a" }], dialog("a2"));
    expect(q.openFirst()?.dialog.id).toBe("a1");
    // One at a time: while a1 is open nothing else opens.
    expect(q.openFirst()).toBeUndefined();
    expect(q.answer(q.first()!.key, { value: "Yes" })).toBe(true);
    expect(q.openFirst()?.dialog.id).toBe("b1");
    q.answer(q.first()!.key, { cancelled: true });
    expect(q.openFirst()?.dialog.id).toBe("a2");
    q.answer(q.first()!.key, { value: "No" });
    expect(replies).toEqual([
      ["a1", { value: "Yes" }],
      ["b1", { cancelled: true }],
      ["a2", { value: "No" }],
    ]);
    expect(q.first()).toBeUndefined();
  });

  it("a cancelled task's questions leave the queue, shown or not, and the next task's question comes first", () => {
    const { q, replies, closed } = queue();
    const shown = q.ask("task-a", [], dialog("a1"));
    q.ask("task-b", [], dialog("b1"));
    q.ask("task-a", [], dialog("a2"));
    q.openFirst();
    expect(q.closeTask("task-a", "cancelled")).toBe(2);
    expect(closed).toEqual([
      ["a1", "cancelled"],
      ["a2", "cancelled"],
    ]);
    // An answer arriving for the closed question (the dialog was still up) goes nowhere.
    expect(q.answer(shown.key, { value: "Yes" })).toBe(false);
    expect(replies).toEqual([]);
    expect(q.first()?.dialog.id).toBe("b1");
    expect(q.first()?.opened).toBe(false);
  });

  it("shutdown closes every question; a closed one is closed once", () => {
    const { q, closed } = queue();
    const a = q.ask("task-a", [], dialog("a1"));
    q.ask("task-b", [], dialog("b1"));
    expect(q.closeAll("shutdown")).toBe(2);
    expect(q.close(a.key, "timed out")).toBe(false);
    expect(closed).toEqual([
      ["a1", "shutdown"],
      ["b1", "shutdown"],
    ]);
    expect(q.pending()).toEqual([]);
  });

  it("finds a task's oldest question, and puts a question it could not show back in its place", () => {
    const { q } = queue();
    q.ask("task-a", [], dialog("a1"));
    q.ask("task-b", [], dialog("b1"));
    q.ask("task-b", [], dialog("b2"));
    expect(q.forTask("task-b")?.dialog.id).toBe("b1");
    const first = q.openFirst()!;
    q.reopen(first.key);
    expect(q.first()).toMatchObject({ key: first.key, opened: false });
  });

  it("names why a stopped run's question closed", () => {
    expect(closeReasonOf("aborted")).toBe("cancelled");
    expect(closeReasonOf("activity_timeout")).toBe("timed out");
    expect(closeReasonOf("hard_timeout")).toBe("timed out");
    expect(closeReasonOf("budget")).toBe("budget");
    expect(closeReasonOf("killed_on_shutdown")).toBe("shutdown");
    expect(closeReasonOf(undefined)).toBe("ended");
  });
});

describe("a task asking in a loop (issue 34)", () => {
  it("keeps at most 3 of its questions waiting, refuses the rest at once as cancelled, counts them in one line, and the result names them", () => {
    const notices: string[] = [];
    const board = new QuestionBoard({ notify: (text) => notices.push(text) });
    const sent: DialogResponse[] = [];
    const bridge = new DialogBridge(
      board.routeFor({ agent: "worker", taskId: "01910000-1111-7000-8000-000001a2b3c4" }),
      (response) => sent.push(response),
    );
    for (let i = 0; i < 200; i++)
      bridge.handle({
        kind: "dialog",
        dialog: { id: `q${i}`, method: "confirm", title: `Allow step ${i}?`, message: "" },
      });
    expect(board.queue.pending()).toHaveLength(QUESTIONS_PER_TASK_MAX);
    expect(sent).toHaveLength(200 - QUESTIONS_PER_TASK_MAX);
    expect(sent.every((response) => "cancelled" in response && response.cancelled)).toBe(true);
    expect(board.waitingLine()).toBe(
      "? worker 01a2b3c4 asks: Allow step 0? (+2 more) · 197 more questions from worker refused · /subagent-answer",
    );
    expect(notices).toEqual([
      "worker 01a2b3c4 has 3 questions waiting: its next ones are refused (cancelled). /subagent-answer refuse answers all of its questions cancelled.",
    ]);
    expect(bridge.unanswered[0]).toBe('asked "Allow step 3?": no one to answer (too many questions waiting)');
    expect(bridge.unanswered.at(-1)).toBe("… and 187 more questions nobody could answer");
    // One command answers the rest; the count starts afresh.
    expect(board.refuseTask()?.count).toBe(3);
    expect(sent).toHaveLength(200);
    expect(board.waitingLine()).toBeUndefined();
    bridge.handle({ kind: "dialog", dialog: { id: "again", method: "confirm", title: "Allow again?", message: "" } });
    expect(board.waitingLine()).toBe("? worker 01a2b3c4 asks: Allow again? · /subagent-answer");
  });
});

describe("/subagent-answer's arguments", () => {
  it("opens with none, refuses with refuse [id], and explains anything else", () => {
    expect(parseAnswerArgs("")).toEqual({ kind: "open" });
    expect(parseAnswerArgs(" refuse ")).toEqual({ kind: "refuse" });
    expect(parseAnswerArgs("refuse 01a2")).toEqual({ kind: "refuse", task: "01a2" });
    expect(parseAnswerArgs("yes please")).toEqual({ kind: "unknown", message: ANSWER_USAGE });
  });
});
