/**
 * The YAML library, loaded on first use only and through Node's own `require`. pi compiles an extension's
 * imports itself (jiti) on every load; Node's loader is several times faster for a plain CommonJS package like
 * `yaml` (and, on pi 1.x, uses Node's compile cache). Only frontmatter the fast path (simple-frontmatter.ts)
 * cannot read gets here.
 */
import { createRequire } from "node:module";

type YamlModule = typeof import("yaml");

let loaded: YamlModule | undefined;

export function yamlLibrary(): YamlModule {
  loaded ??= createRequire(import.meta.url)("yaml") as YamlModule;
  return loaded;
}
