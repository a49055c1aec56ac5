/**
 * The write side's own view of a JSON file: parsed into an order-preserving tree, so that rewriting a file
 * keeps every key where it was (plain JS objects would move integer-like keys such as "42" to the front, and
 * would turn a `"__proto__"` key into a prototype change) and keeps every number exactly as written (a
 * 20-digit id would otherwise lose precision). Pure: text in, text out.
 *
 * Validity is decided by JSON.parse (same errors as every other reader); the ordered tree is then built by a
 * small scanner that may trust its input. Output is pretty-printed with two-space indentation and a final
 * line break, exactly like `JSON.stringify(value, null, 2)` for ordinary documents.
 */

/** A number kept as its source text. */
export class JsonNumber {
  readonly raw: string;

  constructor(raw: string) {
    this.raw = raw;
  }
}

export type JsonObject = Map<string, JsonValue>;
/**
 * `JsonValue[]`, named so the recursive `JsonValue` reads plainly.
 */
export type JsonArray = JsonValue[];
export type JsonValue = null | boolean | string | JsonNumber | JsonArray | JsonObject;

/** `eol` (when `ok`): the file's line break style, reused when it is written back. */
export type ParsedJsonDocument = {
  ok: true,
  root: JsonValue,
  eol: "\n" | "\r\n",
} | { ok: false, reason: string };

export function isJsonObject(value: JsonValue | undefined): value is JsonObject {
  return value instanceof Map;
}

/**
 * Parses a document. A UTF-8 BOM is ignored. An empty (or whitespace-only) file is an empty object: it has no
 * content that a write could lose.
 */
export function parseJsonDocument(text: string): ParsedJsonDocument {
  const body = text.replace(/^\uFEFF/, "");
  const eol = body.includes("\r\n") ? "\r\n" : "\n";
  if (body.trim() === "") return { ok: true, root: new Map(), eol };
  try {
    JSON.parse(body);
  } catch (error) {
    return { ok: false, reason: error instanceof Error ? error.message : String(error) };
  }
  return { ok: true, root: new OrderedScanner(body).document(), eol };
}

/** Builds the ordered tree from text JSON.parse has accepted. */
class OrderedScanner {
  private readonly text: string;

  private at = 0;

  constructor(text: string) {
    this.text = text;
  }

  document(): JsonValue {
    return this.value();
  }

  private skipSpace(): void {
    while (this.at < this.text.length && " \t\r\n".includes(this.text[this.at] ?? "")) this.at++;
  }

  private value(): JsonValue {
    this.skipSpace();
    const ch = this.text[this.at];
    if (ch === "{") return this.object();
    if (ch === "[") return this.array();
    if (ch === '"') return this.string();
    if (this.text.startsWith("true", this.at)) return this.literal("true", true);
    if (this.text.startsWith("false", this.at)) return this.literal("false", false);
    if (this.text.startsWith("null", this.at)) return this.literal("null", null);
    return this.number();
  }

  private literal<T extends JsonValue>(word: string, result: T): T {
    this.at += word.length;
    return result;
  }

  private number(): JsonNumber {
    const match = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(this.text.slice(this.at));
    const raw = match?.[0] ?? "";
    this.at += raw.length;
    return new JsonNumber(raw);
  }

  private string(): string {
    const start = this.at;
    this.at++; // opening quote
    while (this.text[this.at] !== '"') {
      if (this.text[this.at] === "\\") this.at++;
      this.at++;
    }
    this.at++; // closing quote
    return (JSON.parse(this.text.slice(start, this.at)) as string);
  }

  private object(): JsonObject {
    const result: JsonObject = new Map();
    this.at++; // {
    this.skipSpace();
    if (this.text[this.at] === "}") {
      this.at++;
      return result;
    }
    for (;;) {
      this.skipSpace();
      const key = this.string();
      this.skipSpace();
      this.at++; // :
      // A repeated key keeps its first position and its last value, as JSON.parse does.
      result.set(key, this.value());
      this.skipSpace();
      if (this.text[this.at++] === "}") return result;
    }
  }

  private array(): JsonValue[] {
    const result: JsonValue[] = [];
    this.at++; // [
    this.skipSpace();
    if (this.text[this.at] === "]") {
      this.at++;
      return result;
    }
    for (;;) {
      result.push(this.value());
      this.skipSpace();
      if (this.text[this.at++] === "]") return result;
    }
  }
}

function stringifyValue(value: JsonValue, indent: string, eol: string): string {
  if (value === null) return "null";
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "string") return JSON.stringify(value);
  if (value instanceof JsonNumber) return value.raw;
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]";
    const items = value.map((item) => `${inner}${stringifyValue(item, inner, eol)}`);
    return `[${eol}${items.join(`,${eol}`)}${eol}${indent}]`;
  }
  if (value.size === 0) return "{}";
  const members = [...value].map(([key, item]) => `${inner}${JSON.stringify(key)}: ${stringifyValue(item, inner, eol)}`);
  return `{${eol}${members.join(`,${eol}`)}${eol}${indent}}`;
}

/** Two-space pretty print with a final line break, using the given line break style. */
export function stringifyJsonDocument(root: JsonValue, eol: "\n" | "\r\n" = "\n"): string {
  return `${stringifyValue(root, "", eol)}${eol}`;
}
