import { keyText } from "@mariozechner/pi-coding-agent";
import type { Styler } from "../../shared/styler.ts";

/** pi's default for `app.tools.expand`, used when the configured keys cannot be read. */
const DEFAULT_EXPAND_KEY = "ctrl+o";

/** The key that expands tool output and cards, as the person configured it (`ctrl+o` by default). */
export function expandKey(): string {
  try {
    return keyText("app.tools.expand") || DEFAULT_EXPAND_KEY;
  } catch {
    return DEFAULT_EXPAND_KEY;
  }
}

/** `(ctrl+o to expand)`, dim. */
export function expandHint(style: Styler, key: string = expandKey()): string {
  return style.fg("dim", `(${key} to expand)`);
}
