/**
 * The lazy layer: the API the runtime registers against, and the forwarders that load the runtime on first use.
 */
import type { ExtensionAPI, ToolDefinition } from "@mariozechner/pi-coding-agent";

/*
 * A stand-in for pi's ExtensionAPI that the lazily loaded part of the extension registers against: `on`,
 * `registerTool`, `registerCommand` and `registerMessageRenderer` are recorded here (the light entry forwards
 * pi's calls to them), and everything else (`sendMessage`, `appendEntry`, `events`, ...) goes straight to pi.
 */
// pi's handler and renderer types differ per event and message type; the table stores them loosely and the
// forwarding code calls them with exactly what pi passed in, so no shape is changed on the way.
type AnyFunction = (...args: any[]) => any;
type AnyToolDefinition = import("@mariozechner/pi-coding-agent").ToolDefinition<any, any, any>;
type CommandOptions = Omit<import("@mariozechner/pi-coding-agent").RegisteredCommand, "name" | "sourceInfo">;

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
      if (typeof property === "string" && property in recorded) return recorded[property as keyof ExtensionAPI];
      return Reflect.get(target, property, receiver) as unknown;
    },
  });
}

/*
 * How the extension stays cheap to load (pi loads it in every session and in every subagent child, and
 * compiles each TypeScript module at every load).
 *
 * The pattern:
 * - The entry (extension.ts) registers at once only what pi needs at start: the `subagent` tool's definition
 *   (name, texts, schema), the command names and descriptions, and the event hooks. Those come from a small
 *   manifest (`LazyManifest`) built from light modules (texts and constants only).
 * - Everything else (dispatch, background tasks, UI, command bodies, the config editor, the runner) is the
 *   "runtime": a module whose `register(pi)` wires the real parts exactly as an eager extension would, but
 *   against a recording ExtensionAPI (`recordingApi` above). It is imported on first use:
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
 * - A unit test (test/unit/start/manifest.test.ts) checks that the manifest names every tool, command, event and
 *   renderer the runtime registers, so adding one to the runtime without its manifest line fails a test.
 */
/** The module loaded on first use: wires the real parts to the (recording) API it is given. */
export interface LazyRuntime {
  register: (pi: ExtensionAPI) => void;
}

/** What the entry registers with pi at once. */
export interface LazyManifest {
  /** Tool definitions without behaviour: execute and the renderers are forwarded to the runtime's own. */
  tools: Array<Omit<AnyToolDefinition, "execute" | "renderCall" | "renderResult">>;
  commands: Array<{ name: string; description: string }>;
  /** Events forwarded to the runtime once it is loaded. */
  events: readonly string[];
  /**
   * Events that load the runtime when they fire, as the function (given the event's arguments) says (e.g.
   * session_start in the TUI).
   */
  loadOn?: Partial<Record<string, (...args: AnyArgs) => LoadTiming>>;
  /**
   * Events whose latest arguments are kept while the runtime is not
   * loaded and handed to its handlers once it is (session_start: the runtime keeps the session's context).
   */
  replayOnLoad?: readonly string[];
  /** Custom message types whose renderer the runtime provides. */
  messageRenderers: readonly string[];
}

export interface LazyExtension {
  /** Loads the runtime (once) and returns what it registered. */
  load: () => Promise<Registrations>;
  /** What the runtime registered, if it is loaded already. */
  loaded: () => Registrations | undefined;
  /**
   * Starts loading what a tool call needs (the tool's part, or the whole runtime
   * when there is no such part), without waiting; the call itself then finds it loaded or loading. A failure is left
   * to the call, which tries again.
   */
  prefetchForTool: () => void;
}

// Handlers and renderers are forwarded with pi's own arguments untouched; their exact types vary per event.
type AnyArgs = any[];

/**
 * When an event loads the runtime: `now` (pi waits for it, as for drawing a session's history with the runtime's
 * renderers), `soon` (after pi's handlers, without keeping pi waiting), or `undefined` (not at all).
 */
export type LoadTiming = "now" | "soon" | undefined;

/**
 * The renderers alone, for drawing a session's history before the rest of the runtime is loaded. They must be the
 * same functions the whole runtime registers (a unit test checks it), since a row drawn by one may be drawn again
 * by the other.
 */
export interface DrawPart {
  /**
   * By tool name
   * (each tool's renderers take that tool's own parameters, hence no narrower type here).
   */
  toolRenderers: Record<string, { renderCall?: AnyFunction; renderResult?: AnyFunction }>;
  /** By custom message type. */
  messageRenderers: Record<string, (...args: AnyArgs) => unknown>;
}

/**
 * Where the runtime comes from: the whole of it, and optionally a part that serves the tool alone and one that
 * draws.
 */
export interface LazyRuntimes {
  all: () => Promise<LazyRuntime>;
  /** Loaded instead of `all` for a tool call while `all` is not loaded (absent: a tool call loads `all`). */
  toolOnly?: () => Promise<LazyRuntime>;
  /**
   * What an event whose `loadOn` says `now` waits for instead of `all`,
   * which then loads right after (absent, or if it fails to load: the event waits for `all`). Only for events
   * in `replayOnLoad`, so the whole runtime still hears the event.
   */
  draw?: () => Promise<DrawPart>;
}

