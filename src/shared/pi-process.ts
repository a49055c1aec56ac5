/**
 * How pi runs us: its mode, and a lazy import that runs once under pi's loader.
 */

/*
 * How pi is running. pi 0.73.1 has no `ctx.mode`; this mirrors its own choice (`resolveAppMode`): `--mode rpc`
 * is rpc, `--mode json` is json, `-p`/`--print` or a non-TTY stdin is print, otherwise interactive.
 */
export type AppMode = "interactive" | "print" | "json" | "rpc";

export function detectAppMode(
  argv: readonly string[] = process.argv,
  stdinIsTTY: boolean = Boolean(process.stdin.isTTY),
): AppMode {
  let mode: string | undefined;
  let print = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--mode") mode = argv[i + 1];
    else if (arg?.startsWith("--mode=")) mode = arg.slice("--mode=".length);
    else if (arg === "-p" || arg === "--print") print = true;
  }
  if (mode === "rpc") return "rpc";
  if (mode === "json") return "json";
  if (print || !stdinIsTTY) return "print";
  return "interactive";
}

/**
 * Dispatch is asynchronous only in the interactive TUI: print and JSON mode cannot deliver a late message, and
 * RPC mode is driven by a client that expects each tool call to finish.
 */
export function isAsyncDispatchMode(hasUI: boolean, mode: AppMode): boolean {
  return hasUI && mode === "interactive";
}

/**
 * A lazy import that runs once: every use, concurrent first uses included, shares one promise. pi loads the
 * package's TypeScript through jiti without its module cache, and a second import of a module that is still
 * being evaluated gets an incomplete copy of it (two parallel dispatches once saw `createWorktree` undefined),
 * so each lazy import of the package goes through one of these. A failed import is forgotten, so the next use
 * tries again.
 */
export function loadOnce<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () => {
    loading ??= load().catch((error: unknown) => {
      loading = undefined;
      throw error;
    });
    return loading;
  };
}
