import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { randomUUID } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { processesCarryingMarker, signalMarkedProcesses, TASK_MARKER_ENV } from "../../../src/run/parent-watchdog.ts";
import { MARKER_VAR } from "../../harness/pi-env.ts";
import { killProcessesWithMarker, waitForNoProcesses } from "../../harness/processes.ts";

const testMarker = randomUUID();
afterEach(() => killProcessesWithMarker(testMarker));

/** The command name of `pid` (`sleep`), or "" once it is gone. */
function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/comm`, "utf8").trim();
  } catch {
    return "";
  }
}

/**
 * Starts `setsid sleep` (a daemon outside our tree) with the task marker; resolves once its `sleep` runs. (Two
 * marked processes are not enough: `setsid`, a group leader here, forks and its first process exits.)
 */
async function daemonWith(taskId: string): Promise<void> {
  const child = spawn("setsid", ["sh", "-c", "sleep 60 & wait"], {
    env: { PATH: process.env.PATH, [TASK_MARKER_ENV]: taskId, [MARKER_VAR]: testMarker },
    stdio: "ignore",
    detached: true,
  });
  child.unref();
  const deadline = Date.now() + 10_000;
  while (!processesCarryingMarker(taskId).some((pid) => commandOf(pid) === "sleep") && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 50));
}

describe("task marker", () => {
  it("finds our processes carrying exactly this task's marker, in or out of our tree", async () => {
    const taskId = randomUUID();
    await daemonWith(taskId);
    expect(processesCarryingMarker(taskId).length).toBeGreaterThanOrEqual(2);
    // A prefix of the id is another task.
    expect(processesCarryingMarker(taskId.slice(0, 20))).toEqual([]);
    expect(processesCarryingMarker(randomUUID())).toEqual([]);
    expect(processesCarryingMarker("")).toEqual([]);
  });

  it("signals them all, their groups included", async () => {
    const taskId = randomUUID();
    await daemonWith(taskId);
    expect(signalMarkedProcesses(taskId, "SIGKILL").length).toBeGreaterThanOrEqual(2);
    expect(await waitForNoProcesses(testMarker, 5000)).toEqual([]);
  });
});

describe("nested task markers", () => {
  it("a process belongs to its own task and to every task it is nested in, nothing else", async () => {
    const { environCarriesTask, outerTasksForChild } = await import("../../../src/run/parent-watchdog.ts");
    const environ = ["PATH=/bin", "PI_SUBAGENT_TASK_ID=grand", "PI_SUBAGENT_OUTER_TASK_IDS=root,child", ""].join("\0");
    expect(environCarriesTask(environ, "grand")).toBe(true);
    expect(environCarriesTask(environ, "child")).toBe(true);
    expect(environCarriesTask(environ, "root")).toBe(true);
    expect(environCarriesTask(environ, "chi")).toBe(false);
    expect(environCarriesTask(environ, "other")).toBe(false);
    expect(environCarriesTask("X=PI_SUBAGENT_TASK_ID=grand\0", "grand")).toBe(false);
    expect(outerTasksForChild({})).toBeUndefined();
    expect(outerTasksForChild({ PI_SUBAGENT_TASK_ID: "child" })).toBe("child");
    expect(outerTasksForChild({ PI_SUBAGENT_TASK_ID: "child", PI_SUBAGENT_OUTER_TASK_IDS: "root" })).toBe("root,child");
  });
});

describe("ending a child's tree ends its nested tasks", () => {
  it("terminateTree of a child also ends a grandchild task that left the tree (found by its outer-task list)", async () => {
    const { terminateTree } = await import("../../../src/run/processes.ts");
    const { OUTER_TASKS_ENV } = await import("../../../src/run/parent-watchdog.ts");
    const childTask = randomUUID();
    const grandTask = randomUUID();
    const child = spawn("sh", ["-c", "sleep 60 & wait"], {
      env: { PATH: process.env.PATH, [TASK_MARKER_ENV]: childTask, [MARKER_VAR]: testMarker },
      stdio: "ignore",
      detached: true,
    });
    // The grandchild's own task id differs; it names the child's task as an outer one, and is not in its tree.
    const grandchild = spawn("setsid", ["sh", "-c", "sleep 61 & wait"], {
      env: {
        PATH: process.env.PATH,
        [TASK_MARKER_ENV]: grandTask,
        [OUTER_TASKS_ENV]: childTask,
        [MARKER_VAR]: testMarker,
      },
      stdio: "ignore",
      detached: true,
    });
    grandchild.unref();
    const deadline = Date.now() + 10_000;
    while (processesCarryingMarker(grandTask).length < 2 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    expect(processesCarryingMarker(grandTask).length).toBeGreaterThanOrEqual(2);
    expect(processesCarryingMarker(childTask)).toEqual(expect.arrayContaining(processesCarryingMarker(grandTask)));
    terminateTree(child.pid!, 200, childTask);
    expect(await waitForNoProcesses(testMarker, 10_000)).toEqual([]);
  });
});
