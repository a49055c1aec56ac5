import { StringDecoder } from "node:string_decoder";
import { describe, expect, it } from "vitest";
import { DEFAULT_MAX_LINE_CHARS, LineSplitter, type SplitLine } from "../../../src/run/rpc.ts";

function collect(maxLineChars?: number): { lines: SplitLine[]; splitter: LineSplitter } {
  const lines: SplitLine[] = [];
  const splitter = new LineSplitter((line) => lines.push(line), maxLineChars);
  return { lines, splitter };
}

describe("LineSplitter", () => {
  it("splits one chunk with several lines", () => {
    const { lines, splitter } = collect();
    splitter.push('{"a":1}\n{"b":2}\n');
    expect(lines).toEqual([
      { text: '{"a":1}', length: 7 },
      { text: '{"b":2}', length: 7 },
    ]);
  });

  it("joins a line cut across chunks at any point", () => {
    const input = '{"type":"agent_start"}\n{"type":"turn_start"}\n{"type":"message_update","delta":"héllo ✓"}\n';
    const expected = input.split("\n").slice(0, -1);
    for (let size = 1; size <= input.length; size++) {
      const { lines, splitter } = collect();
      for (let at = 0; at < input.length; at += size) splitter.push(input.slice(at, at + size));
      splitter.end();
      expect(lines.map((line) => line.text)).toEqual(expected);
    }
  });

  it("keeps a multi-byte character whole when the caller decodes before pushing", () => {
    // The runner sets the stream's encoding to utf8, so a chunk boundary inside a character is resolved
    // by Node's decoder before the splitter sees the string.
    const bytes = Buffer.from('{"delta":"€ and 🙂"}\n', "utf8");
    const decoder = new StringDecoder("utf8");
    const { lines, splitter } = collect();
    for (let at = 0; at < bytes.length; at++) splitter.push(decoder.write(bytes.subarray(at, at + 1)));
    expect(lines.map((line) => line.text)).toEqual(['{"delta":"€ and 🙂"}']);
  });

  it("emits a final line without a newline only on end()", () => {
    const { lines, splitter } = collect();
    splitter.push('{"a":1}\n{"partial"');
    expect(lines).toHaveLength(1);
    splitter.end();
    expect(lines.map((line) => line.text)).toEqual(['{"a":1}', '{"partial"']);
  });

  it("emits nothing on end() when the stream ended with a newline", () => {
    const { lines, splitter } = collect();
    splitter.push("x\n");
    splitter.end();
    expect(lines).toHaveLength(1);
  });

  it("passes empty lines through (the reducer ignores them)", () => {
    const { lines, splitter } = collect();
    splitter.push("\n\na\n");
    expect(lines.map((line) => line.text)).toEqual(["", "", "a"]);
  });

  it("leaves a CR of a CRLF line ending in the text (JSON.parse treats it as whitespace)", () => {
    const { lines, splitter } = collect();
    splitter.push('{"a":1}\r\n{"b":2}\r\n');
    expect(lines.map((line) => line.text)).toEqual(['{"a":1}\r', '{"b":2}\r']);
    expect(JSON.parse(lines[0]!.text!)).toEqual({ a: 1 });
  });

  it("keeps only the head and tail of an oversized line, with its full length", () => {
    const max = 300_000;
    const { lines, splitter } = collect(max);
    const head = "H".repeat(200_000);
    const middle = "m".repeat(2_000_000);
    const tail = "T".repeat(200_000);
    const line = `${head}${middle}${tail}`;
    for (let at = 0; at < line.length; at += 65_536) splitter.push(line.slice(at, at + 65_536));
    splitter.push('\n{"next":true}\n');
    expect(lines).toHaveLength(2);
    const big = lines[0]!;
    expect(big.text).toBeUndefined();
    expect(big.length).toBe(line.length);
    expect(big.head!.startsWith(head)).toBe(true);
    expect(big.head!.length).toBeLessThan(line.length / 4);
    expect(big.tail!.endsWith(tail)).toBe(true);
    expect(big.tail!.length).toBeLessThan(line.length / 4);
    // The next line is whole again.
    expect(lines[1]).toEqual({ text: '{"next":true}', length: 13 });
  });

  it("treats a line of exactly the limit as normal", () => {
    const { lines, splitter } = collect(1000);
    splitter.push(`${"x".repeat(1000)}\n`);
    expect(lines[0]).toEqual({ text: "x".repeat(1000), length: 1000 });
  });

  it("emits an oversized last line without a newline on end()", () => {
    const { lines, splitter } = collect(10);
    splitter.push("y".repeat(50));
    expect(lines).toHaveLength(0);
    splitter.end();
    expect(lines).toEqual([{ head: "y".repeat(50), tail: "y".repeat(50), length: 50 }]);
  });

  it("has a default limit far above any normal event", () => {
    expect(DEFAULT_MAX_LINE_CHARS).toBeGreaterThanOrEqual(1024 * 1024);
  });
});

describe("LineSplitter: bounded work (issue 28, item 8)", () => {
  it("an oversized line arriving one character at a time costs constant work per character", () => {
    const { lines, splitter } = collect(1000);
    const started = performance.now();
    for (let i = 0; i < 600_000; i++) splitter.push(i === 599_999 ? "E" : "x");
    splitter.push("\n");
    const took = performance.now() - started;
    expect(lines).toHaveLength(1);
    expect(lines[0]!.length).toBe(600_000);
    expect(lines[0]!.tail!.endsWith("xE")).toBe(true);
    expect(lines[0]!.tail!.length).toBe(256 * 1024);
    expect(took, `took ${took.toFixed(0)} ms`).toBeLessThan(3000);
  });
});
