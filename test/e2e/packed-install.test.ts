/**
 * The package as `pi install npm:…` gets it: packed with `npm pack`, installed with npm into a `node_modules`
 * folder (which brings its own dependencies and never a pi), and loaded from there by the real pi. Under
 * `node_modules` Node strips no TypeScript, so this also proves that the plain-JavaScript modules of pi's start-up
 * path and the TypeScript behind them load as they do from a checkout. The installed copy also has the docs:
 * every link of README.md, ADVANCED.md and docs/*.md into what the package ships resolves there.
 *
 * @module-tag contract
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, normalize, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isWorkerRequest, useE2eSuite } from "../harness/e2e-suite.ts";
import { fakeDirective } from "../harness/fake-model.ts";
import { REPO_ROOT, runPi, runProcess } from "../harness/pi-env.ts";
import { waitForNoProcesses } from "../harness/processes.ts";
import { links } from "../unit/docs/markdown.ts";

const suite = useE2eSuite();
let scratch = "";
let installedPackage = "";

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), "pi-subagent-packed-"));
  // npm with the developer's own HOME and cache: the dependencies come from the cache `npm install` filled.
  const npm = (args: string[], cwd: string) => runProcess("npm", args, { env: process.env, cwd, timeoutMs: 120_000 });
  const packed = await npm(["pack", "--silent", "--pack-destination", scratch], REPO_ROOT);
  expect(packed.code, packed.stderr).toBe(0);
  const tarball = readdirSync(scratch).find((name) => name.endsWith(".tgz"));
  expect(tarball, "npm pack wrote a tarball").toBeDefined();
  const project = join(scratch, "project");
  mkdirSync(project);
  writeFileSync(
    join(project, "package.json"),
    JSON.stringify({ name: "packed-install-check", version: "1.0.0", private: true }),
  );
  const installed = await npm(
    ["install", "--prefer-offline", "--no-audit", "--no-fund", "--silent", join(scratch, tarball!)],
    project,
  );
  expect(installed.code, installed.stderr).toBe(0);
  installedPackage = join(project, "node_modules", "pi-subagent-dispatch");
}, 240_000);

afterAll(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

describe("the package packed and installed into node_modules", () => {
  it("brings no pi with it, and delegates from node_modules after pi install", async () => {
    const modules = join(installedPackage, "..");
    // Its own dependencies (and theirs) only: pi and TypeBox are the host's, never installed beside the package.
    const installedNames = readdirSync(modules)
      .filter((name) => !name.startsWith("."))
      .flatMap((name) =>
        name.startsWith("@") ? readdirSync(join(modules, name)).map((sub) => `${name}/${sub}`) : [name],
      );
    const own = Object.keys(
      (JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as { dependencies: Record<string, string> })
        .dependencies,
    );
    expect(installedNames).toEqual(expect.arrayContaining(["pi-subagent-dispatch", ...own]));
    const hostPackages = installedNames.filter(
      (name) => /^@(mariozechner|earendil-works)\//.test(name) || name === "typebox" || name === "@sinclair/typebox",
    );
    expect(hostPackages).toEqual([]);
    expect(existsSync(join(installedPackage, "src", "start", "main-pi.ts"))).toBe(true);

    const env = suite.newEnv();
    const install = await runPi(["install", installedPackage], { env: env.env, cwd: env.workDir, timeoutMs: 120_000 });
    expect(install.code, install.stderr).toBe(0);
    const settings = JSON.parse(readFileSync(join(env.agentDir, "settings.json"), "utf8")) as { packages?: string[] };
    expect(settings.packages?.map((entry) => resolve(env.agentDir, entry))).toEqual([installedPackage]);

    const task = `Answer from node_modules. ${fakeDirective({ text: "PACKED-CHILD-ANSWER" })}`;
    const prompt = `Delegate. ${fakeDirective([{ toolCalls: [{ name: "subagent", arguments: { agent: "worker", task } }] }])}`;
    const result = await runPi(["-p", prompt], { env: env.env, cwd: env.workDir, timeoutMs: 90_000 });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("PACKED-CHILD-ANSWER");
    expect(result.stdout).toMatch(/\[subagent session: [0-9a-f-]{36}\]/);
    // The main agent saw the roster the installed package built.
    const parent = suite.fake.requests.find((request) => !isWorkerRequest(request));
    expect(parent?.system).toContain("## Available Subagents");
    expect(await waitForNoProcesses(env.marker)).toEqual([]);
  });

  it("ships the docs, and every link of README.md, ADVANCED.md and docs/*.md into the package resolves there", () => {
    const shipped = (JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as { files: string[] }).files;
    expect(shipped).toContain("docs");
    const pages = readdirSync(join(REPO_ROOT, "docs")).filter((name) => name.endsWith(".md"));
    expect(
      readdirSync(join(installedPackage, "docs"))
        .filter((name) => name.endsWith(".md"))
        .sort(),
    ).toEqual(pages.sort());
    const docs = ["README.md", "ADVANCED.md", ...pages.map((page) => `docs/${page}`)];
    const missing = docs.flatMap((doc) =>
      links(readFileSync(join(installedPackage, doc), "utf8")).flatMap(({ target, line }) => {
        const path = target.split("#")[0]!;
        if (path === "" || /^[a-z][a-z0-9+.-]*:/i.test(path)) return [];
        const file = normalize(join(dirname(doc), decodeURIComponent(path)));
        // A link to what the package does not ship (test/README.md, ARCHITECTURE.md) is for the repository's readers.
        if (!shipped.includes(file.split("/")[0]!)) return [];
        return existsSync(join(installedPackage, file)) ? [] : [`${doc}:${line}: ${target}`];
      }),
    );
    expect(missing).toEqual([]);
  });
});
