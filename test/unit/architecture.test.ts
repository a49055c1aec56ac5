/**
 * The shape of src/: one folder per concern, the concerns in one declared order, pi's edge at the top, and the
 * module graphs that decide what pi loads when. Imports are read with TypeScript's own parser.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../harness/pi-env.ts";
import { SANDBOXED_CHILD_MODULES } from "../../src/sandbox/hand-in.ts";

const SRC = join(REPO_ROOT, "src");

/**
 * The concerns, lowest first: a module may import (at run time or for a type) only modules of its own concern and
 * of the concerns before it. `pi/` (what imports pi) and `start/` (what pi loads at its start) are the edge above
 * them all.
 */
const CONCERN_ORDER = [
  "shared",
  "budget",
  "worktree",
  "sandbox",
  "agents",
  "config",
  "authority",
  "dialogs",
  "run",
  "warm",
  "records",
  "delivery",
  "roster",
  "tool",
  "workflows",
  "tasks",
  "commands",
  "trace",
] as const;
const EDGE = ["pi", "start"] as const;

/** Modules of pure logic: no file system, no processes (their callers hand them what they need). */
const PURE_MODULES: readonly string[] = Object.freeze([
  "src/agents/claude-agent.ts",
  "src/warm/warm-launch.ts",
  "src/agents/parse.ts",
  "src/authority/tool-ceiling.ts",
  "src/authority/trust.ts",
  "src/budget/fan-out.ts",
  "src/budget/limits.ts",
  "src/budget/loop-setting.ts",
  "src/budget/verify-setting.ts",
  "src/budget/usage.ts",
  "src/commands/agents-inventory.ts",
  "src/commands/config-editor.ts",
  "src/commands/descriptions.ts",
  "src/commands/task-commands.ts",
  "src/config/resolve.ts",
  "src/delivery/delivery-tracker.ts",
  "src/delivery/lifecycle-events.ts",
  "src/delivery/result-type.ts",
  "src/dialogs/child-dialogs.ts",
  "src/dialogs/question-board.ts",
  "src/records/record.ts",
  "src/roster/roster.ts",
  "src/run/deliverable.ts",
  "src/run/event-reducer.ts",
  "src/run/fork-history.ts",
  "src/run/outcome.ts",
  "src/run/rpc.ts",
  "src/run/stop-sequence.ts",
  "src/run/loop-guard.ts",
  "src/run/verify.ts",
  "src/sandbox/bwrap-args.ts",
  "src/sandbox/hand-in.ts",
  "src/sandbox/levels.ts",
  "src/shared/nesting.ts",
  "src/shared/text.ts",
  "src/shared/thinking.ts",
  "src/shared/tool-patterns.ts",
  "src/tasks/registry.ts",
  "src/tool/texts.ts",
  "src/trace/session-steps.ts",
  "src/trace/trace.ts",
  "src/trace/trace-spans.ts",
  "src/trace/trace-text.ts",
  "src/tool/validate.ts",
  "src/workflows/blocking-workflow.ts",
  "src/workflows/workflow-tracker.ts",
  "src/workflows/workflow.ts",
  "src/worktree/finish-decision.ts",
  "src/worktree/merge-texts.ts",
  "src/worktree/worktree.ts",
]);

/** Packages a concern may load at run time; pi's edge adds pi's own packages. Type-only imports are erased and free. */
const CONCERN_PACKAGES = /^(node:.*|yaml|uuid|tree-kill|typebox)$/;
/**
 * Packages one module alone may load: OpenTelemetry's, by the trace's export, which is imported only when an
 * OTLP endpoint is set (pinned below).
 */
const MODULE_PACKAGES: Readonly<Record<string, RegExp>> = {
  "src/trace/otlp-export.ts": /^@opentelemetry\/(api|sdk-trace|exporter-trace-otlp-http)$/,
};
const EDGE_PACKAGES: Record<(typeof EDGE)[number], RegExp> = {
  pi: /^(node:.*|yaml|uuid|tree-kill|typebox|@mariozechner\/pi-(coding-agent|tui))$/,
  start: /^(node:.*|@mariozechner\/pi-coding-agent)$/,
};

interface ModuleImport {
  specifier: string;
  /** Erased when compiled: `import type`, `export type`, an import whose every name is a type, `import("…")` in a type. */
  typeOnly: boolean;
  /** `import()` in code. */
  lazy: boolean;
}

