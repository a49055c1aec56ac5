/**
 * `/reload` renews all of the package's code, not only its entry. A copy of the package (its own `src/`, `agents/`,
 * entry and package.json; `node_modules` a link to the repository's) is installed with `pi install <copy>` in the
 * real TUI of the pi under test (`PI_E2E_PI`). Three texts that come from modules deep in `src/` are seen, then
 * edited on disk in the copy, and after `/reload` the new texts are seen and the old ones are gone:
 * - the `subagent` tool's prompt snippet, which reaches the model in the system prompt (a module pi loads at start,
 *   through the manifest);
 * - /subagent-config's description in the slash-command list (also loaded at start, through the manifest);
 * - an entry of /subagent-config's picker (a module of the command's body, imported only when the command first
 *   runs; it runs once before the edit, so that module was loaded already and must be loaded again).
 * The modules are found by searching the copy for the texts, not by their paths, so moving files around `src/`
 * does not break the test.
 *
 * @module-tag contract
 */
import { cpSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { useE2eSuite } from "../harness/e2e-suite.ts";
import type { FakeRequest } from "../harness/fake-model.ts";
import { REPO_ROOT, runPi } from "../harness/pi-env.ts";
import { waitForNoProcesses } from "../harness/processes.ts";
import { skipTuiTests, type TmuxPi } from "../harness/tmux.ts";

const suite = useE2eSuite();

/** What the copy holds of the package: what pi loads (the entry, `src/`, the built-in agents) and package.json. */
const PACKAGE_PARTS = ["package.json", "extension.ts", "src", "agents"];

/** The texts the test edits. Each must be a literal in exactly one module of the copy's `src/`. */
const TOOL_SNIPPET = "Delegate a bounded task to a named subagent running in its own pi process";
const CONFIG_DESCRIPTION =
  "Configure subagents: description, tools, skills, body, model & thinking, and the $models list";
const MANAGE_MODELS_ENTRY = "Manage available model list ($models)";

/** Both pis' status line once `/reload` is done (1.x goes on: ", and context files"), and its failure. */
const RELOADED = /Reloaded keybindings, extensions, skills, prompts, themes/;
const RELOAD_FAILED = /Reload failed/;

/** Copies the package to `to` and links its node_modules to the repository's, so its imports resolve. */
function copyPackage(to: string): void {
  mkdirSync(to, { recursive: true });
  for (const part of PACKAGE_PARTS) cpSync(join(REPO_ROOT, part), join(to, part), { recursive: true });
  symlinkSync(join(REPO_ROOT, "node_modules"), join(to, "node_modules"), "dir");
}

/** Every source file under `dir` (node_modules left out), as absolute paths. */
function sourceFiles(dir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === "node_modules") continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...sourceFiles(path));
    else if (entry.isFile() && /\.(ts|js|mts|mjs)$/.test(entry.name)) found.push(path);
  }
  return found;
}

/** The one module of the copy (entry or `src/`) that holds `text`; fails when none or several do. */
function moduleHolding(copy: string, text: string): string {
  const holders = [join(copy, "extension.ts"), ...sourceFiles(join(copy, "src"))].filter((file) =>
    readFileSync(file, "utf8").includes(text),
  );
  expect(
    holders.map((file) => relative(copy, file)),
    `the modules of the copy holding ${JSON.stringify(text)}`,
  ).toHaveLength(1);
  return holders[0]!;
}

/** Replaces every occurrence of `from` in the file with `to` (no replacement patterns: the texts hold `$`). */
function editText(file: string, from: string, to: string): void {
  const before = readFileSync(file, "utf8");
  const after = before.split(from).join(to);
  expect(after).not.toBe(before);
  writeFileSync(file, after);
}

/** A text on the screen, failing at once (with the screen) when a reload failed instead. */
async function waitForScreenText(tui: TmuxPi, wanted: string | RegExp, timeoutMs: number): Promise<string> {
  const screen = await tui.waitForScreen(
    (now) => RELOAD_FAILED.test(now) || (typeof wanted === "string" ? now.includes(wanted) : wanted.test(now)),
    timeoutMs,
    String(wanted),
  );
  if (RELOAD_FAILED.test(screen)) throw new Error(`the reload failed:\n${screen}`);
  return screen;
}

