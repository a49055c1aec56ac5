import type { Theme } from "@mariozechner/pi-coding-agent";

/**
 * The part of pi's theme the UI formatters use: a colour by role and bold. pi passes its `Theme`; unit tests
 * pass one that returns the text unchanged, so the formatters are checked on plain text.
 */
export type Styler = Pick<Theme, "fg" | "bold">;