/** Every import of a source, found by TypeScript's parser (so comments, strings and JSDoc never count). */
function importsOf(source: string, fileName = "module.ts"): ModuleImport[] {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true);
  const found: ModuleImport[] = [];
  const visit = (node: ts.Node): void => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      found.push({ specifier: node.moduleSpecifier.text, typeOnly: isTypeOnly(node), lazy: false });
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      found.push({ specifier: node.arguments[0].text, typeOnly: false, lazy: true });
    } else if (
      ts.isImportTypeNode(node) &&
      ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteral(node.argument.literal)
    ) {
      found.push({ specifier: node.argument.literal.text, typeOnly: true, lazy: false });
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

function isTypeOnly(node: ts.ImportDeclaration | ts.ExportDeclaration): boolean {
  if (ts.isExportDeclaration(node)) return node.isTypeOnly;
  const clause = node.importClause;
  if (!clause) return false;
  if (clause.isTypeOnly) return true;
  const named = clause.namedBindings;
  return (
    !clause.name &&
    named !== undefined &&
    ts.isNamedImports(named) &&
    named.elements.length > 0 &&
    named.elements.every((element) => element.isTypeOnly)
  );
}

/** Run-time specifiers of a source: static imports and re-exports, side-effect imports, and (unless `staticOnly`) `import()`. */
function runtimeSpecifiers(source: string, staticOnly = false): string[] {
  return importsOf(source)
    .filter((found) => !found.typeOnly && !(staticOnly && found.lazy))
    .map((found) => found.specifier);
}

function tsModules(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return tsModules(path);
    return [path];
  });
}

/** Every module under src/, relative to the repository. */
const MODULES = tsModules(SRC).map((file) => relative(REPO_ROOT, file));

/** The concern (or edge) of a module: its first folder under src/. */
const folderOf = (module: string) => module.split("/")[1]!;
const rank = (folder: string) => (CONCERN_ORDER as readonly string[]).indexOf(folder);
const isEdge = (folder: string) => (EDGE as readonly string[]).includes(folder);

