/**
 * The `yaml` package, which parses every agent file's frontmatter, loaded on first use and through Node's own
 * `require`: pi's loader (jiti) would compile the package again at every load, Node's loader is several times faster
 * for a plain CommonJS package (and, on pi 1.x, uses Node's compile cache). The roster cache spares parsing files
 * that did not change, so most starts never load it.
 */
import { createRequire } from "node:module";

export type YamlModule = typeof import("yaml");

let loaded: YamlModule | undefined;

export function yamlLibrary(): YamlModule {
  loaded ??= (createRequire(import.meta.url)("yaml") as YamlModule);
  return loaded;
}
