import { describe, expect, it } from "vitest";
import { admitAll } from "../../../../src/pi/tool/workflow-dispatch.ts";
import type { AdmittedPart } from "../../../../src/pi/tool/register-tool.ts";
import type { SubagentParams } from "../../../../src/pi/tool/schema.ts";

describe("admitAll: a refused part starts none, and the parts before it give back their fan-out places", () => {
  it("withdraws every part admitted before the refusal", async () => {
    const withdrawn: string[] = [];
    const admit = async (params: SubagentParams): Promise<AdmittedPart> => {
      if (params.agent === "refused") throw new Error("Fan-out cap reached");
      return { agent: params.agent ?? "", task: params.task ?? "", prepare: () => { throw new Error("not started"); }, withdraw: () => withdrawn.push(params.agent ?? "") };
    };
    const parts = [{ agent: "a", task: "1" }, { agent: "b", task: "2" }, { agent: "refused", task: "3" }, { agent: "c", task: "4" }];
    await expect(admitAll("batch", parts, admit)).rejects.toThrow(/Part 3/);
    expect(withdrawn).toEqual(["a", "b"]);
  });
});
