/**
 * The person's questions end to end inside one process: two fake RPC children (test/harness/asking-child.ts) run
 * by the real runner, their dialogs routed through one QuestionBoard to the presenter over a fake pi UI. Covers
 * arrival order and one dialog at a time, the label in the dialog's title, the waiting line while the person
 * types or the main agent streams, Esc as cancelled, a cancel taking the shown dialog off the screen with a
 * notice, and the rate limit on a child's notices.
 */
import { randomUUID } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import type { ChildCommand } from "../../../../src/run/command-line.ts";
import { startRun } from "../../../../src/run/runner.ts";
import { QuestionBoard } from "../../../../src/dialogs/question-board.ts";
import {
  QUESTION_GAP_MS,
  QuestionPresenter,
  questionPauseMs,
  type PresenterContext,
  type PresenterTiming,
} from "../../../../src/pi/dialogs/question-presenter.ts";
import type { DialogAnswer } from "../../../../src/dialogs/child-dialogs.ts";
import { ASKING_CHILD } from "../../../harness/asking-child.ts";
import { MARKER_VAR } from "../../../harness/pi-env.ts";
import { expectNoProcessesLeftAfterEach } from "../../../harness/processes.ts";

const markers = expectNoProcessesLeftAfterEach();
const presenters: QuestionPresenter[] = [];

afterEach(() => {
  for (const presenter of presenters.splice(0)) presenter.dispose();
});

function askingChild(): ChildCommand {
  const marker = randomUUID();
  markers.push(marker);
  return {
    command: process.execPath,
    args: ["-e", ASKING_CHILD],
    env: { PATH: process.env.PATH, [MARKER_VAR]: marker },
    mode: "rpc",
    prompt: "Task: clean up",
  };
}

