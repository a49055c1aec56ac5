/**
 * `npm run bench -- load`: how long pi's loader takes to load each of the package's lazy seams, and how many of the
 * package's modules each one brings. Each round is a fresh node process (the pi's own node) that makes its jiti the
 * way pi makes the one it loads extensions with (the jiti of the pi package under test, `moduleCache: false`, pi's
 * packages aliased, or handed in as virtual modules by pi 1.x's bundled runtime), loads pi's own packages first (pi
 * has them loaded before any extension), then times one seam. The seams:
 * - start: `extension.ts` and its factory run against a stub of pi's API, as a main pi runs it at its start
 *   (the static graph plus `src/start/main-pi.ts`);
 * - tool part: `src/pi/runtime-tool.ts`, what the first tool call of print or JSON mode loads (a first dispatch
 *   imports nothing else, unless a login is due for a refresh);
 * - TUI runtime: `src/pi/runtime.ts`, the whole runtime;
 * - draw part: `src/pi/ui/draw-part.ts`, what the TUI waits for to draw a resumed session.
 * The three parts are timed after the start path has loaded, so each is the marginal cost of its first use. One
 * unmeasured round first fills jiti's file cache, as any start after the first finds it.
 *
 * `BENCH_PIS` (default `0.73,1`) picks the pis, `BENCH_LOAD_ROUNDS` (default 5) the rounds, and `--tree <dir>`
 * measures another checkout of the package with this same code (the seams it lacks show `-`).
 */
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { promisify } from "node:util";
import { REPO_ROOT } from "../test/harness/pi-env.ts";
import { parsePiLine, piUnderTest, type PiUnderTest } from "../test/harness/pi-under-test.ts";
import { median } from "./startup.ts";

const run = promisify(execFile);

interface Seam {
  name: string;
  /** The module timed, relative to the tree; undefined for the start path itself. */
  module?: string;
}

const SEAMS: readonly Seam[] = [
  { name: "start (extension.ts + src/start/main-pi.ts)" },
  { name: "tool part, first print-mode tool call", module: "src/pi/runtime-tool.ts" },
  { name: "TUI runtime", module: "src/pi/runtime.ts" },
  { name: "draw part", module: "src/pi/ui/draw-part.ts" },
];

/** How the probe makes pi's jiti: the module that exports `createJiti`, and the options besides `moduleCache`. */
interface LoaderRecipe {
  createJitiFrom: string;
  /** pi 1.x's bundled runtime: the chunk exporting `VIRTUAL_MODULES`, handed to jiti with `tryNative: false`. */
  virtualModulesFrom?: string;
  /** pi 0.73.1: package names to files, as its loader's `getAliases()`. */
  alias?: Record<string, string>;
  /** Modules pi has loaded before any extension: imported natively before anything is timed. */
  preload: string[];
}

/** Where the package `name` leads from `fromDir` for an `import` (its `exports` "." import entry, else `main`). */
function resolveImport(name: string, fromDir: string): string {
  for (let dir = fromDir; ; dir = dirname(dir)) {
    const root = join(dir, "node_modules", name);
    if (existsSync(join(root, "package.json"))) {
      const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
        main?: string;
        exports?: Record<string, unknown>;
      };
      const dot = manifest.exports?.["."] as
        | { import?: string | { default?: string }; default?: string }
        | string
        | undefined;
      const entry =
        typeof dot === "string"
          ? dot
          : typeof dot?.import === "string"
            ? dot.import
            : (dot?.import?.default ?? dot?.default);
      return join(root, entry ?? manifest.main ?? "index.js");
    }
    if (dir === dirname(dir)) throw new Error(`${name} not found from ${fromDir}`);
  }
}

