// @ts-check
/**
 * How the extension stays cheap to load (pi loads it in every session and in every subagent child, and
 * compiles each TypeScript module at every load).
 *
 * The pattern:
 * - The entry (extension.ts) registers at once only what pi needs at start: the `subagent` tool's definition
 *   (name, texts, schema), the command names and descriptions, and the event hooks. Those come from a small
 *   manifest (`LazyManifest`) built from light modules (texts and constants only).
 * - Everything else (dispatch, background tasks, UI, command bodies, the config editor, the runner) is the
 *   "runtime": a module whose `register(pi)` wires the real parts exactly as an eager extension would, but
 *   against a recording ExtensionAPI (recording-api.js). It is imported on first use:
 *     - a tool call or a command runs → load, then forward to the recorded `execute` / `handler`;
 *     - without the TUI (print, JSON, RPC) a tool call loads only the tool's part (`LazyRuntimes.toolOnly`,
 *       about half the modules): a dispatch there blocks, so background tasks, UI and command bodies are not
 *       needed for it. A command loads the whole runtime, which then takes over from the tool's part;
 *     - `session_start` in the interactive TUI → load (its widget, result delivery and renderers need it). When
 *       the session holds subagent calls, pi waits only for the "draw part" (`LazyRuntimes.draw`: the renderers
 *       of the tool's rows and the result cards, a few modules) so the history it draws is ours, and the whole
 *       runtime follows right after pi's start-up, hearing the kept `session_start` then;
 *     - any other event reaches the runtime only once it is loaded: before that there is nothing of ours
 *       (no task, no widget) for it to act on;
 *     - renderers and completions are synchronous or cheap questions: answered by the runtime once loaded,
 *       by the draw part while only it is, by pi's default (or nothing) before.
 * - A unit test (test/unit/lazy/manifest.test.ts) checks that the manifest names every tool, command, event and
 *   renderer the runtime registers, so adding one to the runtime without its manifest line fails a test.
 */
import { emptyRegistrations, recordingApi } from "./recording-api.js";

/** @typedef {import("@mariozechner/pi-coding-agent").ExtensionAPI} ExtensionAPI */
/** @typedef {import("@mariozechner/pi-coding-agent").ToolDefinition} ToolDefinition */
/** @typedef {import("./recording-api.js").AnyToolDefinition} AnyToolDefinition */
/** @typedef {import("./recording-api.js").Registrations} Registrations */
/** @typedef {import("./recording-api.js").AnyFunction} AnyFunction */

/**
 * The module loaded on first use: wires the real parts to the (recording) API it is given.
 * @typedef {object} LazyRuntime
 * @property {(pi: ExtensionAPI) => void} register
 */

/**
 * What the entry registers with pi at once.
 * @typedef {object} LazyManifest
 * @property {Array<Omit<AnyToolDefinition, "execute" | "renderCall" | "renderResult">>} tools Tool definitions
 *   without behaviour: execute and the renderers are forwarded to the runtime's own.
 * @property {Array<{ name: string, description: string }>} commands
 * @property {readonly string[]} events Events forwarded to the runtime once it is loaded.
 * @property {Partial<Record<string, (...args: AnyArgs) => LoadTiming>>} [loadOn] Events that load the runtime
 *   when they fire, as the function (given the event's arguments) says (e.g. session_start in the TUI).
 * @property {readonly string[]} [replayOnLoad] Events whose latest arguments are kept while the runtime is not
 *   loaded and handed to its handlers once it is (session_start: the runtime keeps the session's context).
 * @property {readonly string[]} messageRenderers Custom message types whose renderer the runtime provides.
 */

/**
 * @typedef {object} LazyExtension
 * @property {() => Promise<Registrations>} load Loads the runtime (once) and returns what it registered.
 * @property {() => Registrations | undefined} loaded What the runtime registered, if it is loaded already.
 * @property {() => void} prefetchForTool Starts loading what a tool call needs (the tool's part, or the whole runtime
 *   when there is no such part), without waiting; the call itself then finds it loaded or loading. A failure is left
 *   to the call, which tries again.
 */

// Handlers and renderers are forwarded with pi's own arguments untouched; their exact types vary per event.
/** @typedef {any[]} AnyArgs */

/**
 * When an event loads the runtime: `now` (pi waits for it, as for drawing a session's history with the runtime's
 * renderers), `soon` (after pi's handlers, without keeping pi waiting), or `undefined` (not at all).
 * @typedef {"now" | "soon" | undefined} LoadTiming
 */

