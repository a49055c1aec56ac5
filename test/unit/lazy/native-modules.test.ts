/**
 * The package's `.js` modules are not loaded by vite or by pi's TypeScript loader: pi's loader hands a `.js` file of
 * a `"type": "module"` package to Node as it is (ADVANCED.md, "Modules Node loads itself"). So every one of them must
 * load in a bare Node, and none may import, at run time, a TypeScript file or a package Node cannot resolve from an
 * installed copy of this package (pi's packages and TypeBox are pi's loader's to resolve). A lazy `import()` that only
 * a rare path takes counts too: the tests here would never run it natively.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../harness/pi-env.ts";

const SRC = join(REPO_ROOT, "src");

function jsModules(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return jsModules(path);
    return entry.name.endsWith(".js") ? [path] : [];
  });
}

/**
 * Run-time module specifiers of a source: static imports and re-exports, side-effect imports, and (unless
 * `staticOnly`) `import()`.
 */
function runtimeSpecifiers(source: string, staticOnly = false): string[] {
  // JSDoc (`@import`, `import("…")` in a type) is erased: only code counts.
  const code = source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
  const found: string[] = [];
  const patterns = [
    /^\s*(?:import|export)\s+(?!type\s)[^;]*?\sfrom\s*["']([^"']+)["']/gm,
    /^\s*import\s*["']([^"']+)["']/gm,
    ...(staticOnly ? [] : [/\bimport\(\s*["']([^"']+)["']\s*\)/g]),
  ];
  for (const pattern of patterns) for (const match of code.matchAll(pattern)) found.push(match[1]!);
  return found;
}

const packageJson = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as { dependencies?: Record<string, string> };
const dependencies = new Set(Object.keys(packageJson.dependencies ?? {}));

/** Why Node could not load `specifier` from `file` in an installed copy, or undefined when it can. */
function nativeImportProblem(file: string, specifier: string): string | undefined {
  if (specifier.startsWith("node:")) return undefined;
  if (specifier.startsWith(".")) {
    if (!specifier.endsWith(".js")) return "names a module Node cannot load itself (only .js is handed over as it is)";
    return existsSync(resolve(dirname(file), specifier)) ? undefined : "names a file that does not exist";
  }
  const name = specifier.startsWith("@") ? specifier.split("/").slice(0, 2).join("/") : specifier.split("/")[0]!;
  return dependencies.has(name) ? undefined : "names a package that is not one of this package's dependencies";
}

describe("modules Node loads itself", () => {
  const modules = jsModules(SRC);

  it("covers the tool's path and the start-up path", () => {
    const names = modules.map((file) => relative(REPO_ROOT, file));
    expect(names).toEqual(expect.arrayContaining(["src/entry/main-pi.js", "src/run/runner.js", "src/tool/prepare-dispatch.js"]));
  });

  it("finds run-time imports and skips type-only ones", () => {
    const source = [
      "// @ts-check",
      '/** @import { A } from "./types.ts" */',
      '/** @type {import("./b.ts").B} */',
      'import { x } from "./x.js";',
      'export { y } from "../y.js";',
      'import "./side.js";',
      'const lazy = () => import("./lazy.ts");',
      '// import { z } from "./commented.ts";',
    ].join("\n");
    expect(runtimeSpecifiers(source)).toEqual(["./x.js", "../y.js", "./side.js", "./lazy.ts"]);
  });

  it("import nothing that Node cannot load from an installed copy, not even lazily", () => {
    const problems = modules.flatMap((file) =>
      runtimeSpecifiers(readFileSync(file, "utf8")).flatMap((specifier) => {
        const problem = nativeImportProblem(file, specifier);
        return problem ? [`${relative(REPO_ROOT, file)}: "${specifier}" ${problem}`] : [];
      }),
    );
    expect(problems).toEqual([]);
  });

  it("all load in a bare node", () => {
    // One node for all: each module imported on its own, so one failure cannot hide another.
    const script = `
      const failures = [];
      for (const url of JSON.parse(process.argv[1])) {
        try { await import(url); } catch (error) { failures.push(url + ": " + (error && error.message)); }
      }
      process.stdout.write(JSON.stringify(failures));
    `;
    const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("PI_SUBAGENT_")));
    const run = spawnSync(process.execPath, ["--input-type=module", "-e", script, JSON.stringify(modules.map((file) => pathToFileURL(file).href))], {
      cwd: REPO_ROOT,
      env,
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(run.stderr).toBe("");
    expect(JSON.parse(run.stdout)).toEqual([]);
  });
});