/** The loader pi `pi` builds for extensions, read from its dist (see the file header). */
function loaderRecipe(pi: PiUnderTest): LoaderRecipe {
  const dist = join(pi.packageRoot, "dist");
  if (pi.line === "1") {
    // The `pi` bin is the bundled runtime (isBundledNode): jiti-static-loader and the virtual modules, as chunks.
    const chunks = join(dist, "bundle/chunks");
    const chunk = (prefix: string) => {
      const name = readdirSync(chunks).find((file) => file.startsWith(prefix) && file.endsWith(".js"));
      if (!name) throw new Error(`no ${prefix}*.js in ${chunks}`);
      return join(chunks, name);
    };
    const virtualModulesFrom = chunk("virtual-modules-");
    return { createJitiFrom: chunk("jiti-static-loader-"), virtualModulesFrom, preload: [virtualModulesFrom] };
  }
  // pi 0.73.1's loader: `createJiti` from "jiti/static", aliases to pi's own files (getAliases in its loader.js).
  const loaderDir = join(dist, "core/extensions");
  const jitiRoot = dirname(createRequire(join(loaderDir, "loader.js")).resolve("jiti/package.json"));
  const staticEntry = (
    JSON.parse(readFileSync(join(jitiRoot, "package.json"), "utf8")) as { exports: Record<string, { import: string }> }
  ).exports["./static"]!.import;
  const requireFromLoader = createRequire(join(loaderDir, "loader.js"));
  const typebox = requireFromLoader.resolve("typebox");
  const alias: Record<string, string> = {
    "@mariozechner/pi-coding-agent": join(dist, "index.js"),
    "@mariozechner/pi-agent-core": resolveImport("@mariozechner/pi-agent-core", loaderDir),
    "@mariozechner/pi-tui": resolveImport("@mariozechner/pi-tui", loaderDir),
    "@mariozechner/pi-ai": resolveImport("@mariozechner/pi-ai", loaderDir),
    typebox,
    "typebox/compile": requireFromLoader.resolve("typebox/compile"),
    "typebox/value": requireFromLoader.resolve("typebox/value"),
  };
  return { createJitiFrom: join(jitiRoot, staticEntry), alias, preload: Object.values(alias) };
}

/**
 * The probe, run by `node --input-type=module -e` (plain JavaScript, so no TypeScript loader of ours sits under
 * jiti's). It prints one JSON line: the seam's milliseconds and the package modules read while it loaded.
 */
const PROBE = String.raw`
import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import { pathToFileURL } from "node:url";
const { recipe, tree, module } = JSON.parse(process.argv[1]);
for (const file of recipe.preload) await import(pathToFileURL(file).href);
const { createJiti } = await import(pathToFileURL(recipe.createJitiFrom).href);
const options = recipe.virtualModulesFrom
  ? { virtualModules: (await import(pathToFileURL(recipe.virtualModulesFrom).href)).VIRTUAL_MODULES, tryNative: false }
  : { alias: recipe.alias };
const jiti = createJiti(recipe.createJitiFrom, { moduleCache: false, ...options });
// Every read of a .ts file of the tree is a module jiti loads (from its cache or by transforming it).
const read = new Set();
const readFileSync = fs.readFileSync;
fs.readFileSync = function (path, ...rest) {
  const file = String(path);
  if (file.startsWith(tree + "/") && file.endsWith(".ts") && !file.includes("/node_modules/")) read.add(file);
  return readFileSync.call(this, path, ...rest);
};
syncBuiltinESMExports();
// A stub of pi's API: every property is a function that returns the stub, so registrations go nowhere.
const stub = new Proxy(function () {}, { get: (_t, key) => (key === "then" ? undefined : stub), apply: () => stub });
const startPath = async () => {
  const factory = await jiti.import(tree + "/extension.ts", { default: true });
  await factory(stub);
};
let started = performance.now();
if (module) {
  await startPath();
  read.clear();
  started = performance.now();
  await jiti.import(tree + "/" + module);
} else {
  await startPath();
}
const ms = performance.now() - started;
process.stdout.write(JSON.stringify({ ms, modules: read.size }) + "\n");
process.exit(0);
`;

interface SeamFigures {
  ms: number[];
  modules: number;
}

async function probe(
  pi: PiUnderTest,
  recipe: LoaderRecipe,
  tree: string,
  seam: Seam,
  agentDir: string,
): Promise<{ ms: number; modules: number }> {
  const { stdout } = await run(
    pi.node,
    ["--input-type=module", "-e", PROBE, JSON.stringify({ recipe, tree, module: seam.module })],
    {
      cwd: tree,
      // No PI_* of the developer's: the stub runs the factory as a main pi (depth 0) would, on an empty agent dir.
      env: {
        PATH: process.env.PATH ?? "",
        HOME: process.env.HOME ?? "",
        TMPDIR: process.env.TMPDIR ?? tmpdir(),
        PI_CODING_AGENT_DIR: agentDir,
      },
      timeout: 60_000,
    },
  );
  const line = stdout.trim().split("\n").pop() ?? "";
  return JSON.parse(line) as { ms: number; modules: number };
}

