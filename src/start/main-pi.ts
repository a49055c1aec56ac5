/**
 * What a pi that may dispatch registers at its start: the manifest, the session's start kept raw, the start-up sweep, the roster hook, and whether a session holds our activity.
 */
import { detectAppMode, loadOnce } from "../shared/pi-process.ts";
import { COMMANDS } from "../commands/descriptions.ts";
import { SUBAGENT_TOOL_TEXTS, TOOL_NAME } from "../tool/texts.ts";
import { RESULT_CUSTOM_TYPE_NAME } from "../delivery/result-type.ts";
import { homedir } from "node:os";
import { rememberStartSnapshot } from "../authority/start-snapshot.ts";
import { agentDir } from "../shared/this-process.ts";
import { isInsideSubagent, mayDispatchSubagents } from "../shared/nesting.ts";
import { startupSweepState, startupSweepHasWork } from "../run/startup-work.ts";
import { appendRoster, cachedRoster, rememberRoster, rosterFingerprint } from "../roster/roster-cache.ts";
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import { registerLazily, type LazyManifest, type LazyRuntimes } from "./lazy-extension.ts";

/*
 * What pi sees of the extension at start, before the runtime (src/pi/runtime.ts) is loaded: the `subagent` tool's
 * definition, the commands' names and descriptions, the events the runtime listens to and its message
 * renderer. Only texts and constants are imported here, so loading this costs next to nothing. The tool's
 * parameter schema is pi's TypeBox (src/tool/schema.ts): the entry passes it in.
 */
/** The manifest, with the `subagent` tool's parameter schema. */
export function subagentManifest(
  toolParameters: import("./lazy-extension.ts").LazyManifest["tools"][number]["parameters"],
): import("./lazy-extension.ts").LazyManifest {
  return {
    tools: [
      {
        ...SUBAGENT_TOOL_TEXTS,
        parameters: toolParameters,
      },
    ],
    commands: Object.values(COMMANDS).map(({ name, description }) => ({ name, description })),
    events: [
      "session_start",
      "agent_start",
      "agent_end",
      "agent_settled",
      "message_start",
      "message_end",
      "context",
      "session_shutdown",
      "tool_result",
    ],
    // The TUI needs the runtime from the start (progress widget, redelivery of undelivered results, renderers), and
    // before a session's history is drawn when it holds subagent calls; a session without any opens first.
    loadOn: { session_start: (_event, ctx) => (detectAppMode() !== "interactive" ? undefined : tuiLoadTiming(ctx)) },
    replayOnLoad: ["session_start"],
    messageRenderers: [RESULT_CUSTOM_TYPE_NAME],
  };
}

/**
 * When the TUI loads the runtime at a session's start: at once when the session holds subagent calls (its history
 * is drawn with the runtime's renderers, undelivered results go out, the footer shows the usage), else right after
 * pi's start-up, so a new session opens without waiting for it. Unknown: at once, as before.
 */
export function tuiLoadTiming(
  ctx: { sessionManager?: { getEntries(): ReadonlyArray<unknown> } } | undefined,
): import("./lazy-extension.ts").LoadTiming {
  try {
    const entries = ctx?.sessionManager?.getEntries();
    return entries && !holdsSubagentActivity(entries) ? "soon" : "now";
  } catch {
    return "now";
  }
}

/*
 * Whether a pi session holds anything of this package: a `subagent` tool call or result, or a delivered
 * `[subagent-result]` message (every usage-ledger entry belongs to such a call). The TUI draws a session's history
 * when it opens it, so the runtime (renderers, redelivery, the ledger's footer) must be loaded first exactly
 * when this is true; a session without any (every new one) can open first and load it a moment later.
 */
/** @param entries pi's session entries (`sessionManager.getEntries()`), all branches. */
export function holdsSubagentActivity(entries: ReadonlyArray<unknown>): boolean {
  return entries.some((raw) => {
    const entry = raw as {
      type?: unknown;
      customType?: unknown;
      message?: { role?: unknown; toolName?: unknown; content?: unknown };
    };
    // pi stores a custom message (a delivered result) as a `custom_message` entry, on both pis.
    if (entry?.type === "custom_message") return entry.customType === RESULT_CUSTOM_TYPE_NAME;
    if (entry?.type !== "message" || !entry.message) return false;
    const { role, toolName, content } = entry.message;
    if (role === "toolResult") return toolName === TOOL_NAME;
    if (role !== "assistant" || !Array.isArray(content)) return false;
    return content.some((block) => block?.type === "toolCall" && block.name === TOOL_NAME);
  });
}

/*
 * Keeps what the session's authority is decided from as it is at pi's `session_start` (start-up, /new, /resume,
 * /fork, /reload): pi's trust answer, the files pi guards, the trust store and the person's user file
 * (src/authority/start-snapshot.ts). Synchronous and small (a few `stat`s and two small files, read but not
 * parsed: the first dispatch makes sense of them), so it is done at once, before any model turn and so before any
 * child can have written a thing. Registered by the light entry, so it runs in every mode.
 */
