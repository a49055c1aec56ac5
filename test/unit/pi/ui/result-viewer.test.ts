import { describe, expect, it } from "vitest";
import { visibleWidth } from "@mariozechner/pi-tui";
import { RESULT_VIEWER_KEYS, ResultViewer, ScrollWindow } from "../../../../src/pi/ui/views.ts";
import { ID_A, KEY, plainMarkdownTheme, plainTheme, record } from "../commands/fakes.ts";

/** 50 numbered paragraphs: each renders as one line and a blank one. */
const LONG = Array.from({ length: 50 }, (_, i) => `Line ${i + 1}`).join("\n\n");

function viewer(output = LONG, rows = 20) {
  let closed = 0;
  let renders = 0;
  const component = new ResultViewer({
    record: record(ID_A, { output }),
    theme: plainTheme,
    markdownTheme: plainMarkdownTheme,
    rows: () => rows,
    onClose: () => void closed++,
    requestRender: () => void renders++,
  });
  const screen = () => component.render(100).map((line) => line.trimEnd());
  const body = () =>
    screen()
      .slice(4, -2)
      .filter((line) => line !== "");
  return { component, screen, body, closed: () => closed, renders: () => renders };
}

describe("the result viewer", () => {
  it("fills the screen: title with the id, status line, task, the output, and the key line", () => {
    const { screen } = viewer("# Done\n\nThree **files** changed.", 12);
    const lines = screen();
    expect(lines).toHaveLength(12);
    expect(lines[0]).toBe(` Subagent result · ${ID_A}`);
    expect(lines[1]).toBe(" coder · succeeded · 02:34 · 5 turns/↑12.5k/↓3.2k/$0.0042 · fake/fake-model");
    expect(lines[2]).toBe(" Task: Refactor the auth middleware.");
    // Rendered as Markdown: the heading marker and the bold markers are gone.
    expect(lines.slice(4, 7)).toEqual([" Done", "", " Three files changed."]);
    expect(lines[11]).toBe(` 1-3 of 3 · ${RESULT_VIEWER_KEYS}`);
  });

  it("opens at the end of a long output", () => {
    const { body, screen } = viewer();
    expect(body().at(-1)).toBe(" Line 50");
    expect(body()).not.toContain(" Line 1");
    expect(screen().at(-1)).toMatch(/^ 86-99 of 99 · /);
  });

  it("scrolls with k/j and the arrows, pages with PgUp/PgDn, and jumps with g/G", () => {
    const { component, body, screen, renders } = viewer();
    expect(screen().at(-1)).toMatch(/^ 86-99 of 99 /);
    component.handleInput("k");
    component.handleInput(KEY.up);
    expect(screen().at(-1)).toMatch(/^ 84-97 of 99 /);
    component.handleInput("j");
    expect(screen().at(-1)).toMatch(/^ 85-98 of 99 /);
    component.handleInput(KEY.pageUp);
    expect(screen().at(-1)).toMatch(/^ 72-85 of 99 /);
    component.handleInput("g");
    expect(body()[0]).toBe(" Line 1");
    component.handleInput(KEY.pageDown);
    expect(screen().at(-1)).toMatch(/^ 14-27 of 99 /);
    component.handleInput("G");
    expect(body().at(-1)).toBe(" Line 50");
    component.handleInput(KEY.home);
    expect(body()[0]).toBe(" Line 1");
    component.handleInput(KEY.end);
    expect(body().at(-1)).toBe(" Line 50");
    expect(renders()).toBe(9);
    component.handleInput("x");
    expect(renders()).toBe(9);
  });

  it("closes on q, Esc or Enter, once", () => {
    for (const key of ["q", KEY.escape, KEY.enter]) {
      const { component, closed } = viewer();
      component.handleInput(key);
      component.handleInput(key);
      expect(closed()).toBe(1);
    }
  });

  it("keeps every line within the width, even a long task and status", () => {
    const { component } = viewer("x".repeat(500), 10);
    for (const line of component.render(30)) expect(visibleWidth(line)).toBeLessThanOrEqual(30);
  });
});

describe("the scroll window", () => {
  it("starts at the end and stays there while the text grows, until scrolled up", () => {
    const scroll = new ScrollWindow(true);
    expect(scroll.fit(100, 10)).toEqual({ start: 90, end: 100 });
    expect(scroll.fit(120, 10)).toEqual({ start: 110, end: 120 });
    scroll.scrollBy(-5);
    expect(scroll.fit(130, 10)).toEqual({ start: 105, end: 115 });
    scroll.bottom();
    expect(scroll.fit(130, 10)).toEqual({ start: 120, end: 130 });
  });

  it("never scrolls past either end, and handles text shorter than the window", () => {
    const scroll = new ScrollWindow(true);
    expect(scroll.fit(3, 10)).toEqual({ start: 0, end: 3 });
    scroll.scrollBy(-50);
    expect(scroll.fit(3, 10)).toEqual({ start: 0, end: 3 });
    scroll.fit(30, 10);
    scroll.page(1);
    scroll.page(1);
    scroll.page(1);
    expect(scroll.fit(30, 10)).toEqual({ start: 20, end: 30 });
  });
});
