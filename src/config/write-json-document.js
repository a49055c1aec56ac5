// @ts-check
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
  /**
   * @readonly
   * @type {string}
   */
  raw;

  /** @param {string} raw */
  constructor(raw) {
    this.raw = raw;
  }
}

/** @typedef {Map<string, JsonValue>} JsonObject */
/**
 * `JsonValue[]`. A typedef of its own only because a JSDoc typedef cannot name itself inside an array type
 * directly ("circularly references itself", microsoft/TypeScript#46369); through this alias it can.
 * @typedef {JsonValue[]} JsonArray
 */
/** @typedef {null | boolean | string | JsonNumber | JsonArray | JsonObject} JsonValue */

/**
 * `eol` (when `ok`): the file's line break style, reused when it is written back.
 * @typedef {{
 *   ok: true,
 *   root: JsonValue,
 *   eol: "\n" | "\r\n",
 * } | { ok: false, reason: string }} ParsedJsonDocument
 */

/**
 * @param {JsonValue | undefined} value
 * @returns {value is JsonObject}
 */
export function isJsonObject(value) {
  return value instanceof Map;
}

/**
 * Parses a document. A UTF-8 BOM is ignored. An empty (or whitespace-only) file is an empty object: it has no
 * content that a write could lose.
 * @param {string} text
 * @returns {ParsedJsonDocument}
 */
export function parseJsonDocument(text) {
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
  /**
   * @private
   * @readonly
   * @type {string}
   */
  text;

  /** @private */
  at = 0;

  /** @param {string} text */
  constructor(text) {
    this.text = text;
  }

  /** @returns {JsonValue} */
  document() {
    return this.value();
  }

  /**
   * @private
   * @returns {void}
   */
  skipSpace() {
    while (this.at < this.text.length && " \t\r\n".includes(this.text[this.at] ?? "")) this.at++;
  }

  /**
   * @private
   * @returns {JsonValue}
   */
  value() {
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

  /**
   * @private
   * @template {JsonValue} T
   * @param {string} word
   * @param {T} result
   * @returns {T}
   */
  literal(word, result) {
    this.at += word.length;
    return result;
  }

  /**
   * @private
   * @returns {JsonNumber}
   */
  number() {
    const match = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(this.text.slice(this.at));
    const raw = match?.[0] ?? "";
    this.at += raw.length;
    return new JsonNumber(raw);
  }

  /**
   * @private
   * @returns {string}
   */
  string() {
    const start = this.at;
    this.at++; // opening quote
    while (this.text[this.at] !== '"') {
      if (this.text[this.at] === "\\") this.at++;
      this.at++;
    }
    this.at++; // closing quote
    return /** @type {string} */ (JSON.parse(this.text.slice(start, this.at)));
  }

  /**
   * @private
   * @returns {JsonObject}
   */
  object() {
    /** @type {JsonObject} */
    const result = new Map();
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

  /**
   * @private
   * @returns {JsonValue[]}
   */
  array() {
    /** @type {JsonValue[]} */
    const result = [];
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

/**
 * @param {JsonValue} value
 * @param {string} indent
 * @param {string} eol
 * @returns {string}
 */
function stringifyValue(value, indent, eol) {
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

/**
 * Two-space pretty print with a final line break, using the given line break style.
 * @param {JsonValue} root
 * @param {"\n" | "\r\n"} [eol]
 * @returns {string}
 */
export function stringifyJsonDocument(root, eol = "\n") {
  return `${stringifyValue(root, "", eol)}${eol}`;
}
