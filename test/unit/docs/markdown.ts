/**
 * How the doc tests read Markdown, as GitHub renders it: fenced code blocks are examples (an envelope whose first
 * line starts with `## `, a watch view reading `src/auth.ts`), never headings, links or citations; a heading's
 * anchor is the one GitHub gives it.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT } from "../../harness/pi-env.ts";

export interface Line {
  number: number;
  text: string;
}

export interface Heading {
  level: number;
  text: string;
  anchor: string;
}

export const readDoc = (file: string) => readFileSync(join(REPO_ROOT, file), "utf8");

/** The topic pages under docs/, as paths from the repository's root, in name order. */
export function topicPages(): string[] {
  return readdirSync(join(REPO_ROOT, "docs"), { withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".md"))
    .map((entry) => `docs/${entry.name}`)
    .sort();
}

/** The lines outside fenced code blocks (``` or ~~~, indented up to 3 spaces, as in CommonMark), numbered from 1. */
export function proseLines(markdown: string): Line[] {
  const lines: Line[] = [];
  let fence: string | undefined;
  markdown.split("\n").forEach((text, index) => {
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(text)?.[1];
    if (fence !== undefined) {
      // Closed by a run of the same character, at least as long, with nothing after it.
      if (marker && marker[0] === fence[0] && marker.length >= fence.length && text.trim() === marker)
        fence = undefined;
    } else if (marker) {
      fence = marker;
    } else {
      lines.push({ number: index + 1, text });
    }
  });
  return lines;
}

/** GitHub's anchor for a heading (as github-slugger makes it): lower case, punctuation dropped, each space a hyphen. */
export function slug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, "")
    .replace(/ /g, "-");
}

/** Every heading outside code blocks, with its anchor; a repeated anchor gets `-1`, `-2`, … as on GitHub. */
export function headings(markdown: string): Heading[] {
  const seen = new Map<string, number>();
  return proseLines(markdown).flatMap(({ text }) => {
    const match = /^ {0,3}(#{1,6}) +(.*?)(?: +#+)? *$/.exec(text);
    if (!match) return [];
    const base = slug(match[2]!);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    return [{ level: match[1]!.length, text: match[2]!, anchor: count === 0 ? base : `${base}-${count}` }];
  });
}

/**
 * The inline links `[text](target)` outside code blocks and code spans, with the line each is on. A link's text
 * may hold code (`` [The `subagent` tool](#the-subagent-tool) ``); a target in angle brackets or with a title is
 * taken up to its first space.
 */
export function links(markdown: string): Array<{ target: string; line: number }> {
  return proseLines(markdown).flatMap(({ number, text }) => {
    // Code spans go first, so `[x](y)` written as code is no link; the brackets of a link's text survive.
    const prose = text.replace(/(`+)(?!`).*?(?<!`)\1(?!`)/g, "");
    return [...prose.matchAll(/\]\(<?([^)\s>]+)>?(?:\s+"[^"]*")?\)/g)].map((match) => ({
      target: match[1]!,
      line: number,
    }));
  });
}
