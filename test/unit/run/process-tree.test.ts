import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { treeKillLibrary } from "../../../src/run/processes.ts";

// Where /proc is missing, the tree is ended by the tree-kill package, required only then (never on Linux): it must
// still be found from the module's own folder, as an installed copy of the package finds it.
describe("tree-kill, required on demand", () => {
  it("is found and ends a process", async () => {
    const treeKill = treeKillLibrary();
    expect(typeof treeKill).toBe("function");
    const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
    const exited = new Promise<NodeJS.Signals | null>((resolve) =>
      child.once("exit", (_code, signal) => resolve(signal)),
    );
    await new Promise<void>((resolve) => child.once("spawn", () => resolve()));
    treeKill(child.pid!, "SIGTERM");
    expect(await exited).toBe("SIGTERM");
  });
});