/**
 * The renderers alone, for drawing a session's history before the rest of the runtime is loaded. They must be the
 * same functions the whole runtime registers (a unit test checks it), since a row drawn by one may be drawn again
 * by the other.
 * @typedef {object} DrawPart
 * @property {Record<string, { renderCall?: AnyFunction, renderResult?: AnyFunction }>} toolRenderers By tool name
 *   (each tool's renderers take that tool's own parameters, hence no narrower type here).
 * @property {Record<string, (...args: AnyArgs) => unknown>} messageRenderers By custom message type.
 */

/**
 * Where the runtime comes from: the whole of it, and optionally a part that serves the tool alone and one that
 * draws.
 * @typedef {object} LazyRuntimes
 * @property {() => Promise<LazyRuntime>} all
 * @property {() => Promise<LazyRuntime>} [toolOnly] Loaded instead of `all` for a tool call while `all` is not
 *   loaded (absent: a tool call loads `all`).
 * @property {() => Promise<DrawPart>} [draw] What an event whose `loadOn` says `now` waits for instead of `all`,
 *   which then loads right after (absent, or if it fails to load: the event waits for `all`). Only for events
 *   in `replayOnLoad`, so the whole runtime still hears the event.
 */

/**
 * @param {ExtensionAPI} pi
 * @param {LazyManifest} manifest
 * @param {LazyRuntimes | (() => Promise<LazyRuntime>)} runtimes
 * @returns {LazyExtension}
 */
