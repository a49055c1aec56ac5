/**
 * A stand-in for pi's ExtensionAPI that the lazily loaded part of the extension registers against: `on`,
 * `registerTool`, `registerCommand` and `registerMessageRenderer` are recorded here (the light entry forwards
 * pi's calls to them), and everything else (`sendMessage`, `appendEntry`, `events`, ...) goes straight to pi.
 */

import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
// pi's handler and renderer types differ per event and message type; the table stores them loosely and the
// forwarding code calls them with exactly what pi passed in, so no shape is changed on the way.
export type AnyFunction = (...args: any[]) => any;
export type AnyToolDefinition = import("@mariozechner/pi-coding-agent").ToolDefinition<any, any, any>;
export type CommandOptions = Omit<import("@mariozechner/pi-coding-agent").RegisteredCommand, "name" | "sourceInfo">;

export interface Registrations {
  handlers: Map<string, AnyFunction[]>;
  tools: Map<string, AnyToolDefinition>;
  commands: Map<string, CommandOptions>;
  messageRenderers: Map<string, AnyFunction>;
}

export function emptyRegistrations(): Registrations {
  return { handlers: new Map(), tools: new Map(), commands: new Map(), messageRenderers: new Map() };
}

/** An ExtensionAPI whose registrations land in `into` and whose other members are pi's own. */
export function recordingApi(pi: ExtensionAPI, into: Registrations): ExtensionAPI {
  const recorded: Partial<Record<keyof ExtensionAPI, AnyFunction>> = {
    on: (event: string, handler: AnyFunction) => {
      const list = into.handlers.get(event) ?? [];
      list.push(handler);
      into.handlers.set(event, list);
    },
    registerTool: (tool: AnyToolDefinition) => {
      into.tools.set(tool.name, tool);
    },
    registerCommand: (name: string, options: CommandOptions) => {
      into.commands.set(name, options);
    },
    registerMessageRenderer: (customType: string, renderer: AnyFunction) => {
      into.messageRenderers.set(customType, renderer);
    },
  };
  return new Proxy(pi, {
    get(target, property, receiver) {
      if (typeof property === "string" && property in recorded) return recorded[(property as keyof ExtensionAPI)];
      return (Reflect.get(target, property, receiver) as unknown);
    },
  });
}
