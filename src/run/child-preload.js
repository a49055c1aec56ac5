// @ts-check
/**
 * Loaded by node ahead of a child pi (`node --import <this file> <pi> …`, see src/run/command-line.js), for a
 * child that does not load this package: one at the depth limit, whose parent had the package from `-e`. Such
 * a child has no use for the `subagent` tool, and skipping the package spares it pi's TypeScript loader, the
 * largest part of an extension's start-up cost; but it must still end with its parent, which this does with
 * two small plain modules. See src/run/parent-watchdog.js.
 */
import { watchParentFromChild } from "./parent-watchdog.js";

watchParentFromChild();
