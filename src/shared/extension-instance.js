// @ts-check
/**
 * Which load of the extension is current. pi runs the extension's factory again on /reload (pi 1.x also on /new,
 * /resume and /fork), and the TypeScript it loads through its loader starts afresh each time; but Node keeps the
 * package's JavaScript modules (ADVANCED.md, "Modules Node loads itself") for the life of the process. So state
 * that must end with a load of the extension, such as the `this process` layer of overrides (gone on /reload),
 * compares this number with the one it was made under instead of relying on its module being evaluated again.
 */

let current = 0;

/**
 * Called by the factory of each load of the extension (src/entry/main-pi.js).
 * @returns {void}
 */
export function beginExtensionLoad() {
  current += 1;
}

/**
 * The current load: a number that changes at every load of the extension.
 * @returns {number}
 */
export function currentExtensionLoad() {
  return current;
}