export function registerLazily(pi, manifest, runtimes) {
  const { all, toolOnly, draw } = typeof runtimes === "function" ? { all: runtimes, toolOnly: undefined, draw: undefined } : runtimes;
  /**
   * What events, renderers and completions go to: the whole runtime's registrations once loaded, else the tool part's.
   * @type {Registrations | undefined}
   */
  let registrations;
  let wholeLoaded = false;
  /** @type {Promise<Registrations> | undefined} */
  let loadingAll;
  /** @type {Promise<Registrations> | undefined} */
  let loadingToolOnly;
  /**
   * The latest arguments of each `replayOnLoad` event, for a part of the runtime loaded after it fired (also the
   * whole runtime after the tool's part: each new part must learn the current session).
   * @type {Map<string, AnyArgs>}
   */
  const kept = new Map();
  const replayed = new Set(manifest.replayOnLoad ?? []);
  /**
   * The draw part, once loaded: what renderers answer with while the whole runtime is not loaded.
   * @type {DrawPart | undefined}
   */
  let drawn;
  /** @type {Promise<DrawPart> | undefined} */
  let loadingDraw;

  /**
   * @param {() => Promise<LazyRuntime>} importRuntime
   * @param {boolean} whole
   * @param {() => void} forget
   * @returns {Promise<Registrations>}
   */
  const importInto = (importRuntime, whole, forget) =>
    importRuntime().then(
      async (runtime) => {
        const into = emptyRegistrations();
        runtime.register(recordingApi(pi, into));
        // What fired before this part was loaded, so it knows the session it runs in.
        for (const [event, args] of kept) {
          try {
            await runHandlers(into, event, args);
          } catch {
            // as a failing handler at the event itself would have: the rest of the runtime works on
          }
        }
        // The whole runtime replaces the tool's part (it registers the same tool and hooks); never the reverse.
        if (whole || !wholeLoaded) registrations = into;
        if (whole) wholeLoaded = true;
        return into;
      },
      (/** @type {unknown} */ error) => {
        forget(); // let the next use try again
        throw error;
      },
    );

  /** @returns {Promise<Registrations>} */
  const load = () => {
    // After the draw part, never beside it: both import the renderers' modules, and a TypeScript module one import
    // is still evaluating is seen half-made by the other (src/shared/load-once.js).
    const afterDraw = async () => {
      await loadingDraw?.catch(() => undefined);
      return all();
    };
    loadingAll ??= importInto(afterDraw, true, () => (loadingAll = undefined));
    return loadingAll;
  };
  /**
   * @param {() => Promise<DrawPart>} importDraw
   * @returns {Promise<DrawPart>}
   */
  const loadDraw = (importDraw) => {
    loadingDraw ??= importDraw().then(
      (part) => (drawn = part),
      (/** @type {unknown} */ error) => {
        loadingDraw = undefined;
        throw error;
      },
    );
    return loadingDraw;
  };
  /** @returns {Promise<Registrations>} */
  const loadForTool = () => {
    if (loadingAll || !toolOnly) return load();
    loadingToolOnly ??= importInto(toolOnly, false, () => (loadingToolOnly = undefined));
    return loadingToolOnly;
  };

  /**
   * @param {Registrations} table
   * @param {string} event
   * @param {AnyArgs} args
   * @returns {Promise<unknown>}
   */
  const runHandlers = async (table, event, args) => {
    /** @type {unknown} */
    let result;
    for (const handler of table.handlers.get(event) ?? []) {
      /** @type {unknown} */
      const value = await handler(...args);
      if (value !== undefined) result = value;
    }
    return result;
  };

  for (const tool of manifest.tools) {
    /**
     * @param {Registrations} table
     * @returns {AnyToolDefinition}
     */
    const recordedTool = (table) => {
      const found = table.tools.get(tool.name);
      if (!found) throw new Error(`subagent extension: the runtime did not register the tool ${tool.name}`);
      return found;
    };
    /** @type {AnyToolDefinition} */
    const definition = {
      ...tool,
      execute: async (/** @type {AnyArgs} */ ...args) =>
        recordedTool(await loadForTool()).execute(.../** @type {Parameters<AnyToolDefinition["execute"]>} */ (args)),
      renderCall: (/** @type {AnyArgs} */ ...args) => {
        const table = registrations;
        const render = table ? recordedTool(table).renderCall : /** @type {AnyToolDefinition["renderCall"]} */ (drawn?.toolRenderers[tool.name]?.renderCall);
        return render ? render(.../** @type {Parameters<NonNullable<AnyToolDefinition["renderCall"]>>} */ (args)) : fallbackComponent();
      },
      renderResult: (/** @type {AnyArgs} */ ...args) => {
        const table = registrations;
        const render = table ? recordedTool(table).renderResult : /** @type {AnyToolDefinition["renderResult"]} */ (drawn?.toolRenderers[tool.name]?.renderResult);
        return render ? render(.../** @type {Parameters<NonNullable<AnyToolDefinition["renderResult"]>>} */ (args)) : fallbackComponent();
      },
    };
    pi.registerTool(/** @type {ToolDefinition} */ (definition));
  }

  for (const command of manifest.commands) {
    /** @param {Registrations} table */
    const recordedCommand = (table) => {
      const found = table.commands.get(command.name);
      if (!found) throw new Error(`subagent extension: the runtime did not register /${command.name}`);
      return found;
    };
    pi.registerCommand(command.name, {
      description: command.description,
      getArgumentCompletions: async (prefix) => (recordedCommand(await load()).getArgumentCompletions?.(prefix) ?? null),
      handler: async (args, ctx) => recordedCommand(await load()).handler(args, ctx),
    });
  }

  for (const event of manifest.events) {
    const shouldLoad = manifest.loadOn?.[event];
    // pi's `on` is overloaded per event name; the forwarder passes pi's arguments through unchanged.
    /** @type {(event: string, handler: (...args: AnyArgs) => unknown) => void} */ (pi.on)(event, async (...args) => {
      // The session ended: what was kept of it is stale.
      if (event === "session_shutdown") kept.clear();
      if (replayed.has(event)) kept.set(event, args);
      if (registrations) return runHandlers(registrations, event, args);
      const timing = shouldLoad?.(...args);
      if (timing === "soon") setImmediate(() => load().catch(() => undefined));
      if (timing !== "now") return undefined;
      if (draw && replayed.has(event)) {
        try {
          // pi waits only for what drawing needs; the whole runtime follows and hears the kept event.
          await loadDraw(draw);
          setImmediate(() => load().catch(() => undefined));
          return undefined;
        } catch {
          // no draw part: wait for the whole runtime, as without one
        }
      }
      const table = await load();
      // A kept event reached the runtime as it loaded.
      return replayed.has(event) ? undefined : runHandlers(table, event, args);
    });
  }

  for (const customType of manifest.messageRenderers) {
    pi.registerMessageRenderer(customType, (/** @type {AnyArgs} */ ...args) => {
      const render = registrations ? registrations.messageRenderers.get(customType) : drawn?.messageRenderers[customType];
      return render ? render(...args) : undefined;
    });
  }

  const prefetchForTool = () => {
    loadForTool().catch(() => undefined);
  };

  return { load, loaded: () => registrations, prefetchForTool };
}

/**
 * What a tool row shows in the rare case pi draws it before the runtime is loaded: nothing of ours.
 * @returns {{ render(width: number): string[], invalidate(): void }}
 */
function fallbackComponent() {
  return { render: () => [], invalidate: () => {} };
}
