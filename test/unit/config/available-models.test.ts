import { describe, expect, it } from "vitest";
import { availableModels, parseConfigLayer } from "../../../src/config/load.ts";

const user = (value: unknown) => parseConfigLayer(JSON.stringify({ $models: value }), "user");
const project = (value: unknown) => parseConfigLayer(JSON.stringify({ $models: value }), "project");
const projectWithout = () => parseConfigLayer("{}", "project");

describe("availableModels ($models in force)", () => {
  it("a project list replaces the user list wholesale, never a union", () => {
    expect(availableModels({ user: user(["u/1", "u/2"]), project: project(["p/1"]) })).toEqual({
      models: ["p/1"],
      source: "project",
    });
  });

  it("an explicit empty project list counts, and blanks the user list", () => {
    expect(availableModels({ user: user(["u/1"]), project: project([]) })).toEqual({ models: [], source: "project" });
  });

  it("a non-array project value counts as absent: the user list applies", () => {
    expect(availableModels({ user: user(["u/1"]), project: project("p/1") })).toEqual({
      models: ["u/1"],
      source: "user",
    });
    expect(availableModels({ user: user(["u/1"]), project: project({ a: 1 }) })).toEqual({
      models: ["u/1"],
      source: "user",
    });
  });

  it("a project file without $models leaves the user list", () => {
    expect(availableModels({ user: user(["u/1"]), project: projectWithout() })).toEqual({
      models: ["u/1"],
      source: "user",
    });
  });

  it("no list anywhere is an empty list without a source", () => {
    expect(availableModels({ user: parseConfigLayer("{}", "user"), project: projectWithout() })).toEqual({
      models: [],
    });
    expect(availableModels({})).toEqual({ models: [] });
  });

  it("the lists come cleaned", () => {
    expect(availableModels({ project: project([" p/1", "p/1", 7, ""]) }).models).toEqual(["p/1"]);
  });
});
