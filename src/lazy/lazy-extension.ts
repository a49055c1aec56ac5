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
 *   against a recording ExtensionAPI (recording-api.ts). It is imported on first use:
 *     - a tool call or a command runs → load, then forward to the recorded `execute` / `handler`;
 *     - without the TUI (print, JSON, RPC) a tool call loads only the tool's part (`LazyRuntimes.toolOnly`,
 *       about half the modules): a dispatch there blocks, so background tasks, UI and command bodies are not
 *       needed for it. A command loads the whole runtime, which then takes over from the tool's part;
 *     - `session_start` in the interactive TUI → load (its widget, result delivery and renderers need it);
 *     - any other event reaches the runtime only once it is loaded: before that there is nothing of ours
 *       (no task, no widget) for it to act on;
 *     - renderers and completions are synchronous or cheap questions: answered by the runtime once loaded,
 *       by pi's default (or nothing) before.
 * - A unit test (test/unit/lazy/manifest.test.ts) checks that the manifest names every tool, command, event and
 *   renderer the runtime registers, so adding one to the runtime without its manifest line fails a test.
 */
import type { ExtensionAPI, ToolDefinition } from "@mariozechner/pi-coding-agent";
import { emptyRegistrations, recordingApi, type AnyToolDefinition, type Registrations } from "./recording-api.ts";

/** The module loaded on first use: wires the real parts to the (recording) API it is given. */
export interface LazyRuntime {
  register(pi: ExtensionAPI): void;
}

/** What the entry registers with pi at once. */
export interface LazyManifest {
  /** Tool definitions without behaviour: execute and the renderers are forwarded to the runtime's own. */
  tools: Array<Omit<AnyToolDefinition, "execute" | "renderCall" | "renderResult">>;
  commands: Array<{ name: string; description: string }>;
  /** Events forwarded to the runtime once it is loaded. */
  events: readonly string[];
  /** Events that load the runtime when they fire and `shouldLoad` says so (e.g. session_start in the TUI). */
  loadOn?: Partial<Record<string, () => boolean>>;
  /** Custom message types whose renderer the runtime provides. */
  messageRenderers: readonly string[];
}

export interface LazyExtension {
  /** Loads the runtime (once) and returns what it registered. */
  load(): Promise<Registrations>;
  /** What the runtime registered, if it is loaded already. */
  loaded(): Registrations | undefined;
}

// Handlers and renderers are forwarded with pi's own arguments untouched; their exact types vary per event.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyArgs = any[];

/** Where the runtime comes from: the whole of it, and optionally a part that serves the tool alone. */
export interface LazyRuntimes {
  all: () => Promise<LazyRuntime>;
  /** Loaded instead of `all` for a tool call while `all` is not loaded (absent: a tool call loads `all`). */
  toolOnly?: () => Promise<LazyRuntime>;
}

export function registerLazily(pi: ExtensionAPI, manifest: LazyManifest, runtimes: LazyRuntimes | (() => Promise<LazyRuntime>)): LazyExtension {
  const { all, toolOnly } = typeof runtimes === "function" ? { all: runtimes, toolOnly: undefined } : runtimes;
  /** What events, renderers and completions go to: the whole runtime's registrations once loaded, else the tool part's. */
  let registrations: Registrations | undefined;
  let wholeLoaded = false;
  let loadingAll: Promise<Registrations> | undefined;
  let loadingToolOnly: Promise<Registrations> | undefined;

  const importInto = (importRuntime: () => Promise<LazyRuntime>, whole: boolean, forget: () => void): Promise<Registrations> =>
    importRuntime().then(
      (runtime) => {
        const into = emptyRegistrations();
        runtime.register(recordingApi(pi, into));
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
    loadingAll ??= importInto(all, true, () => (loadingAll = undefined));
    return loadingAll;
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
      execute: async (...args: AnyArgs) => recordedTool(await loadForTool()).execute(...(args as Parameters<AnyToolDefinition["execute"]>)),
      renderCall: (...args: AnyArgs) => {
        const table = registrations;
        const render = table && recordedTool(table).renderCall;
        return render ? render(...(args as Parameters<NonNullable<AnyToolDefinition["renderCall"]>>)) : fallbackComponent();
      },
      renderResult: (...args: AnyArgs) => {
        const table = registrations;
        const render = table && recordedTool(table).renderResult;
        return render ? render(...(args as Parameters<NonNullable<AnyToolDefinition["renderResult"]>>)) : fallbackComponent();
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
      getArgumentCompletions: async (prefix) => (recordedCommand(await load()).getArgumentCompletions?.(prefix) ?? null),
      handler: async (args, ctx) => recordedCommand(await load()).handler(args, ctx),
    });
  }

  for (const event of manifest.events) {
    const shouldLoad = manifest.loadOn?.[event];
    // pi's `on` is overloaded per event name; the forwarder passes pi's arguments through unchanged.
    (pi.on as (event: string, handler: (...args: AnyArgs) => unknown) => void)(event, async (...args: AnyArgs) => {
      if (registrations) return runHandlers(registrations, event, args);
      if (shouldLoad?.()) return runHandlers(await load(), event, args);
      return undefined;
    });
  }

  for (const customType of manifest.messageRenderers) {
    pi.registerMessageRenderer(customType, (...args: AnyArgs) => {
      const render = registrations?.messageRenderers.get(customType);
      return render ? render(...args) : undefined;
    });
  }

  return { load, loaded: () => registrations };
}

/** What a tool row shows in the rare case pi draws it before the runtime is loaded: nothing of ours. */
function fallbackComponent(): { render(width: number): string[]; invalidate(): void } {
  return { render: () => [], invalidate: () => {} };
}
