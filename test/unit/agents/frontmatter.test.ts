import { describe, expect, it } from "vitest";
import { splitFrontmatter } from "../../../src/agents/parse.ts";

describe("splitFrontmatter", () => {
  it("separates the YAML between the two --- lines from the body", () => {
    expect(splitFrontmatter("---\nname: a\ndescription: b\n---\n\nBody line 1\nBody line 2\n")).toEqual({
      ok: true,
      yaml: "name: a\ndescription: b",
      body: "Body line 1\nBody line 2",
    });
  });

  it("accepts a UTF-8 BOM and CRLF line endings, and gives the body LF line endings", () => {
    expect(splitFrontmatter("\uFEFF---\r\nname: a\r\n---\r\nOne\r\nTwo\r\n")).toEqual({
      ok: true,
      yaml: "name: a",
      body: "One\nTwo",
    });
  });

  it("accepts trailing spaces on the fence lines", () => {
    const split = splitFrontmatter("---  \nname: a\n--- \nbody");
    expect(split).toEqual({ ok: true, yaml: "name: a", body: "body" });
  });

  it("keeps a --- inside the body as body text", () => {
    const split = splitFrontmatter("---\nname: a\n---\nabove\n---\nbelow");
    expect(split.ok && split.body).toBe("above\n---\nbelow");
  });

  it("refuses a file that does not start with a fence", () => {
    expect(splitFrontmatter("# Just markdown\n---\nname: a\n---\n")).toEqual({
      ok: false,
      reason: "no frontmatter (the file must start with a --- line)",
    });
    expect(splitFrontmatter("")).toMatchObject({ ok: false });
  });

  it("refuses a frontmatter that is never closed", () => {
    expect(splitFrontmatter("---\nname: a\ndescription: b\n")).toEqual({
      ok: false,
      reason: "the frontmatter is never closed (no second --- line)",
    });
  });
});
