// @ts-check
/**
 * The YAML library, loaded on first use only and through Node's own `require`. pi compiles an extension's
 * imports itself (jiti) on every load; Node's loader is several times faster for a plain CommonJS package like
 * `yaml` (and, on pi 1.x, uses Node's compile cache). Only frontmatter the fast path (simple-frontmatter.js)
 * cannot read gets here.
 */
import { createRequire } from "node:module";

/** @typedef {typeof import("yaml")} YamlModule */

/** @type {YamlModule | undefined} */
let loaded;

/** @returns {YamlModule} */
export function yamlLibrary() {
  loaded ??= /** @type {YamlModule} */ (createRequire(import.meta.url)("yaml"));
  return loaded;
}