interface StartContext {
  cwd: string;
  isProjectTrusted?: () => boolean;
}

export function registerSessionStart(
  pi: Pick<import("@mariozechner/pi-coding-agent").ExtensionAPI, "on">,
  argv: readonly string[] = process.argv,
): void {
  pi.on("session_start", (_event, ctx) => {
    const { cwd, isProjectTrusted } = ctx as StartContext;
    try {
      rememberStartSnapshot({
        cwd,
        agentDir: agentDir(),
        home: homedir(),
        argv,
        ...(typeof isProjectTrusted === "function" ? { isProjectTrusted: () => isProjectTrusted.call(ctx) } : {}),
      });
    } catch {
      // Nothing kept: the first dispatch keeps what it finds (src/authority/session-start-read.ts).
    }
  });
}

/*
 * Clean-up of what an earlier pi left when it was killed hard: its runs still locked (ended, recorded as
 * failed, reported once; the agent body each was started with goes too). Done once per process, after the
 * first `session_start` (setImmediate), so it is never on pi's start-up path; the clean-up's modules are
 * imported only then. Only the main pi does it, never a subagent. Registered by the light entry, so it runs in
 * every mode.
 */
/** @param importSweep The clean-up's module (src/pi/startup-sweep.ts); a parameter so tests can hand in a fake. */
export function registerStartupSweep(
  pi: Pick<import("@mariozechner/pi-coding-agent").ExtensionAPI, "on">,
  importSweep: () => Promise<typeof import("../pi/startup-sweep.ts")> = () => import("../pi/startup-sweep.ts"),
): void {
  if (isInsideSubagent()) return;
  const sweep = startupSweepState();
  pi.on("session_start", (_event, ctx) => {
    if (sweep.done) return;
    sweep.done = true;
    setImmediate(() => {
      // Nearly every start finds nothing: then the clean-up's modules are never loaded.
      let work = false;
      try {
        work = startupSweepHasWork(agentDir());
      } catch {
        // an unreadable agent dir: nothing this start can clean up
      }
      if (!work) {
        sweep.settle();
        return;
      }
      void importSweep()
        .then(
          (module) => module.runStartupSweep(ctx),
          () => undefined, // the modules could not load: nothing to clean up with; the next start tries again
        )
        .finally(() => sweep.settle());
    });
  });
  // pi awaits session_shutdown's handlers before it exits: a `pi -p` that is done before the clean-up has
  // reported what it reaped waits for the rest of it (the slices are short; nearly always nothing is left).
  pi.on("session_shutdown", () => (sweep.done ? sweep.settled : undefined));
}

/*
 * The roster's hooks as the light entry registers them. In a subagent at the nesting limit they return at once.
 * Otherwise, at each `before_agent_start` (the working directory is known only then), the fingerprint of what the
 * roster is built from is taken again (roster-cache.ts: a few directory listings and stats), so an agent file
 * added, changed or removed during the session is in the next turn's roster without /reload. While it is the
 * same, the block in hand is kept; when it changes (and at the first turn), the block comes from the start-up
 * cache when it knows the fingerprint, and is built by the roster builder (agent discovery, frontmatter parsing:
 * register.ts, imported then) when it does not. The `context` hook (the roster beside a delivered result, for pi
 * 0.73.1) loads the builder only for a model call that holds a result.
 */
export type RosterModule = typeof import("../pi/roster.ts");
export type RosterHandler = ReturnType<RosterModule["createRosterHandler"]>;

/** The handler for a remembered block: the same answer the builder's handler gives for it. */
function rememberedHandler(block: string | undefined): RosterHandler {
  return (event) => (block === undefined ? undefined : { systemPrompt: appendRoster(event.systemPrompt, block) });
}

/** pi 1.x's trust decision for the session, as the roster depends on it; undefined on pi 0.73.1. */
function projectTrusted(ctx: { isProjectTrusted?: () => boolean }): boolean | undefined {
  try {
    return typeof ctx.isProjectTrusted === "function" ? ctx.isProjectTrusted() : undefined;
  } catch {
    return false;
  }
}

/** The fingerprint of the roster for this context, or undefined when it cannot be taken (no working directory). */
function fingerprintOf(ctx: { cwd?: unknown; isProjectTrusted?: () => boolean }): string | undefined {
  const cwd = ctx.cwd;
  if (typeof cwd !== "string" || cwd === "") return undefined;
  const trusted = projectTrusted(ctx);
  try {
    return rosterFingerprint(cwd, trusted === undefined ? {} : { projectTrusted: trusted });
  } catch {
    return undefined;
  }
}

