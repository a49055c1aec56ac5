/**
 * The person's secrets a sandboxed child never sees, as paths under their home folder (keys, tokens, shell
 * histories); the user-level `"$sandboxHide"` list adds more (a path starting with `~/`, or absolute). Beside
 * them, the sockets through which a child could act as the person (their agents, session bus, docker). Pure.
 */
import { isAbsolute, join, normalize } from "node:path";

export const DEFAULT_HIDDEN_PATHS: readonly string[] = Object.freeze([
  "~/.ssh",
  "~/.gnupg",
  "~/.aws",
  "~/.config/gcloud",
  "~/.netrc",
  "~/.docker/config.json",
  "~/.git-credentials",
  "~/.config/git/credentials",
  "~/.config/gh",
  "~/.npmrc",
  "~/.yarnrc.yml",
  "~/.pypirc",
  "~/.cargo/credentials",
  "~/.cargo/credentials.toml",
  "~/.kube",
  "~/.azure",
  "~/.bash_history",
  "~/.zsh_history",
  "~/.history",
  "~/.sh_history",
  "~/.local/share/fish/fish_history",
  "~/.python_history",
  "~/.node_repl_history",
  "~/.psql_history",
  "~/.mysql_history",
  "~/.sqlite_history",
  "~/.lesshst",
]);

/** The person's runtime folder (`/run/user/<uid>`: ssh-agent, gpg-agent, the session bus, …) and docker's sockets. */
export function hiddenSystemPaths(uid: number | undefined): string[] {
  return [...(uid === undefined ? [] : [`/run/user/${uid}`]), "/var/run/docker.sock", "/run/docker.sock"];
}

/** `~/x` under `home`, an absolute path as it is; anything else (relative) is no path we can hide. */
export function expandHiddenPath(path: string, home: string): string | undefined {
  const trimmed = path.trim();
  if (trimmed === "~") return normalize(home);
  if (trimmed.startsWith("~/")) return normalize(join(home, trimmed.slice(2)));
  return isAbsolute(trimmed) ? normalize(trimmed) : undefined;
}

export function hiddenPaths(home: string, extra: readonly string[]): string[] {
  const paths = [...DEFAULT_HIDDEN_PATHS, ...extra].map((path) => expandHiddenPath(path, home)).filter((path): path is string => path !== undefined);
  return [...new Set(paths)];
}
