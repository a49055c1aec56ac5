/**
 * The names in src/sandbox/hand-in.ts checked against the jiti each pi really runs: pi 0.73.1's
 * (the `jiti` package) and the copy bundled in pi 1.x. Should a jiti update rename its entries, this fails (and
 * sandboxed children would start cold again).
 */
import { mkdtempSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { jitiCacheNames } from "../../../src/sandbox/hand-in.ts";
import { REPO_ROOT } from "../../harness/pi-env.ts";

type CreateJiti = (
  id: string,
  options: Record<string, unknown>,
) => { import(id: string, options?: { default?: boolean }): Promise<unknown> };

const PI1_CHUNKS = join(REPO_ROOT, "node_modules/@earendil-works/pi-coding-agent/dist/bundle/chunks");

async function jitiOf(which: "pi 0.73.1" | "pi 1.x"): Promise<CreateJiti> {
  if (which === "pi 0.73.1") return ((await import("jiti")) as { createJiti: CreateJiti }).createJiti;
  const loader = readdirSync(PI1_CHUNKS).find((name) => /^jiti-static-loader-.*\.js$/.test(name));
  if (!loader) throw new Error(`no jiti static loader (what the bundle runs) in ${PI1_CHUNKS}`);
  return ((await import(pathToFileURL(join(PI1_CHUNKS, loader)).href)) as { createJiti: CreateJiti }).createJiti;
}

let root = "";
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe("jitiCacheNames", () => {
  for (const which of ["pi 0.73.1", "pi 1.x"] as const) {
    it(`names the entries ${which}'s jiti writes for modules it imports, as pi's loader does`, async () => {
      root = mkdtempSync(join(tmpdir(), "jiti-names-"));
      const cache = join(root, "cache");
      mkdirSync(join(root, "src", "core"), { recursive: true });
      const entry = join(root, "extension.ts");
      const inner = join(root, "src", "core", "inner.ts");
      writeFileSync(inner, "export const answer: number = 42;\n");
      writeFileSync(
        entry,
        'import { answer } from "./src/core/inner.ts";\nexport default function factory(): number { return answer; }\n',
      );
      const createJiti = await jitiOf(which);
      const factory = (await createJiti(import.meta.url, { moduleCache: false, fsCache: cache }).import(entry, {
        default: true,
      })) as () => number;
      expect(factory()).toBe(42);
      const written = readdirSync(cache).sort();
      expect(written).toHaveLength(2);
      expect(written).toEqual(
        [jitiCacheNames(entry), jitiCacheNames(inner)]
          .map((names) => written.find((name) => names.includes(name)))
          .sort(),
      );
    });
  }

  it("follows jiti's rule for the folder and the stem", () => {
    const [plain, interop] = jitiCacheNames("/opt/pkg/src/run/runner.ts");
    expect(plain).toMatch(/^run-runner\.[0-9a-f]{8}\.mjs$/);
    expect(interop).toMatch(/^run-runner\.i\.[0-9a-f]{8}\.mjs$/);
    expect(jitiCacheNames("/opt/pkg/.hidden")[0]).toMatch(/^pkg-\.hidden\./);
  });
});