async function measurePi(pi: PiUnderTest, tree: string, rounds: number): Promise<Map<Seam, SeamFigures | undefined>> {
  const recipe = loaderRecipe(pi);
  const figures = new Map<Seam, SeamFigures | undefined>();
  const agentDir = mkdtempSync(join(tmpdir(), "pi-subagent-bench-load-"));
  try {
    await measureSeams(pi, recipe, tree, rounds, agentDir, figures);
  } finally {
    rmSync(agentDir, { recursive: true, force: true });
  }
  return figures;
}

async function measureSeams(
  pi: PiUnderTest,
  recipe: LoaderRecipe,
  tree: string,
  rounds: number,
  agentDir: string,
  figures: Map<Seam, SeamFigures | undefined>,
): Promise<void> {
  for (const seam of SEAMS) {
    if (seam.module && !existsSync(join(tree, seam.module))) {
      figures.set(seam, undefined);
      continue;
    }
    await probe(pi, recipe, tree, seam, agentDir); // fills jiti's file cache; not counted
    const ms: number[] = [];
    let modules = 0;
    for (let round = 0; round < rounds; round++) {
      const result = await probe(pi, recipe, tree, seam, agentDir);
      ms.push(result.ms);
      modules = result.modules;
    }
    figures.set(seam, { ms, modules });
  }
}

function formatTable(pis: PiUnderTest[], all: Array<Map<Seam, SeamFigures | undefined>>): string {
  const width = Math.max(...SEAMS.map((seam) => seam.name.length));
  const header = `| ${"seam".padEnd(width)} | ${pis.map((pi) => `${pi.label} median ms | modules`).join(" | ")} |`;
  const rule = header.replace(/[^|]/g, "-");
  const rows = SEAMS.map((seam) => {
    const cells = all.map((figures, index) => {
      const found = figures.get(seam);
      const msWidth = `${pis[index]!.label} median ms`.length;
      return found
        ? `${median(found.ms).toFixed(1).padStart(msWidth)} | ${String(found.modules).padStart(7)}`
        : `${"-".padStart(msWidth)} | ${"-".padStart(7)}`;
    });
    return `| ${seam.name.padEnd(width)} | ${cells.join(" | ")} |`;
  });
  return [header, rule, ...rows].join("\n");
}

/** `--tree <dir>` from the command line, else this checkout. */
function treeFromArgs(argv: readonly string[]): string {
  const at = argv.indexOf("--tree");
  if (at === -1) return REPO_ROOT;
  const dir = argv[at + 1];
  if (!dir || !existsSync(join(dir, "extension.ts"))) throw new Error(`--tree ${dir ?? ""}: no extension.ts there`);
  return resolve(dir);
}

/** The `load` section of `npm run bench` (only when named). */
export async function runLoadSection(argv: readonly string[] = process.argv.slice(2)): Promise<{ ok: boolean }> {
  const tree = treeFromArgs(argv);
  const rounds = Math.max(3, Number(process.env.BENCH_LOAD_ROUNDS ?? 5) || 5);
  const pis = (process.env.BENCH_PIS ?? "0.73,1").split(",").map((value) => piUnderTest(parsePiLine(value.trim())));
  console.log(
    `Load time of each seam under pi's loader (jiti, moduleCache false), fresh node per round, median of ${rounds}, in ${tree === REPO_ROOT ? "this checkout" : tree}`,
  );
  const all: Array<Map<Seam, SeamFigures | undefined>> = [];
  for (const pi of pis) all.push(await measurePi(pi, tree, rounds));
  console.log("");
  console.log(formatTable(pis, all));
  console.log(
    "\nmodules: the package's .ts files jiti loaded for the seam (after the start path, for the three parts)",
  );
  return { ok: true };
}
