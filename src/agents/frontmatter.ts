/**
 * Splits an agent file into its YAML frontmatter and its Markdown body. Pure: text in, parts or a reason out.
 * A UTF-8 BOM and CRLF line endings are accepted; the body keeps its own line breaks (as LF).
 */

export type FrontmatterSplit = { ok: true; yaml: string; body: string } | { ok: false; reason: string };

const FENCE = /^---[ \t]*$/;

export function splitFrontmatter(text: string): FrontmatterSplit {
  const normalized = text.replace(/^\uFEFF/, "").replace(/\r\n/g, "\n");
  const lines = normalized.split("\n");
  if (!FENCE.test(lines[0] ?? "")) {
    return { ok: false, reason: "no frontmatter (the file must start with a --- line)" };
  }
  const close = lines.findIndex((line, index) => index > 0 && FENCE.test(line));
  if (close < 0) return { ok: false, reason: "the frontmatter is never closed (no second --- line)" };
  return {
    ok: true,
    yaml: lines.slice(1, close).join("\n"),
    body: lines.slice(close + 1).join("\n").trim(),
  };
}
