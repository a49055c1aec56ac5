/**
 * The script the fake model follows in `npm run try` (see try.ts): a short tour of the package in pi's TUI.
 * Whatever the person types, the main agent delegates to the built-in `explore` agent: the first, third, ...
 * prompt a short task (three tool calls, about five seconds), the second, fourth, ... a long one (about a minute,
 * time to try `/subagent-watch` and `/subagent-cancel`). When a result is delivered, the main agent says what
 * arrived and what to try next. The sample project the subagent explores is written by `writeSampleProject`.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { messageText, type FakeAction, type FakeModel, type FakeRequest } from "../test/harness/fake-model.ts";

/** Files of the throw-away project pi runs in. */
const SAMPLE_PROJECT: Record<string, string> = {
  "README.md": "# greeter\n\nA tiny sample project for `npm run try`: it greets people.\n",
  "src/greet.ts":
    'export const GREETING = "Hello from pi-subagent-dispatch!";\n\nexport function greet(name: string): string {\n  return `${GREETING} Nice to meet you, ${name}.`;\n}\n',
  "src/main.ts": 'import { greet } from "./greet.ts";\n\nconsole.log(greet(process.argv[2] ?? "world"));\n',
  "src/config.ts": 'export const config = { shout: false, language: "en" };\n',
  "test/greet.test.ts":
    'import { greet } from "../src/greet.ts";\n\nif (!greet("Ada").includes("Ada")) throw new Error("greet forgot the name");\n',
};

export function writeSampleProject(dir: string): void {
  for (const [path, content] of Object.entries(SAMPLE_PROJECT)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
}

const SHORT_TASK =
  "Find where the greeting text is defined in this project and what it says. Report the file, the line and the exact text, in one short paragraph.";
const LONG_TASK =
  "Survey the whole project file by file: list every folder, read every file, and describe what each one does. Output: one line per file.";

/**
 * The explore subagent's steps, one per model call; the last is its answer. Only ls and read: offline, pi does not
 * download the fd and ripgrep binaries its find and grep tools need.
 */
const SHORT_STEPS: FakeAction[] = [
  { toolCalls: [{ name: "ls", arguments: { path: "." } }] },
  { toolCalls: [{ name: "ls", arguments: { path: "src" } }] },
  { toolCalls: [{ name: "read", arguments: { path: "src/greet.ts" } }] },
  {
    text: 'The greeting is defined in `src/greet.ts`, line 1: `export const GREETING = "Hello from pi-subagent-dispatch!"`. `greet(name)` in the same file adds the name after it.',
  },
];
const LONG_STEPS: FakeAction[] = [
  { toolCalls: [{ name: "ls", arguments: { path: "." } }] },
  { toolCalls: [{ name: "ls", arguments: { path: "src" } }] },
  { toolCalls: [{ name: "read", arguments: { path: "README.md" } }] },
  { toolCalls: [{ name: "read", arguments: { path: "src/greet.ts" } }] },
  { toolCalls: [{ name: "read", arguments: { path: "src/main.ts" } }] },
  { toolCalls: [{ name: "read", arguments: { path: "src/config.ts" } }] },
  { toolCalls: [{ name: "ls", arguments: { path: "test" } }] },
  { toolCalls: [{ name: "read", arguments: { path: "test/greet.test.ts" } }] },
  { toolCalls: [{ name: "read", arguments: { path: "src/greet.ts", offset: 3 } }] },
  {
    text: [
      "- README.md: says what the project is (a greeter).",
      "- src/greet.ts: the greeting text and `greet(name)`.",
      "- src/main.ts: the command line, greets its first argument.",
      "- src/config.ts: two settings, `shout` and `language`, not used yet.",
      "- test/greet.test.ts: checks that `greet` keeps the name.",
    ].join("\n"),
  },
];
/** How long each of the subagent's model calls "thinks": short steps make about 5 s, long ones about a minute. */
const SHORT_STEP_MS = 1_300;
const LONG_STEP_MS = 5_500;

const FAKE_NOTICE =
  "(I am the fake model of `npm run try`, not a real one: whatever you type, I hand a task to a subagent, so you can see how that looks.)";

const isExploreChild = (request: FakeRequest): boolean => request.system.includes("You are a code explorer");
const isDelivery = (request: FakeRequest): boolean =>
  request.lastRole === "user" && request.lastText.includes("[subagent-result]");
const firstUserText = (request: FakeRequest): string =>
  messageText(request.messages.find((message) => message.role === "user"));
const modelCallsSoFar = (request: FakeRequest): number =>
  request.messages.filter((message) => message.role === "assistant").length;

/** How many prompts the person has typed in this conversation (delivered results are not theirs). */
function personPrompts(request: FakeRequest): number {
  return request.messages.filter(
    (message) => message.role === "user" && !messageText(message).includes("[subagent-result]"),
  ).length;
}

function delegation(request: FakeRequest): FakeAction {
  const long = personPrompts(request) % 2 === 0;
  const text = long
    ? "This time a longer task (about a minute): open it live with `/subagent-watch`, or stop it with `/subagent-cancel`."
    : `${personPrompts(request) === 1 ? `${FAKE_NOTICE}\n\n` : ""}I'll ask the explore subagent; it runs in its own pi process while we go on.`;
  return {
    text,
    toolCalls: [{ name: "subagent", arguments: { agent: "explore", task: long ? LONG_TASK : SHORT_TASK } }],
  };
}

function afterReceipt(): FakeAction {
  return {
    text: "It is working in the background: the widget above the editor shows what it is doing. Its result comes here by itself when it is done; you can keep typing meanwhile.",
  };
}

function afterDelivery(request: FakeRequest): FakeAction {
  const status = /\[subagent-result\] \S+ (\S+)/.exec(request.lastText)?.[1] ?? "ended";
  const answer = (request.lastText.includes(LONG_TASK) ? LONG_STEPS : SHORT_STEPS).at(-1)?.text ?? "";
  const headline =
    status === "succeeded"
      ? `The subagent's result arrived (the card above; Ctrl+O expands it). It says:\n\n${answer}`
      : status === "cancelled"
        ? "The subagent was cancelled; what it did before it was stopped is in its card."
        : `The subagent ended (${status}); its card says why.`;
  return {
    text: [
      headline,
      "",
      "Things to try now:",
      "- type anything: I delegate again (every second time a longer task, to watch or cancel)",
      "- `/subagent-watch`: a running subagent live",
      "- `/subagent-result`: a finished result again, whole",
      "- `/subagent-cancel`: stop a running one",
      "- `/subagent-config`: the agents, their tools, prompt and model",
      "- `/quit`: end the tour (its temporary folders are removed)",
    ].join("\n"),
  };
}

/** Installs the tour on the fake model. */
export function scriptTour(fake: FakeModel): void {
  fake
    .on({
      name: "the explore subagent's next step",
      when: isExploreChild,
      reply: (request) => {
        const long = firstUserText(request).includes(LONG_TASK);
        const steps = long ? LONG_STEPS : SHORT_STEPS;
        const step = steps[Math.min(modelCallsSoFar(request), steps.length - 1)]!;
        return { ...step, delayMs: long ? LONG_STEP_MS : SHORT_STEP_MS };
      },
    })
    .on({ name: "a delivered result", when: isDelivery, reply: afterDelivery })
    .on({ name: "the dispatch receipt", when: (request) => request.lastRole === "tool", reply: afterReceipt })
    .on({ name: "the person's prompt", when: (request) => request.lastRole === "user", reply: delegation });
}
