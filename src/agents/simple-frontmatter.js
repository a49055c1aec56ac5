// @ts-check
/**
 * A fast path for the frontmatter most agent files have: one `key: plain text` per line. Loading the YAML
 * library costs more than the rest of a pi start-up's share of this package, and the roster is built on the
 * first turn of every session, so files in this narrow subset are read without it.
 *
 * Exactness over reach: the result, when there is one, is what the `yaml` library would return for the same
 * text; anything this reader is not certain of (quotes, block scalars, lists, flow collections, anchors, tags,
 * comments after a value, indentation, empty values, values YAML would read as numbers, booleans or null,
 * duplicate keys) makes it return undefined, and the caller uses the YAML library instead.
 */

const KEY = /^[A-Za-z_][A-Za-z0-9_-]*$/;
/** A first character that gives a plain YAML scalar a special meaning (indicators, quotes, numbers' signs). */
const SPECIAL_START = /^[-?:,[\]{}#&*!|>'"%@`+.0-9~]/;
/** Words the YAML 1.2 core schema reads as null or booleans (any case the schema knows; caseless here to be safe). */
const NON_STRING_WORD = /^(?:null|true|false|yes|no|on|off|y|n)$/i;

/**
 * @param {string} yaml
 * @returns {Record<string, string> | undefined}
 */
export function parseSimpleFrontmatter(yaml) {
  /** @type {Record<string, string>} */
  const result = {};
  for (const line of yaml.split("\n")) {
    if (line.trim() === "") continue;
    if (line.startsWith("#")) continue; // a whole-line comment
    if (/^\s/.test(line) || line.includes("\t")) return undefined;
    const colon = line.indexOf(":");
    if (colon <= 0) return undefined;
    const key = line.slice(0, colon);
    if (!KEY.test(key) || key === "__proto__" || Object.hasOwn(result, key)) return undefined;
    const rest = line.slice(colon + 1);
    if (!rest.startsWith(" ")) return undefined;
    const value = rest.trim();
    if (value === "" || SPECIAL_START.test(value) || NON_STRING_WORD.test(value)) return undefined;
    if (value.includes(": ") || value.includes(" #") || value.endsWith(":")) return undefined;
    result[key] = value;
  }
  return result;
}
