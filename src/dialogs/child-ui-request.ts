/**
 * A child pi's extension UI requests (RPC `extension_ui_request` lines) and the answers it expects back (pure).
 * The shapes were read in both pis' `modes/rpc/rpc-mode.js` (0.73.1 and 1.6.0 alike): a dialog (`select`,
 * `confirm`, `input`, `editor`) waits for an `extension_ui_response` with its id carrying `value` (select, input,
 * editor), `confirmed` (confirm) or `cancelled: true` (any); `notify`, `setStatus`, `setWidget`, `setTitle` and
 * `set_editor_text` expect nothing.
 */

import { stripTerminalControls } from "../shared/terminal-text.ts";

export type DialogMethod = "select" | "confirm" | "input" | "editor";

/** A question a child asks: what its dialog shows. Every text is stripped of terminal control sequences. */
export interface ChildDialog {
  id: string;
  method: DialogMethod;
  title: string;
  /** confirm: the text under the title. */
  message?: string;
  /** select: the choices, as shown. */
  options?: string[];
  /** select: the choices as the child sent them, when stripping changed one (the answer names the child's own). */
  optionValues?: string[];
  /** input: the placeholder. */
  placeholder?: string;
  /** editor: the text it starts with. */
  prefill?: string;
}

/** A child's `notify`: shown to the person as a labelled notice. */
export interface ChildNotice {
  message: string;
  level: "info" | "warning" | "error";
}

export type ChildUiRequest = { kind: "dialog"; dialog: ChildDialog }
  | { kind: "notice"; notice: ChildNotice }
  /** `setStatus`, `setWidget`, `setTitle`, `set_editor_text`: never applied to the main pi. */
  | { kind: "ignored"; method: string };

/** What goes back to a child's dialog. */
export type DialogAnswer = { cancelled: true } | { value: string } | { confirmed: boolean };

export const CANCELLED: DialogAnswer = { cancelled: true };

const DIALOG_METHODS: ReadonlySet<string> = new Set(["select", "confirm", "input", "editor"]);

/**
 * A text of the request, made inert: this is the one place a child's dialog and notice texts enter the package,
 * so no title, option, message or `editor` prefill can set the window title, clear the screen or write the
 * clipboard (OSC 52) when pi draws it. Line breaks and tabs stay.
 */
const text = (value: unknown): string | undefined => (typeof value === "string" ? stripTerminalControls(value) : undefined);

/** The request in a parsed `extension_ui_request` line, or undefined when the line is not one. */
export function parseUiRequest(line: Record<string, unknown>): ChildUiRequest | undefined {
  if (line.type !== "extension_ui_request" || typeof line.id !== "string" || typeof line.method !== "string") return undefined;
  const method = line.method;
  if (DIALOG_METHODS.has(method)) {
    const dialog: ChildDialog = { id: line.id, method: (method as DialogMethod), title: text(line.title) ?? "" };
    if (method === "confirm") dialog.message = text(line.message) ?? "";
    if (method === "select") {
      const values = Array.isArray(line.options) ? line.options.filter((option): option is string => typeof option === "string") : [];
      dialog.options = values.map(stripTerminalControls);
      if (dialog.options.some((shown, index) => shown !== values[index])) dialog.optionValues = values;
    }
    if (method === "input" && text(line.placeholder) !== undefined) dialog.placeholder = text(line.placeholder);
    if (method === "editor" && text(line.prefill) !== undefined) dialog.prefill = text(line.prefill);
    return { kind: "dialog", dialog };
  }
  if (method === "notify") {
    const level = line.notifyType === "warning" || line.notifyType === "error" ? line.notifyType : "info";
    return { kind: "notice", notice: { message: text(line.message) ?? "", level } };
  }
  return { kind: "ignored", method };
}

/** The answer a dialog gets from what the person chose (undefined: Esc, which a plain pi also reads as cancelled). */
export function answerOf(dialog: Pick<ChildDialog, "method" | "options" | "optionValues">, chosen: string | boolean | undefined): DialogAnswer {
  if (chosen === undefined) return CANCELLED;
  if (dialog.method === "confirm") return { confirmed: chosen === true };
  if (typeof chosen !== "string") return CANCELLED;
  const index = dialog.optionValues ? (dialog.options ?? []).indexOf(chosen) : -1;
  return { value: index >= 0 ? (dialog.optionValues?.[index] ?? chosen) : chosen };
}