async function createHandler(
  fingerprint: string | undefined,
  loadRoster: () => Promise<RosterModule>,
): Promise<RosterHandler> {
  const remembered = fingerprint === undefined ? undefined : cachedRoster(fingerprint);
  if (remembered) return rememberedHandler(remembered.block);
  const roster = await loadRoster();
  return roster.createRosterHandler({
    onBuilt: (block, warnings) => {
      if (fingerprint !== undefined && warnings === 0) void rememberRoster(fingerprint, block);
    },
  });
}

function holdsResult(messages: ReadonlyArray<{ role?: unknown; customType?: unknown }>): boolean {
  return messages.some((message) => message.role === "custom" && message.customType === RESULT_CUSTOM_TYPE_NAME);
}

/**
 * @param importRoster Imports the roster builder (src/pi/roster.ts); called when
 *   the cache cannot answer (a parameter, so tests can count and fail the import).
 */
export function registerRosterHook(
  pi: Pick<import("@mariozechner/pi-coding-agent").ExtensionAPI, "on">,
  importRoster: () => Promise<RosterModule>,
): void {
  const loadRoster = loadOnce(importRoster);
  let current: { fingerprint: string | undefined; handler: Promise<RosterHandler | undefined> } | undefined;
  // A handler per fingerprint, settled once: a failure leaves the prompt as it was until the files change (as for
  // any roster failure). Without a fingerprint (no working directory) the handler in hand stays.
  const load = (ctx: { cwd?: unknown; isProjectTrusted?: () => boolean }): Promise<RosterHandler | undefined> => {
    const fingerprint = fingerprintOf(ctx);
    if (current && (fingerprint === undefined || fingerprint === current.fingerprint)) return current.handler;
    current = { fingerprint, handler: createHandler(fingerprint, loadRoster).catch(() => undefined) };
    return current.handler;
  };
  pi.on("before_agent_start", async (event, ctx) => {
    if (!mayDispatchSubagents(process.env)) return undefined;
    return (await load(ctx))?.(event, ctx);
  });
  pi.on("context", async (event, ctx) => {
    if (!mayDispatchSubagents(process.env) || !holdsResult(event.messages)) return undefined;
    const rosterHandler = await load(ctx);
    if (!rosterHandler) return undefined;
    try {
      return (await loadRoster()).createRosterContextHandler(rosterHandler)(event, ctx);
    } catch {
      return undefined;
    }
  });
}

/*
 * What the entry registers in a pi that may dispatch (the main agent): the start-up sweep, the roster hooks and
 * the lazily loaded runtime behind the manifest (src/start/lazy-extension.ts explains the pattern). Without the
 * TUI a tool call loads only the tool's part of the runtime (src/pi/runtime-tool.ts).
 * Everything under pi/ is imported lazily from here: that is the seam between pi's start and first use.
 */
/** The runtime's parts, each imported on first use (src/start/lazy-extension.ts says when). */
const RUNTIME_PARTS: LazyRuntimes = {
  all: () => import("../pi/runtime.ts"),
  toolOnly: () => import("../pi/runtime-tool.ts"),
  draw: async () => (await import("../pi/ui/draw-part.ts")).drawPart,
};

/**
 * @param toolParameters The `subagent` tool's parameter schema (src/tool/schema.ts), which pi needs at start; the
 *   entry hands it over since start/ imports pi/ only lazily.
 * @param parts The runtime's parts (tests hand in their own).
 */
export function registerMainPi(
  pi: ExtensionAPI,
  toolParameters: LazyManifest["tools"][number]["parameters"],
  parts: LazyRuntimes = RUNTIME_PARTS,
): void {
  // Authority is decided once per session, at its start (before any child could have written a file).
  registerSessionStart(pi);
  // Once per process, after the first session_start: runs left by a pi that was killed hard (loads on demand).
  registerStartupSweep(pi);
  registerRosterHook(pi, () => import("../pi/roster.ts"));
  const interactive = detectAppMode() === "interactive";
  const lazy = registerLazily(pi, subagentManifest(toolParameters), {
    all: parts.all,
    toolOnly: interactive ? undefined : parts.toolOnly,
    draw: interactive ? parts.draw : undefined,
  });
  // Without the TUI nothing of the runtime is loaded before the first call. A model streams a call's name before its
  // arguments (the task, often hundreds of tokens), so the load starts then and overlaps the rest of the stream.
  if (!interactive) {
    pi.on("message_update", (event) => {
      if (startsSubagentCall(event.assistantMessageEvent)) lazy.prefetchForTool();
    });
  }
}

/** Whether a streamed assistant-message event opens a `subagent` tool call. */
export function startsSubagentCall(update: {
  type: string;
  contentIndex?: number;
  partial?: { content?: ReadonlyArray<{ type: string; name?: string }> };
}): boolean {
  if (update.type !== "toolcall_start" || update.contentIndex === undefined) return false;
  const block = update.partial?.content?.[update.contentIndex];
  return block?.type === "toolCall" && block.name === TOOL_NAME;
}
