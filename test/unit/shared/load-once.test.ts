import { describe, expect, it } from "vitest";
import { loadOnce } from "../../../src/shared/pi-process.ts";

describe("loadOnce", () => {
  it("runs the import once for concurrent and later uses, and again after a failure", async () => {
    let calls = 0;
    let fail = true;
    const load = loadOnce(async () => {
      calls += 1;
      if (fail) throw new Error("no module");
      return { value: calls };
    });
    await expect(Promise.all([load(), load()])).rejects.toThrow("no module");
    expect(calls).toBe(1);
    fail = false;
    const [a, b] = await Promise.all([load(), load()]);
    expect(a).toBe(b);
    expect(await load()).toBe(a);
    expect(calls).toBe(2);
  });
});
