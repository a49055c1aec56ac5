/**
 * How one frontmatter value is written on its `key: value` line. Plain (unquoted) only when that is safe:
 * the value passes a few conservative rules and the candidate line, parsed back with the `yaml` package under
 * YAML 1.2 (what our reader uses) and YAML 1.1 (what older tools use), yields exactly the same string.
 * Otherwise it is double-quoted with escapes. Pure.
 *
 * Always quoted, whatever the parser says: empty values, leading or trailing whitespace, any `:` `#` `"` `'`
 * `\` or backtick, a first character that is a YAML indicator or a digit, anything outside printable ASCII
 * (CJK included, and every control character), and words a YAML 1.1 reader takes for booleans or null (yes,
 * no, on, off, y, n, true, false, null, ~ in any case).
 */
import { parse } from "yaml";

// eslint-disable-next-line no-control-regex
const OUTSIDE_PRINTABLE_ASCII = /[^\x20-\x7e]/;
const ALWAYS_QUOTED_CHARACTERS = /[:#"'\\`]/;
const INDICATOR_OR_DIGIT_FIRST = /^[-?:,[\]{}#&*!|>'"%@`0-9.+~=]/;
const LOOKALIKE_WORDS = /^(?:y|n|yes|no|on|off|true|false|null|~)$/i;

const PROBE_KEY = "k";

function parsesBackAs(line: string, value: string, version: "1.1" | "1.2"): boolean {
  try {
    const data: unknown = parse(line, { version, logLevel: "error", uniqueKeys: true });
    return data !== null && typeof data === "object" && (data as Record<string, unknown>)[PROBE_KEY] === value;
  } catch {
    return false;
  }
}

/** Whether `value` may be written unquoted after `key: `. */
export function isPlainSafe(value: string): boolean {
  if (value === "" || value !== value.trim()) return false;
  if (OUTSIDE_PRINTABLE_ASCII.test(value) || ALWAYS_QUOTED_CHARACTERS.test(value)) return false;
  if (INDICATOR_OR_DIGIT_FIRST.test(value) || LOOKALIKE_WORDS.test(value)) return false;
  const line = `${PROBE_KEY}: ${value}`;
  return parsesBackAs(line, value, "1.2") && parsesBackAs(line, value, "1.1");
}

/** A YAML double-quoted scalar: `\` and `"` escaped, and every character a reader could mistake escaped too. */
export function doubleQuoted(value: string): string {
  let out = '"';
  for (const char of value) {
    const code = char.codePointAt(0) ?? 0;
    if (char === '"') out += '\\"';
    else if (char === "\\") out += "\\\\";
    else if (char === "\n") out += "\\n";
    else if (char === "\t") out += "\\t";
    else if (char === "\r") out += "\\r";
    // C0, DEL, C1, the Unicode line and paragraph separators, the BOM, and lone surrogates.
    else if (code < 0x20 || (code >= 0x7f && code <= 0x9f) || code === 0x2028 || code === 0x2029 || code === 0xfeff || (code >= 0xd800 && code <= 0xdfff)) {
      out += `\\u${code.toString(16).padStart(4, "0")}`;
    } else out += char;
  }
  return `${out}"`;
}

/** The text to put after `key: ` for this value. */
export function formatYamlScalar(value: string): string {
  if (isPlainSafe(value)) return value;
  const quoted = doubleQuoted(value);
  // Cannot fail for the escapes above; checked anyway so a wrong line is never written.
  if (!parsesBackAs(`${PROBE_KEY}: ${quoted}`, value, "1.2")) {
    throw new Error(`cannot write ${JSON.stringify(value)} as a single-line YAML value`);
  }
  return quoted;
}