export function registerLazily(
  pi: ExtensionAPI,
  manifest: LazyManifest,
  runtimes: LazyRuntimes | (() => Promise<LazyRuntime>),
): LazyExtension {
  const { all, toolOnly, draw } =
    typeof runtimes === "function" ? { all: runtimes, toolOnly: undefined, draw: undefined } : runtimes;
  /**
   * What events, renderers and completions go to: the whole runtime's registrations once loaded, else the tool part's.
   */
  let registrations: Registrations | undefined;
  let wholeLoaded = false;
  let loadingAll: Promise<Registrations> | undefined;
  let loadingToolOnly: Promise<Registrations> | undefined;
  /**
   * The latest arguments of each `replayOnLoad` event, for a part of the runtime loaded after it fired (also the
   * whole runtime after the tool's part: each new part must learn the current session).
   */
  const kept: Map<string, AnyArgs> = new Map();
  const replayed = new Set(manifest.replayOnLoad ?? []);
  /** The draw part, once loaded: what renderers answer with while the whole runtime is not loaded. */
  let drawn: DrawPart | undefined;
  let loadingDraw: Promise<DrawPart> | undefined;

  const importInto = (
    importRuntime: () => Promise<LazyRuntime>,
    whole: boolean,
    forget: () => void,
  ): Promise<Registrations> =>
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
      (error: unknown) => {
        forget(); // let the next use try again
        throw error;
      },
    );

  const load = (): Promise<Registrations> => {
    // After the draw part, never beside it: both import the renderers' modules, and a TypeScript module one import
    // is still evaluating is seen half-made by the other (src/shared/pi-process.ts).
    const afterDraw = async () => {
      await loadingDraw?.catch(() => undefined);
      return all();
    };
    loadingAll ??= importInto(afterDraw, true, () => (loadingAll = undefined));
    return loadingAll;
  };
  const loadDraw = (importDraw: () => Promise<DrawPart>): Promise<DrawPart> => {
    loadingDraw ??= importDraw().then(
      (part) => (drawn = part),
      (error: unknown) => {
        loadingDraw = undefined;
        throw error;
      },
    );
    return loadingDraw;
  };
  const loadForTool = (): Promise<Registrations> => {
    if (loadingAll || !toolOnly) return load();
    loadingToolOnly ??= importInto(toolOnly, false, () => (loadingToolOnly = undefined));
    return loadingToolOnly;
  };

  const runHandlers = async (table: Registrations, event: string, args: AnyArgs): Promise<unknown> => {
    let result: unknown;
    for (const handler of table.handlers.get(event) ?? []) {
      const value: unknown = await handler(...args);
      if (value !== undefined) result = value;
    }
    return result;
  };

  for (const tool of manifest.tools) {
    const recordedTool = (table: Registrations): AnyToolDefinition => {
      const found = table.tools.get(tool.name);
      if (!found) throw new Error(`subagent extension: the runtime did not register the tool ${tool.name}`);
      return found;
    };
    const definition: AnyToolDefinition = {
      ...tool,
      execute: async (...args: AnyArgs) =>
        recordedTool(await loadForTool()).execute(...(args as Parameters<AnyToolDefinition["execute"]>)),
      renderCall: (...args: AnyArgs) => {
        const table = registrations;
        const render = table
          ? recordedTool(table).renderCall
          : (drawn?.toolRenderers[tool.name]?.renderCall as AnyToolDefinition["renderCall"]);
        return render
          ? render(...(args as Parameters<NonNullable<AnyToolDefinition["renderCall"]>>))
          : fallbackComponent();
      },
      renderResult: (...args: AnyArgs) => {
        const table = registrations;
        const render = table
          ? recordedTool(table).renderResult
          : (drawn?.toolRenderers[tool.name]?.renderResult as AnyToolDefinition["renderResult"]);
        return render
          ? render(...(args as Parameters<NonNullable<AnyToolDefinition["renderResult"]>>))
          : fallbackComponent();
      },
    };
    pi.registerTool(definition as ToolDefinition);
  }

  for (const command of manifest.commands) {
    const recordedCommand = (table: Registrations) => {
      const found = table.commands.get(command.name);
      if (!found) throw new Error(`subagent extension: the runtime did not register /${command.name}`);
      return found;
    };
    pi.registerCommand(command.name, {
      description: command.description,
      getArgumentCompletions: async (prefix) => recordedCommand(await load()).getArgumentCompletions?.(prefix) ?? null,
      handler: async (args, ctx) => recordedCommand(await load()).handler(args, ctx),
    });
  }

  for (const event of manifest.events) {
    const shouldLoad = manifest.loadOn?.[event];
    // pi's `on` is overloaded per event name; the forwarder passes pi's arguments through unchanged.
    (pi.on as (event: string, handler: (...args: AnyArgs) => unknown) => void)(event, async (...args) => {
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
    pi.registerMessageRenderer(customType, (...args: AnyArgs) => {
      const render = registrations
        ? registrations.messageRenderers.get(customType)
        : drawn?.messageRenderers[customType];
      return render ? render(...args) : undefined;
    });
  }

  const prefetchForTool = () => {
    loadForTool().catch(() => undefined);
  };

  return { load, loaded: () => registrations, prefetchForTool };
}

/** What a tool row shows in the rare case pi draws it before the runtime is loaded: nothing of ours. */
function fallbackComponent(): { render(width: number): string[]; invalidate(): void } {
  return { render: () => [], invalidate: () => {} };
}
