// @ts-check
/**
 * A stand-in for pi's ExtensionAPI that the lazily loaded part of the extension registers against: `on`,
 * `registerTool`, `registerCommand` and `registerMessageRenderer` are recorded here (the light entry forwards
 * pi's calls to them), and everything else (`sendMessage`, `appendEntry`, `events`, ...) goes straight to pi.
 */

/** @typedef {import("@mariozechner/pi-coding-agent").ExtensionAPI} ExtensionAPI */
// pi's handler and renderer types differ per event and message type; the table stores them loosely and the
// forwarding code calls them with exactly what pi passed in, so no shape is changed on the way.
/** @typedef {(...args: any[]) => any} AnyFunction */
/** @typedef {import("@mariozechner/pi-coding-agent").ToolDefinition<any, any, any>} AnyToolDefinition */
/** @typedef {Omit<import("@mariozechner/pi-coding-agent").RegisteredCommand, "name" | "sourceInfo">} CommandOptions */

/**
 * @typedef {object} Registrations
 * @property {Map<string, AnyFunction[]>} handlers
 * @property {Map<string, AnyToolDefinition>} tools
 * @property {Map<string, CommandOptions>} commands
 * @property {Map<string, AnyFunction>} messageRenderers
 */

/** @returns {Registrations} */
export function emptyRegistrations() {
  return { handlers: new Map(), tools: new Map(), commands: new Map(), messageRenderers: new Map() };
}

/**
 * An ExtensionAPI whose registrations land in `into` and whose other members are pi's own.
 * @param {ExtensionAPI} pi
 * @param {Registrations} into
 * @returns {ExtensionAPI}
 */
export function recordingApi(pi, into) {
  /** @type {Partial<Record<keyof ExtensionAPI, AnyFunction>>} */
  const recorded = {
    on: (/** @type {string} */ event, /** @type {AnyFunction} */ handler) => {
      const list = into.handlers.get(event) ?? [];
      list.push(handler);
      into.handlers.set(event, list);
    },
    registerTool: (/** @type {AnyToolDefinition} */ tool) => {
      into.tools.set(tool.name, tool);
    },
    registerCommand: (/** @type {string} */ name, /** @type {CommandOptions} */ options) => {
      into.commands.set(name, options);
    },
    registerMessageRenderer: (/** @type {string} */ customType, /** @type {AnyFunction} */ renderer) => {
      into.messageRenderers.set(customType, renderer);
    },
  };
  return new Proxy(pi, {
    get(target, property, receiver) {
      if (typeof property === "string" && property in recorded) return recorded[/** @type {keyof ExtensionAPI} */ (property)];
      return /** @type {unknown} */ (Reflect.get(target, property, receiver));
    },
  });
}
