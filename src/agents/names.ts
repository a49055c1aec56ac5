/**
 * Which agent names are safe. A name becomes a path fragment, an object key (in subagent-isolation.json and
 * in memory) and a command argument, so anything that could walk out of a folder, reach an object's
 * prototype or be misread on a command line is refused.
 */

/** Keys that would reach an object's prototype machinery if used as property names. */
export const RESERVED_OBJECT_KEYS: readonly string[] = ["__proto__", "constructor", "prototype"];

export function isReservedObjectKey(name: string): boolean {
  return RESERVED_OBJECT_KEYS.includes(name);
}

// C0 controls, DEL and C1 controls.
// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/;

/** Why `name` cannot be an agent name, or undefined when it can. */
export function agentNameProblem(name: string): string | undefined {
  if (name.length === 0) return "the name is empty";
  if (CONTROL_CHARACTER.test(name)) return "the name contains a control character";
  if (name.includes("/") || name.includes("\\")) return "the name contains a path separator (/ or \\)";
  if (name.includes("..")) return 'the name contains ".."';
  if (name === ".") return 'the name is "."';
  if (/\s/.test(name)) return "the name contains whitespace";
  if (isReservedObjectKey(name)) return `the name "${name}" is reserved`;
  if (name.startsWith("$")) return 'the name starts with "$", which subagent-isolation.json reserves for its own keys';
  return undefined;
}