const until = async (predicate: () => boolean, timeoutMs = 10_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

/** pi's UI as the presenter sees it: each select is recorded and answered by the test; editor text and idleness are set. */
function fakePi() {
  const shown: Array<{
    title: string;
    options: string[];
    answer: (chosen: string | undefined) => void;
    aborted: () => boolean;
  }> = [];
  const notices: string[] = [];
  let editorText = "";
  let idle = true;

  const ctx: PresenterContext = {
    isIdle: () => idle,
    ui: {
      select: (title, options, opts) =>
        new Promise((resolve) => {
          const entry = { title, options, answer: resolve, aborted: () => opts?.signal?.aborted === true };
          shown.push(entry);
          opts?.signal?.addEventListener("abort", () => resolve(undefined), { once: true });
        }),
      confirm: async () => false,
      input: async () => undefined,
      editor: async () => undefined,
      getEditorText: () => editorText,
    },
  };
  return {
    ctx,
    shown,
    notices,
    type: (text: string) => (editorText = text),
    setIdle: (value: boolean) => (idle = value),
  };
}

function setUp(timing: Partial<PresenterTiming> = {}) {
  const pi = fakePi();
  const board = new QuestionBoard({ notify: (text) => pi.notices.push(text) });
  const presenter = new QuestionPresenter(board, () => pi.ctx, { pollMs: 20, ...timing });
  presenters.push(presenter);
  const start = (agent: string, taskId: string) =>
    startRun({
      command: askingChild(),
      cwd: process.cwd(),
      activityTimeoutMs: 0,
      hardTimeoutMs: 0,
      graceMs: 500,
      stopGraceMs: 1000,
      dialogs: board.routeFor({ agent, taskId }),
    });
  return { pi, board, start };
}

describe("the person's questions", () => {
  it("come one at a time in arrival order, labelled with the asking agent, and each answer reaches its own child", async () => {
    const { pi, board, start } = setUp();
    const first = start("explore", "01911111-1111-7000-8000-000001a2b3c4");
    await until(() => pi.shown.length === 1);
    const second = start("reviewer", "01912222-2222-7000-8000-000001a2b3c5");
    await until(() => board.queue.pending().length === 2);
    expect(pi.shown).toHaveLength(1);
    expect(pi.shown[0]?.title).toBe("explore 01a2b3c4 asks:\n⚠️ Dangerous command:\n\n  rm -rf build\n\nAllow?");
    expect(pi.shown[0]?.options).toEqual(["Yes", "No"]);
    pi.shown[0]?.answer("Yes");
    await until(() => pi.shown.length === 2);
    expect(pi.shown[1]?.title.split("\n")[0]).toBe("reviewer 01a2b3c5 asks:");
    // Esc in pi's selector: the child hears cancelled, as in a plain pi.
    pi.shown[1]?.answer(undefined);
    expect((await first.done).output).toBe('got q1 {"value":"Yes"}');
    expect((await second.done).output).toBe('got q1 {"cancelled":true}');
  });

  it("waits as the widget's line while the person types or the main agent streams, and opens once they can answer", async () => {
    const { pi, board, start } = setUp();
    pi.type("half a sentence");
    const handle = start("explore", "01911111-1111-7000-8000-000001a2b3c4");
    await until(() => board.queue.pending().length === 1);
    expect(board.waitingLine()).toBe(
      "? explore 01a2b3c4 asks: ⚠️ Dangerous command: rm -rf build Allow? · /subagent-answer",
    );
    expect(board.questionOf("01911111-1111-7000-8000-000001a2b3c4")).toBe(
      "explore 01a2b3c4 asks: ⚠️ Dangerous command: rm -rf build Allow?",
    );
    pi.type("");
    pi.setIdle(false);
    // Still nothing shown: the main agent is streaming.
    await until(() => board.queue.pending().length === 1);
    expect(pi.shown).toHaveLength(0);
    pi.setIdle(true);
    await until(() => pi.shown.length === 1);
    expect(board.waitingLine()).toBeUndefined();
    pi.shown[0]?.answer("No");
    expect((await handle.done).output).toBe('got q1 {"value":"No"}');
  });

  it("a cancelled task's shown question is taken off the screen and the person is told it is gone", async () => {
    const { pi, board, start } = setUp();
    const handle = start("explore", "01911111-1111-7000-8000-000001a2b3c4");
    await until(() => pi.shown.length === 1);
    handle.stop("aborted");
    expect(pi.shown[0]?.aborted()).toBe(true);
    expect(pi.notices).toContain(
      "Question gone (the task was cancelled): explore 01a2b3c4 asks: ⚠️ Dangerous command: rm -rf build Allow?",
    );
    expect(board.queue.pending()).toEqual([]);
    expect((await handle.done).status).toBe("cancelled");
  });

  it("a child's notify is shown labelled; a flood is cut to a few and one held-back line", () => {
    const { pi, board } = setUp();
    const route = board.routeFor({ agent: "explore", taskId: "1111-01a2b3c4" });
    if (route.kind !== "person") throw new Error("expected a person route");
    for (let i = 0; i < 20; i++) route.sink.notice?.({ message: `step ${i}`, level: "info" });
    expect(pi.notices).toEqual([
      "explore 01a2b3c4 says: step 0",
      "explore 01a2b3c4 says: step 1",
      "explore 01a2b3c4 says: step 2",
      "explore 01a2b3c4: more notices held back (a few every 10 s are shown)",
    ]);
  });

  /** Two questions of one task straight into the board's route; their answers are collected. */
  function askTwice(board: QuestionBoard, method: "select" | "confirm" = "select") {
    const route = board.routeFor({ agent: "worker", taskId: "01910000-1111-7000-8000-000001a2b3c4" });
    if (route.kind !== "person") throw new Error("expected a person route");
    const answers: DialogAnswer[] = [];
    for (const dir of ["junk-a", "junk-b"]) {
      const dialog =
        method === "select"
          ? { id: dir, method, title: `rm -rf ${dir}?`, options: ["Yes", "No"] }
          : { id: dir, method, title: `rm -rf ${dir}?`, message: "Sure?" };
      route.sink.ask(dialog, (answer) => answers.push(answer));
    }
    return answers;
  }

  it("after a question closes the next waits a pause: what the person types meanwhile goes to the editor, and the question waits until it is empty (issue 34)", async () => {
    const { pi, board } = setUp({ gapMs: 300 });
    const answers = askTwice(board);
    await until(() => pi.shown.length === 1);
    pi.shown[0]?.answer("No");
    // The person starts typing right after answering: the second question is not there to take the keys.
    await until(() => answers.length === 1);
    expect(pi.shown).toHaveLength(1);
    expect(board.waitingLine()).toMatch(/^\? worker 01a2b3c4 asks: rm -rf junk-b\?/);
    pi.type("thanks");
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(pi.shown).toHaveLength(1);
    pi.type("");
    await until(() => pi.shown.length === 2);
    expect(pi.shown[1]?.title).toContain("rm -rf junk-b?");
  });

  it("shows a child's confirm with No first, so Enter alone never says Yes (issue 34)", async () => {
    const { pi, board } = setUp({ gapMs: 0 });
    const answers = askTwice(board, "confirm");
    await until(() => pi.shown.length === 1);
    expect(pi.shown[0]?.options).toEqual(["No", "Yes"]);
    expect(pi.shown[0]?.title).toBe("worker 01a2b3c4 asks:\nrm -rf junk-a?\nSure?");
    pi.shown[0]?.answer("No");
    await until(() => pi.shown.length === 2);
    pi.shown[1]?.answer("Yes");
    await until(() => answers.length === 2);
    expect(answers).toEqual([{ confirmed: false }, { confirmed: true }]);
  });

  it("/subagent-answer refuse takes a shown question of the task off the screen and answers its whole queue cancelled", async () => {
    const { pi, board } = setUp();
    const answers = askTwice(board);
    await until(() => pi.shown.length === 1);
    expect(board.refuseTask()).toEqual({
      asker: { agent: "worker", taskId: "01910000-1111-7000-8000-000001a2b3c4" },
      count: 2,
    });
    expect(pi.shown[0]?.aborted()).toBe(true);
    expect(answers).toEqual([{ cancelled: true }, { cancelled: true }]);
    expect(board.queue.pending()).toEqual([]);
    expect(board.refuseTask()).toBeUndefined();
  });
});

describe("the pause between questions (PI_SUBAGENT_QUESTION_PAUSE_MS)", () => {
  it("is a second by default, a whole number of ms when set, and the default again for anything else", () => {
    expect(questionPauseMs({})).toBe(QUESTION_GAP_MS);
    expect(QUESTION_GAP_MS).toBe(1000);
    expect(questionPauseMs({ PI_SUBAGENT_QUESTION_PAUSE_MS: "20000" })).toBe(20000);
    expect(questionPauseMs({ PI_SUBAGENT_QUESTION_PAUSE_MS: "0" })).toBe(0);
    for (const bad of ["-5", "1.5", "soon", ""])
      expect(questionPauseMs({ PI_SUBAGENT_QUESTION_PAUSE_MS: bad })).toBe(QUESTION_GAP_MS);
  });
});