/**
 * Every module `entry` loads at run time (static and lazy imports alike, or static ones only), as paths relative to
 * the repository, and the packages they import.
 */
function loadedFrom(entry: string, staticOnly = false): string[] {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const specifier of runtimeSpecifiers(readFileSync(file, "utf8"), staticOnly)) {
      if (specifier.startsWith(".")) visit(resolve(dirname(file), specifier));
      else if (!specifier.startsWith("node:")) seen.add(`package:${specifier}`);
    }
  };
  visit(entry);
  return [...seen].map((file) => (file.startsWith("package:") ? file : relative(REPO_ROOT, file))).sort();
}

describe("a subagent at the depth limit", () => {
  it("loads, besides the entry's own imports, only the depth variables and the tool's texts (pi loads an installed package in every child)", () => {
    expect(loadedFrom(join(SRC, "tool/depth-gate-tool.js"))).toEqual([
      "src/shared/depth.js",
      "src/tasks/task-id.js",
      "src/tasks/uuid-v7.js",
      "src/tool/depth-gate-tool.js",
      "src/tool/texts.js",
    ]);
  });
});

describe("the TUI's runtime", () => {
  it("does not load the YAML library or the config editor's body with it: /subagent-config imports them when it first runs", () => {
    const loaded = loadedFrom(join(SRC, "runtime.ts"), true);
    expect(loaded).toContain("src/commands/subagent-config/register.ts");
    expect(loaded).not.toContain("package:yaml");
    expect(loaded).not.toContain("src/commands/subagent-config/run.ts");
    expect(loadedFrom(join(SRC, "commands/subagent-config/run.ts"), true)).toContain("package:yaml");
  });

  it("registers the task commands without their bodies (pickers, viewers), which each imports when it first runs", () => {
    const loaded = loadedFrom(join(SRC, "runtime.ts"), true);
    expect(loaded).toContain("src/commands/register-commands.ts");
    const bodies = [
      "src/commands/cancel-commands.ts",
      "src/commands/message-command.ts",
      "src/commands/result-command.ts",
      "src/commands/watch-command.ts",
      "src/commands/worktrees-command.ts",
      "src/ui/task-picker.ts",
      "src/ui/result-viewer.ts",
      "src/ui/watch-view.ts",
      "src/ui/usage-view.ts",
    ];
    expect(loaded.filter((file) => bodies.includes(file))).toEqual([]);
    // Each body is reached through a lazy import of the module that registers it.
    const lazily = loadedFrom(join(SRC, "runtime.ts"));
    for (const body of bodies) expect(lazily).toContain(body);
  });

  it("draws a resumed session with the renderers alone: the draw part loads neither the widget nor the commands nor the runner", () => {
    expect(loadedFrom(join(SRC, "ui/draw-part.ts"))).toEqual([
      "package:@mariozechner/pi-coding-agent",
      "package:@mariozechner/pi-tui",
      "src/delivery/result-type.js",
      "src/shared/depth.js",
      "src/shared/format.js",
      "src/shared/terminal-text.js",
      "src/tasks/task-id.js",
      "src/tasks/uuid-v7.js",
      "src/tool/texts.js",
      "src/ui/draw-part.ts",
      "src/ui/expand-hint.ts",
      "src/ui/result-card.ts",
      "src/ui/short-id.js",
      "src/ui/tool-row.ts",
    ]);
  });
});
