/**
 * Fake `pi --mode rpc` children for `node -e`: what every one shares (a JSON command a line on stdin, an event a line
 * on stdout, alive until its stdin ends, as pi's RPC mode is), and the one that asks the person.
 */

/**
 * A fake RPC child's script: `body` is script text that defines `onCommand(command)`, called with each command read
 * from stdin, and may use `out(event)` to write an event. The child exits when its stdin ends, unless `body` sets
 * `keepOnEnd = true` (a pi that ignores it).
 */
export function fakeRpcChild(body: string): string {
  return String.raw`
const out = (event) => process.stdout.write(JSON.stringify(event) + "\n");
let keepOnEnd = false;
${body}
let buffer = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => {
  buffer += chunk;
  let nl;
  while ((nl = buffer.indexOf("\n")) >= 0) {
    const line = buffer.slice(0, nl);
    buffer = buffer.slice(nl + 1);
    onCommand(JSON.parse(line));
  }
});
process.stdin.on("end", () => { if (!keepOnEnd) process.exit(0); });
setInterval(() => {}, 1000);
`;
}

/**
 * A fake RPC child that asks what pi's permission-gate example asks: on its prompt it sends a notify, three
 * fire-and-forget requests the main pi must never apply (title, status, editor text), then a `select` with id q1;
 * whatever `extension_ui_response` comes back ends its turn with the text `got <id> <answer as JSON>`.
 */
export const ASKING_CHILD: string = fakeRpcChild(String.raw`
function onCommand(command) {
  if (command.type === "extension_ui_response") {
    const { type, id, ...answer } = command;
    out({ type: "message_end", message: { role: "assistant", content: [{ type: "text", text: "got " + id + " " + JSON.stringify(answer) }], stopReason: "stop", provider: "fake", model: "m", usage: { input: 1, output: 1 } } });
    out({ type: "agent_end", messages: [] });
    return;
  }
  out({ type: "response", command: command.type, success: true });
  if (command.type === "prompt") {
    out({ type: "agent_start" });
    out({ type: "extension_ui_request", id: "n1", method: "notify", message: "checking the command", notifyType: "info" });
    out({ type: "extension_ui_request", id: "t1", method: "setTitle", title: "pi - taken over" });
    out({ type: "extension_ui_request", id: "s1", method: "setStatus", statusKey: "gate", statusText: "armed" });
    out({ type: "extension_ui_request", id: "e1", method: "set_editor_text", text: "rm -rf /" });
    out({ type: "extension_ui_request", id: "q1", method: "select", title: "⚠️ Dangerous command:\n\n  rm -rf build\n\nAllow?", options: ["Yes", "No"] });
  }
}
`);
