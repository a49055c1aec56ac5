/**
 * Test doubles for /subagent-config: scripted dialogs that answer one step at a time (and fail loudly on a
 * dialog the script did not expect), and a temp-dir world (home, pi's agent dir, a project, built-in agents)
 * with a snapshot of every file in it, so a test can prove that a path wrote nothing.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { createConfigStore } from "../../../../src/commands/config-store.ts";
import type {
  BodyEditOutcome,
  ConfigDialogs,
  ConfigStore,
  NoticeLevel,
} from "../../../../src/commands/config-editor.ts";
import { createTempTree, type TempTree } from "../../agents/temp-tree.ts";

type Answer<T> = T | ((options: string[], title: string) => T);

export type Step =
  | { kind: "select"; answer: Answer<string | undefined> }
  | { kind: "input"; answer: string | undefined | ((value: string, title: string) => string | undefined) }
  | { kind: "confirm"; answer: boolean }
  | { kind: "editBody"; answer: BodyEditOutcome };

export interface DialogCall {
  kind: Step["kind"];
  title: string;
  options?: string[];
  value?: string;
  message?: string;
}

/** Chooses the option that starts with `prefix` (the script fails when there is none). */
export function choose(prefix: string): Step {
  return {
    kind: "select",
    answer: (options, title) => {
      const found = options.find((option) => option.startsWith(prefix));
      if (found === undefined)
        throw new Error(`no option starting with ${JSON.stringify(prefix)} in "${title}": ${JSON.stringify(options)}`);
      return found;
    },
  };
}

/** Chooses the option that is exactly `label` or `label (current)`. */
export function chooseExactly(label: string): Step {
  return {
    kind: "select",
    answer: (options, title) => {
      const found = options.find((option) => option === label || option === `${label} (current)`);
      if (found === undefined)
        throw new Error(`no option ${JSON.stringify(label)} in "${title}": ${JSON.stringify(options)}`);
      return found;
    },
  };
}

export const escSelect: Step = { kind: "select", answer: undefined };
export const escInput: Step = { kind: "input", answer: undefined };
export const type = (text: string): Step => ({ kind: "input", answer: text });
export const confirmAnswer = (answer: boolean): Step => ({ kind: "confirm", answer });
export const bodyEdit = (answer: BodyEditOutcome): Step => ({ kind: "editBody", answer });

export class ScriptedDialogs implements ConfigDialogs {
  readonly calls: DialogCall[] = [];
  readonly notices: Array<{ message: string; level: NoticeLevel }> = [];
  private readonly steps: Step[];

  constructor(steps: Step[]) {
    this.steps = [...steps];
  }

  get remaining(): number {
    return this.steps.length;
  }

  private next<K extends Step["kind"]>(kind: K, title: string): Extract<Step, { kind: K }> {
    const step = this.steps.shift();
    if (!step) throw new Error(`unscripted ${kind}: "${title}"`);
    if (step.kind !== kind) throw new Error(`expected ${step.kind}, the flow asked for ${kind}: "${title}"`);
    return step as Extract<Step, { kind: K }>;
  }

  async select(title: string, options: readonly string[]): Promise<string | undefined> {
    this.calls.push({ kind: "select", title, options: [...options] });
    const { answer } = this.next("select", title);
    return typeof answer === "function" ? answer([...options], title) : answer;
  }

  async confirm(title: string, message: string): Promise<boolean> {
    this.calls.push({ kind: "confirm", title, message });
    return this.next("confirm", title).answer;
  }

  async input(title: string, value: string): Promise<string | undefined> {
    this.calls.push({ kind: "input", title, value });
    const { answer } = this.next("input", title);
    return typeof answer === "function" ? answer(value, title) : answer;
  }

  async editBody(agentName: string, body: string): Promise<BodyEditOutcome> {
    this.calls.push({ kind: "editBody", title: agentName, value: body });
    return this.next("editBody", agentName).answer;
  }

  notify(message: string, level: NoticeLevel): void {
    this.notices.push({ message, level });
  }

  /** The titles of the dialogs shown, in order. */
  get titles(): string[] {
    return this.calls.map((call) => call.title);
  }

  /** The options of the n-th select (0-based, counting selects only). */
  selectOptions(index: number): string[] {
    const call = this.calls.filter((c) => c.kind === "select")[index];
    if (!call?.options) throw new Error(`no select #${index}`);
    return call.options;
  }

  lastSelectOptions(): string[] {
    const selects = this.calls.filter((c) => c.kind === "select");
    return selects[selects.length - 1]?.options ?? [];
  }
}

export const WORKER_TEXT =
  "---\nname: worker\ndescription: A test worker\ntools: read, bash\nthinking: medium\n---\n\nYou are the worker.\nSecond line.\n";
export const HELPER_TEXT = "---\nname: helper\ndescription: A built-in helper\n---\n\nYou help.\n";

export interface World {
  tree: TempTree;
  home: string;
  agentDir: string;
  builtinDir: string;
  cwd: string;
  /** `<cwd>/.pi`, present unless the world was made without a project. */
  projectPi: string;
  userConfig: string;
  projectConfig: string;
  workerFile: string;
  helperFile: string;
  store(inheritedModel?: string, pi?: { inheritedThinking?: string; registryModels?: string[] }): ConfigStore;
  /** Every file under the tree with its content (for "nothing was written"). */
  files(): Record<string, string>;
  read(path: string): string;
  remove(): void;
}

function listFiles(root: string, dir = root, out: Record<string, string> = {}): Record<string, string> {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) listFiles(root, path, out);
    else out[relative(root, path)] = readFileSync(path, "utf8");
  }
  return out;
}

/**
 * Layout: <root>/home (home), <root>/home/.pi/agent (pi's agent dir), <root>/builtin (helper.md),
 * <root>/work (cwd) with .pi/agents/worker.md (unless `project: false`).
 */
export function createWorld(
  options: { project?: boolean; worker?: string; userConfig?: unknown; projectConfig?: unknown } = {},
): World {
  const tree = createTempTree("pi-subagent-config-");
  const home = tree.mkdir("home");
  const agentDir = tree.mkdir("home/.pi/agent");
  const builtinDir = tree.mkdir("builtin");
  const cwd = tree.mkdir("work");
  const helperFile = tree.write("builtin/helper.md", HELPER_TEXT);
  const workerFile = tree.path("work/.pi/agents/worker.md");
  if (options.project !== false) tree.write("work/.pi/agents/worker.md", options.worker ?? WORKER_TEXT);
  const userConfig = join(agentDir, "subagent-isolation.json");
  const projectConfig = tree.path("work/.pi/subagent-isolation.json");
  if (options.userConfig !== undefined)
    tree.write("home/.pi/agent/subagent-isolation.json", `${JSON.stringify(options.userConfig, null, 2)}\n`);
  if (options.projectConfig !== undefined)
    tree.write("work/.pi/subagent-isolation.json", `${JSON.stringify(options.projectConfig, null, 2)}\n`);
  return {
    tree,
    home,
    agentDir,
    builtinDir,
    cwd,
    projectPi: tree.path("work/.pi"),
    userConfig,
    projectConfig,
    workerFile,
    helperFile,
    store: (inheritedModel, pi = {}) =>
      createConfigStore({
        cwd,
        agentDir,
        home,
        builtinDir,
        ...(inheritedModel !== undefined ? { inheritedModel } : {}),
        ...pi,
      }),
    files: () => listFiles(tree.root),
    read: (path) => readFileSync(path, "utf8"),
    remove: () => tree.remove(),
  };
}
