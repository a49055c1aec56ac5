/**
 * A single-line input that opens with a value ready to edit, for pi's TUI. pi's own `ctx.ui.input` has no
 * prefill (its placeholder is not shown in the TUI), so this builds the same kind of dialog from pi-tui's
 * `Input` inside `ctx.ui.custom`: Enter submits the text as it stands (unchanged if untouched), Esc cancels.
 *
 * Colours come from the theme pi passes to the factory, never from pi's module-level theme, which an
 * extension loaded through jiti may see uninitialised.
 */
import type { ExtensionUIContext, Theme } from "@mariozechner/pi-coding-agent";
import { Container, type Focusable, Input, Spacer, Text } from "@mariozechner/pi-tui";

/** The theme calls this dialog uses (a subset of pi's Theme, so tests can pass a plain object). */
export type InputTheme = Pick<Theme, "fg">;

/** A full-width rule in the theme's border colour. */
class Rule {
  constructor(private readonly theme: InputTheme) {}
  invalidate(): void {}
  render(width: number): string[] {
    return [this.theme.fg("border", "\u2500".repeat(Math.max(1, width)))];
  }
}

const BRACKETED_PASTE_START = "\x1b[200~";
const BRACKETED_PASTE_END = "\x1b[201~";

/**
 * Puts `value` into the input with the cursor after it. A bracketed paste is the public way to insert text
 * at the cursor; it turns tabs into spaces, so a value with a tab (or a line break) is set directly instead,
 * keeping it byte for byte (the cursor then starts at the beginning).
 */
function prefill(input: Input, value: string): void {
  if (/[\t\r\n]/.test(value)) input.setValue(value);
  else if (value !== "") input.handleInput(`${BRACKETED_PASTE_START}${value}${BRACKETED_PASTE_END}`);
}

export class PrefilledInputComponent extends Container implements Focusable {
  private readonly input = new Input();
  private isFocused = false;

  constructor(title: string, value: string, theme: InputTheme, onSubmit: (value: string) => void, onCancel: () => void) {
    super();
    this.input.onSubmit = onSubmit;
    this.input.onEscape = onCancel;
    prefill(this.input, value);
    this.addChild(new Rule(theme));
    this.addChild(new Spacer(1));
    this.addChild(new Text(theme.fg("accent", title), 1, 0));
    this.addChild(new Spacer(1));
    this.addChild(this.input);
    this.addChild(new Spacer(1));
    this.addChild(new Text(`${theme.fg("dim", "enter")}${theme.fg("muted", " submit")}  ${theme.fg("dim", "esc")}${theme.fg("muted", " cancel")}`, 1, 0));
    this.addChild(new Spacer(1));
    this.addChild(new Rule(theme));
  }

  /** Focus goes to the inner input, so the hardware cursor (and an IME) sits where the text is typed. */
  get focused(): boolean {
    return this.isFocused;
  }

  set focused(value: boolean) {
    this.isFocused = value;
    this.input.focused = value;
  }

  getValue(): string {
    return this.input.getValue();
  }

  handleInput(data: string): void {
    this.input.handleInput(data);
  }
}

/** Shows the dialog; resolves the submitted text, or undefined on Esc (or where custom UI is unavailable). */
export function showPrefilledInput(ui: Pick<ExtensionUIContext, "custom">, title: string, value: string): Promise<string | undefined> {
  return ui.custom<string | undefined>(
    (_tui, theme, _keybindings, done) =>
      new PrefilledInputComponent(
        title,
        value,
        theme,
        (submitted) => done(submitted),
        () => done(undefined),
      ),
  );
}
