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
