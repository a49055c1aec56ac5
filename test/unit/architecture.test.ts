/**
 * The module graphs that decide what pi loads when: all source is TypeScript, loaded by pi's loader, and each lazy
 * seam keeps what it defers out of the static imports in front of it.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../harness/pi-env.ts";
import { SANDBOXED_CHILD_MODULES } from "../../src/core/sandbox/child-modules.ts";

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

/** Every TypeScript module under src/, relative to the repository. */
const MODULES = tsModules(SRC).map((file) => relative(REPO_ROOT, file));

function tsModules(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return tsModules(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

/** The layer of a module: its first folder under src/. */
const layerOf = (module: string) => module.split("/")[1]!;

/** What each layer may import at run time: from the layers named here (its own included) and the packages matched. */
const MAY_IMPORT: Record<string, { layers: string[]; packages: RegExp }> = {
  // The pure core: no pi, no file system, no processes; only its own modules and the YAML parser.
  core: { layers: ["core"], packages: /^(node:(path|module|util|crypto)|yaml)$/ },
  // Adapters to the file system, processes, git and the clock: no pi.
  io: { layers: ["core", "io"], packages: /^(node:.*|yaml|uuid|tree-kill)$/ },
  // Adapters to pi (tool, commands, UI, hooks): loaded on first use.
  pi: { layers: ["core", "io", "pi"], packages: /^(node:.*|@mariozechner\/pi-(coding-agent|tui)|typebox)$/ },
  // What pi loads at its start: registrations and the lazy layer, which import pi/ only lazily.
  start: { layers: ["core", "io", "start"], packages: /^(node:.*|@mariozechner\/pi-coding-agent)$/ },
};

describe("the source", () => {
  it("is TypeScript only, in four layers: core, io, pi and start", () => {
    expect(jsModules(SRC).map((file) => relative(REPO_ROOT, file))).toEqual([]);
    expect([...new Set(MODULES.map(layerOf))].sort()).toEqual(["core", "io", "pi", "start"]);
  });

  it("imports, at run time, only what its layer may (the pure core neither pi nor I/O; nothing but the entry and start/ loads pi/ lazily)", () => {
    const problems = MODULES.flatMap((module) => {
      const rule = MAY_IMPORT[layerOf(module)]!;
      const file = join(REPO_ROOT, module);
      const staticSpecifiers = new Set(runtimeSpecifiers(readFileSync(file, "utf8"), true));
      return runtimeSpecifiers(readFileSync(file, "utf8")).flatMap((specifier) => {
        if (!specifier.startsWith(".")) return rule.packages.test(specifier) ? [] : [`${module}: package "${specifier}"`];
        const target = relative(REPO_ROOT, resolve(dirname(file), specifier));
        const targetLayer = layerOf(target);
        if (rule.layers.includes(targetLayer)) return [];
        // start/ may reach pi/ by a lazy import only: that is the seam between pi's start and first use.
        if (layerOf(module) === "start" && targetLayer === "pi" && !staticSpecifiers.has(specifier)) return [];
        return [`${module}: ${target}`];
      });
    });
    expect(problems).toEqual([]);
  });

  it("finds run-time imports and skips type-only ones", () => {
    const source = [
      'import type { A } from "./types.ts";',
      'import { x } from "./x.ts";',
      'export { y } from "../y.ts";',
      'import "./side.ts";',
      'const lazy = () => import("./lazy.ts");',
      '// import { z } from "./commented.ts";',
    ].join("\n");
    expect(runtimeSpecifiers(source)).toEqual(["./x.ts", "../y.ts", "./side.ts", "./lazy.ts"]);
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
    expect(loadedFrom(join(SRC, "start/depth-gate-tool.ts"))).toEqual([
      "src/core/shared/depth.ts",
      "src/core/tasks/task-id.ts",
      "src/core/tool/texts.ts",
      "src/start/depth-gate-tool.ts",
    ]);
  });
});

describe("a sandboxed subagent", () => {
  it("loads exactly the modules whose jiti entries it is handed (src/core/sandbox/child-modules.ts)", () => {
    // Its entry's path: the parent's watch, the depth check, the agent dir, the schema, then the refusing tool.
    const entries = ["extension.ts", "src/io/run/parent-watchdog.ts", "src/io/shared/own-package.ts", "src/io/shared/paths.ts", "src/pi/tool/schema.ts", "src/start/depth-gate-tool.ts"];
    const loaded = new Set(entries.flatMap((entry) => loadedFrom(join(REPO_ROOT, entry), true)).filter((file) => !file.startsWith("package:")));
    expect([...loaded].sort()).toEqual([...SANDBOXED_CHILD_MODULES].sort());
    expect(runtimeSpecifiers(readFileSync(join(REPO_ROOT, "extension.ts"), "utf8")).filter((specifier) => specifier.startsWith("."))).toEqual([
      "./src/core/shared/depth.ts",
      "./src/io/run/parent-watchdog.ts",
      "./src/io/shared/own-package.ts",
      "./src/io/shared/paths.ts",
      "./src/pi/tool/schema.ts",
      "./src/start/depth-gate-tool.ts",
      "./src/io/shared/loaded-copy.ts",
      "./src/io/shared/paths.ts",
      "./src/io/agents/warnings.ts",
      "./src/start/main-pi.ts",
    ]);
  });
});

describe("a pi that may dispatch, at its start", () => {
  it("loads no config parser, agent-file parser or YAML library: the session's start is kept raw and read at the first dispatch", () => {
    const loaded = [join(REPO_ROOT, "extension.ts"), join(SRC, "start/main-pi.ts")].flatMap((entry) => loadedFrom(entry, true));
    expect(loaded).toContain("src/io/authority/start-snapshot.ts");
    expect(loaded.filter((file) => file.startsWith("src/io/config/read-") || file.startsWith("src/core/agents/") || file === "package:yaml")).toEqual([]);
  });
});

describe("the TUI's runtime", () => {
  it("does not load the YAML library or the config editor's body with it: /subagent-config imports them when it first runs", () => {
    const loaded = loadedFrom(join(SRC, "pi/runtime.ts"), true);
    expect(loaded).toContain("src/pi/commands/subagent-config/register.ts");
    expect(loaded).not.toContain("package:yaml");
    expect(loaded).not.toContain("src/pi/commands/subagent-config/run.ts");
    expect(loadedFrom(join(SRC, "pi/commands/subagent-config/run.ts"), true)).toContain("package:yaml");
  });

  it("does not load /subagent-agents' body with it: the command imports it when it first runs", () => {
    const loaded = loadedFrom(join(SRC, "pi/runtime.ts"), true);
    expect(loaded).toContain("src/pi/commands/agents-register.ts");
    expect(loaded).not.toContain("src/pi/commands/agents-command.ts");
    expect(loaded).not.toContain("src/pi/ui/agents-view.ts");
  });

  it("serves a tool call without the TUI from the tool's part alone: no widget, no commands, no pi-tui", () => {
    const loaded = loadedFrom(join(SRC, "pi/runtime-tool.ts"));
    expect(loaded).toContain("src/io/run/runner.ts");
    expect(loaded.filter((file) => file.startsWith("src/pi/ui/") || file.startsWith("src/pi/commands/") || file === "package:@mariozechner/pi-tui")).toEqual([]);
  });

  it("draws a resumed session with the renderers alone: the draw part loads neither the widget nor the commands nor the runner", () => {
    expect(loadedFrom(join(SRC, "pi/ui/draw-part.ts"))).toEqual([
      "package:@mariozechner/pi-coding-agent",
      "package:@mariozechner/pi-tui",
      "src/core/delivery/result-type.ts",
      "src/core/shared/depth.ts",
      "src/core/shared/format.ts",
      "src/core/shared/terminal-text.ts",
      "src/core/tasks/task-id.ts",
      "src/core/tool/texts.ts",
      "src/core/ui/short-id.ts",
      "src/pi/ui/draw-part.ts",
      "src/pi/ui/expand-hint.ts",
      "src/pi/ui/result-card.ts",
      "src/pi/ui/tool-row.ts",
      "src/pi/ui/workflow-card.ts",
    ]);
  });
});