describe("the source", () => {
  it("is TypeScript only, one folder per concern and pi's edge", () => {
    expect(MODULES.filter((module) => !module.endsWith(".ts"))).toEqual([]);
    expect([...new Set(MODULES.map(folderOf))].sort()).toEqual([...CONCERN_ORDER, ...EDGE].sort());
  });

  it("imports downward only: a concern reaches its own modules and the concerns before it, type imports included", () => {
    const problems = MODULES.flatMap((module) => {
      const folder = folderOf(module);
      const file = join(REPO_ROOT, module);
      const found = importsOf(readFileSync(file, "utf8"), file);
      const statics = new Set(found.filter((item) => !item.lazy && !item.typeOnly).map((item) => item.specifier));
      return found.flatMap(({ specifier, typeOnly, lazy }) => {
        if (!specifier.startsWith(".")) {
          const allowed = isEdge(folder) ? EDGE_PACKAGES[folder as (typeof EDGE)[number]] : CONCERN_PACKAGES;
          const own = MODULE_PACKAGES[module]?.test(specifier) ?? false;
          return typeOnly || own || allowed.test(specifier) ? [] : [`${module}: package "${specifier}"`];
        }
        const target = relative(REPO_ROOT, resolve(dirname(file), specifier));
        const targetFolder = folderOf(target);
        if (targetFolder === folder) return [];
        if (!isEdge(folder))
          return rank(targetFolder) >= 0 && rank(targetFolder) < rank(folder) ? [] : [`${module} -> ${target}`];
        if (!isEdge(targetFolder)) return [];
        // start/ reaches pi/ at run time by a lazy import only: that is the seam between pi's start and first use.
        if (typeOnly || (folder === "start" && lazy && !statics.has(specifier))) return [];
        return [`${module} -> ${target}`];
      });
    });
    expect(problems).toEqual([]);
  });

  it("keeps its pure modules free of the file system and processes", () => {
    expect(PURE_MODULES.filter((module) => !MODULES.includes(module))).toEqual([]);
    const problems = PURE_MODULES.flatMap((module) =>
      importsOf(readFileSync(join(REPO_ROOT, module), "utf8"))
        .filter(({ specifier, typeOnly }) => !typeOnly && /^node:(fs|fs\/promises|child_process)$/.test(specifier))
        .map(({ specifier }) => `${module}: ${specifier}`),
    );
    expect(problems).toEqual([]);
  });

  it("has no import circle at run time (pi's loader, without a module cache, would show a module half-made to its circle)", () => {
    const edges = new Map(
      MODULES.map((module) => {
        const file = join(REPO_ROOT, module);
        const targets = runtimeSpecifiers(readFileSync(file, "utf8"), true).filter((specifier) =>
          specifier.startsWith("."),
        );
        return [module, targets.map((specifier) => relative(REPO_ROOT, resolve(dirname(file), specifier)))];
      }),
    );
    const circles: string[] = [];
    const state = new Map<string, "open" | "done">();
    const visit = (module: string, path: string[]): void => {
      if (state.get(module) === "done") return;
      if (state.get(module) === "open") {
        circles.push([...path.slice(path.indexOf(module)), module].join(" -> "));
        return;
      }
      state.set(module, "open");
      for (const target of edges.get(module) ?? []) visit(target, [...path, module]);
      state.set(module, "done");
    };
    for (const module of MODULES) visit(module, []);
    expect(circles).toEqual([]);
  });

  it("finds run-time imports and tells type-only ones apart, by the parser", () => {
    const source = [
      'import type { A } from "./types.ts";',
      'import { type B } from "./b-types.ts";',
      'import { x, type C } from "./x.ts";',
      'export { y } from "../y.ts";',
      'export type { Z } from "./z.ts";',
      'import "./side.ts";',
      'const lazy = () => import("./lazy.ts");',
      'type Lazy = import("./lazy-type.ts").T;',
      '// import { z } from "./commented.ts";',
      "const text = 'import { w } from \"./in-a-string.ts\"';",
    ].join("\n");
    expect(runtimeSpecifiers(source)).toEqual(["./x.ts", "../y.ts", "./side.ts", "./lazy.ts"]);
    expect(runtimeSpecifiers(source, true)).toEqual(["./x.ts", "../y.ts", "./side.ts"]);
    expect(
      importsOf(source)
        .filter((found) => found.typeOnly)
        .map((found) => found.specifier),
    ).toEqual(["./types.ts", "./b-types.ts", "./z.ts", "./lazy-type.ts"]);
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
  it("loads only the entry, the nesting variables and the watch on its parent: the entry returns before anything else (pi loads an installed package in every child)", () => {
    const entry = readFileSync(join(REPO_ROOT, "extension.ts"), "utf8");
    const atLimit = entry.indexOf('if (surface === "none") return;');
    expect(atLimit).toBeGreaterThan(0);
    const before = runtimeSpecifiers(entry.slice(0, atLimit));
    // The child's own MCP is imported only in a child granted MCP tools (pi 1.x).
    expect(before).toEqual(["./src/shared/nesting.ts", "./src/run/parent-watchdog.ts", "./src/pi/child-mcp.ts"]);
    expect(entry.slice(0, atLimit)).toContain('if (childMcp) await (await import("./src/pi/child-mcp.ts"))');
    const loaded = new Set(
      before
        .filter((specifier) => specifier !== "./src/pi/child-mcp.ts")
        .flatMap((specifier) => loadedFrom(resolve(REPO_ROOT, specifier)))
        .filter((file) => !file.startsWith("package:")),
    );
    expect([...loaded].sort()).toEqual([
      "src/run/parent-watchdog.ts",
      "src/shared/nesting.ts",
      "src/shared/proc-identity.ts",
      "src/shared/this-process.ts",
    ]);
  });
});

describe("a sandboxed subagent below the depth limit", () => {
  it("loads for its refusing tool only the nesting variables and the tool's texts", () => {
    expect(loadedFrom(join(SRC, "start/sandbox-gate-tool.ts"))).toEqual([
      "src/shared/nesting.ts",
      "src/start/sandbox-gate-tool.ts",
      "src/tool/texts.ts",
    ]);
  });
});

describe("a sandboxed subagent", () => {
  it("loads exactly the modules whose jiti entries it is handed (src/sandbox/hand-in.ts)", () => {
    // Its entry's path: the parent's watch, the depth check, the agent dir, the schema, then the refusing tool
    // (at the depth limit it stops after the depth check).
    const entries = [
      "extension.ts",
      "src/run/parent-watchdog.ts",
      "src/shared/this-process.ts",
      "src/tool/schema.ts",
      "src/start/sandbox-gate-tool.ts",
    ];
    const loaded = new Set(
      entries
        .flatMap((entry) => loadedFrom(join(REPO_ROOT, entry), true))
        .filter((file) => !file.startsWith("package:")),
    );
    expect([...loaded].sort()).toEqual([...SANDBOXED_CHILD_MODULES].sort());
    expect(
      runtimeSpecifiers(readFileSync(join(REPO_ROOT, "extension.ts"), "utf8")).filter((specifier) =>
        specifier.startsWith("."),
      ),
    ).toEqual([
      "./src/shared/nesting.ts",
      "./src/run/parent-watchdog.ts",
      // Only in a child granted MCP tools (pi 1.x), which compiles it itself when sandboxed: it is not handed in.
      "./src/pi/child-mcp.ts",
      "./src/shared/this-process.ts",
      "./src/tool/schema.ts",
      "./src/start/sandbox-gate-tool.ts",
      "./src/agents/warnings.ts",
      "./src/start/main-pi.ts",
    ]);
  });
});

describe("a pi that may dispatch, at its start", () => {
  it("loads no config parser, agent-file parser or YAML library: the session's start is kept raw and read at the first dispatch", () => {
    const loaded = [join(REPO_ROOT, "extension.ts"), join(SRC, "start/main-pi.ts")].flatMap((entry) =>
      loadedFrom(entry, true),
    );
    expect(loaded).toContain("src/authority/start-snapshot.ts");
    expect(
      loaded.filter((file) => ["src/config/load.ts", "src/agents/parse.ts", "package:yaml"].includes(file)),
    ).toEqual([]);
  });
});

describe("the TUI's runtime", () => {
  it("does not load the YAML library or the config editor's body with it: /subagent-config imports them when it first runs", () => {
    const loaded = loadedFrom(join(SRC, "pi/runtime.ts"), true);
    expect(loaded).toContain("src/pi/commands/commands.ts");
    expect(loaded).not.toContain("package:yaml");
    expect(loaded).not.toContain("src/pi/commands/config-command.ts");
    expect(loadedFrom(join(SRC, "pi/commands/config-command.ts"), true)).toContain("package:yaml");
  });

  it("does not load /subagent-agents' body with it: the command imports it when it first runs", () => {
    const loaded = loadedFrom(join(SRC, "pi/runtime.ts"), true);
    expect(loaded).toContain("src/pi/commands/commands.ts");
    expect(loaded).not.toContain("src/pi/commands/agents-command.ts");
    expect(loaded).not.toContain("src/commands/agents-inventory.ts");
  });

  it("serves a tool call without the TUI from the tool's part alone: no widget, no commands, no pi-tui", () => {
    const loaded = loadedFrom(join(SRC, "pi/runtime-tool.ts"));
    expect(loaded).toContain("src/run/runner.ts");
    expect(
      loaded.filter(
        (file) =>
          file.startsWith("src/pi/ui/") ||
          file.startsWith("src/pi/commands/") ||
          file === "package:@mariozechner/pi-tui",
      ),
    ).toEqual([]);
  });

  it("does not load the code that spawns a `verify` command with the tool's part: a check loads it when it runs", () => {
    expect(loadedFrom(join(SRC, "pi/runtime-tool.ts"))).toContain("src/run/settle-checks.ts");
    expect(loadedFrom(join(SRC, "pi/runtime.ts"), true)).not.toContain("src/run/verify-command.ts");
  });

  it("draws a resumed session with the renderers alone: the draw part loads neither the widget nor the commands nor the runner", () => {
    expect(loadedFrom(join(SRC, "pi/ui/draw-part.ts"))).toEqual([
      "package:@mariozechner/pi-coding-agent",
      "package:@mariozechner/pi-tui",
      "src/delivery/result-type.ts",
      "src/pi/ui/cards.ts",
      "src/pi/ui/draw-part.ts",
      "src/run/deliverable.ts",
      "src/run/verify.ts",
      "src/shared/nesting.ts",
      "src/shared/text.ts",
      "src/tool/texts.ts",
    ]);
  });
});

describe("the export to an OpenTelemetry collector", () => {
  const isOpenTelemetry = (file: string) =>
    file === "src/trace/otlp-export.ts" || file.startsWith("package:@opentelemetry/");

  it("loads none of OpenTelemetry, nor the trace's reader, with the tool or the TUI's runtime", () => {
    for (const entry of ["pi/runtime-tool.ts", "pi/runtime.ts"]) {
      const loaded = loadedFrom(join(SRC, entry), true);
      expect(loaded).toContain("src/trace/otlp-seam.ts");
      expect(loaded.filter(isOpenTelemetry)).toEqual([]);
      expect(loaded).not.toContain("src/trace/trace-store.ts");
    }
    expect(loadedFrom(join(SRC, "trace/otlp-seam.ts")).filter(isOpenTelemetry)).toEqual([
      "package:@opentelemetry/api",
      "package:@opentelemetry/exporter-trace-otlp-http",
      "src/trace/otlp-export.ts",
    ]);
  });

  it("imports it only once an endpoint is set, from the seam, after the result was handed back", () => {
    const seam = readFileSync(join(SRC, "trace/otlp-seam.ts"), "utf8");
    expect(runtimeSpecifiers(seam).filter((specifier) => specifier.includes("otlp-export"))).toEqual([
      "./otlp-export.ts",
    ]);
    const plan = seam.indexOf("if (!plan) return;");
    const later = seam.indexOf("await new Promise((resolve) => setImmediate(resolve));");
    const load = seam.indexOf("await loadExport()");
    expect(plan).toBeGreaterThan(0);
    expect(plan < later && later < load).toBe(true);
    expect(seam).toContain('const loadExport = loadOnce(() => import("./otlp-export.ts"));');
    // Nothing else imports it.
    const importers = MODULES.filter((module) =>
      runtimeSpecifiers(readFileSync(join(REPO_ROOT, module), "utf8")).some((specifier) =>
        specifier.endsWith("otlp-export.ts"),
      ),
    );
    expect(importers).toEqual(["src/trace/otlp-seam.ts"]);
  });
});