/**
 * Types `/subagent-config`, sees `description` in the slash-command list, closes the list (Esc) and runs the
 * command, sees `entry` in its picker and leaves it (Esc). Returns the two screens.
 */
async function configCommandScreens(
  tui: TmuxPi,
  description: string,
  entry: string,
): Promise<{ list: string; picker: string }> {
  await tui.type("/subagent-config");
  const list = await waitForScreenText(tui, description, 30_000);
  await tui.press("Escape");
  await tui.waitForNoText(description, 10_000);
  await tui.press("Enter");
  const picker = await waitForScreenText(tui, entry, 30_000);
  await tui.press("Escape");
  await tui.waitForNoText(entry, 20_000);
  return { list, picker };
}

/** Sends a prompt and returns the model's request for it, once its answer is on the screen (the turn is over). */
async function probe(tui: TmuxPi, name: string): Promise<FakeRequest> {
  const prompt = `Reload probe ${name}.`;
  const answer = `Probe ${name} answered.`;
  suite.fake.on({ when: (r) => r.lastRole === "user" && r.lastText.includes(prompt), reply: { text: answer } });
  await tui.submit(prompt);
  const request = await suite.fake.waitForRequest(
    (r) => r.lastRole === "user" && r.lastText.includes(prompt),
    60_000,
    `the request of ${prompt}`,
  );
  await tui.waitForText(answer, 30_000);
  return request;
}

describe.skipIf(skipTuiTests())("/reload in the TUI, with the package installed from a path", () => {
  it("renews the package's modules: texts edited on disk in modules loaded at start and on first use show after /reload", {
    tags: ["tui"],
  }, async () => {
    const env = suite.newEnv();
    const copy = join(env.root, "package-copy");
    copyPackage(copy);
    const install = await runPi(["install", copy], { env: env.env, cwd: env.workDir, timeoutMs: 120_000 });
    expect(install.code, install.stderr).toBe(0);
    const settings = JSON.parse(readFileSync(join(env.agentDir, "settings.json"), "utf8")) as { packages?: string[] };
    expect(settings.packages?.map((entry) => resolve(env.agentDir, entry))).toEqual([copy]);

    // Found now, in the copy: modules deep in src/, wherever they are at the moment.
    const snippetModule = moduleHolding(copy, TOOL_SNIPPET);
    const descriptionModule = moduleHolding(copy, CONFIG_DESCRIPTION);
    const entryModule = moduleHolding(copy, MANAGE_MODELS_ENTRY);
    for (const module of [snippetModule, descriptionModule, entryModule])
      expect(relative(copy, module)).toMatch(/^src\//);

    const tui = await suite.startTui({ args: [] });

    // Before: the texts as the package has them (and /subagent-config's body is loaded).
    const before = await probe(tui, "one");
    expect(before.tools).toContain("subagent");
    expect(before.system).toContain(`- subagent: ${TOOL_SNIPPET}`);
    await configCommandScreens(tui, CONFIG_DESCRIPTION.slice(0, 40), MANAGE_MODELS_ENTRY);

    // Edit the three texts on disk, in the copy pi loads.
    const token = Date.now().toString(36).toUpperCase();
    const newSnippet = `RELOADED-SNIPPET-${token} hands a task to a named subagent`;
    const newDescription = `RELOADED-DESCRIPTION-${token} of the config command`;
    const newEntry = `RELOADED-ENTRY-${token} of the config picker`;
    editText(snippetModule, TOOL_SNIPPET, newSnippet);
    editText(descriptionModule, CONFIG_DESCRIPTION, newDescription);
    editText(entryModule, MANAGE_MODELS_ENTRY, newEntry);

    await tui.submit("/reload");
    await waitForScreenText(tui, RELOADED, 60_000);

    // After: the new texts, and none of the old.
    const { list, picker } = await configCommandScreens(tui, newDescription, newEntry);
    expect(list).not.toContain(CONFIG_DESCRIPTION.slice(0, 40));
    expect(picker).not.toContain(MANAGE_MODELS_ENTRY);
    const after = await probe(tui, "two");
    expect(after.tools).toContain("subagent");
    expect(after.system).toContain(`- subagent: ${newSnippet}`);
    expect(after.system).not.toContain(TOOL_SNIPPET);

    expect(await tui.quit()).toBe(0);
    await tui.dispose();
    expect(await waitForNoProcesses(env.marker)).toEqual([]);
  });
});
