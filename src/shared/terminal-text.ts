/**
 * Text from a model or a file, made safe to draw: every terminal control sequence is removed, so a task, an
 * answer or a file name can never set the window title, clear the screen, move the cursor or plant a link
 * (OSC 8). Line breaks and tabs stay (callers that need one line flatten them); everything else below the
 * space character, DEL and the C1 range goes. Pure, and the one place this is done.
 */

/* eslint-disable no-control-regex */
/** ESC [ … final byte (CSI), and its one-byte C1 form. */
const CSI = /(?:\u001b\[|\u009b)[0-?]*[ -/]*[@-~]?/g;
/** ESC ] … BEL or ST (OSC), and ESC P / X / ^ / _ … ST (DCS, SOS, PM, APC); unterminated ones run to the end. */
const STRING_SEQUENCE = /(?:\u001b[\]PX^_]|[\u0090\u0098\u009d\u009e\u009f])[\s\S]*?(?:\u0007|\u001b\\|\u009c|$)/g;
/** Any other escape: ESC and the byte after it (ESC 7, ESC c, ESC ( B…). */
const OTHER_ESCAPE = /\u001b[\s\S]?/g;
/** What is left: C0 controls except tab and line feed, DEL, C1 controls. A CR could overwrite a line, so it goes. */
const CONTROL_CHARACTER = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
/* eslint-enable no-control-regex */

export function stripTerminalControls(text: string): string {
  // Fast path: most text has nothing to strip.
  // eslint-disable-next-line no-control-regex
  if (!/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/.test(text)) return text;
  return text
    .replace(/\r\n/g, "\n")
    .replace(STRING_SEQUENCE, "")
    .replace(CSI, "")
    .replace(OTHER_ESCAPE, "")
    .replace(CONTROL_CHARACTER, "");
}
