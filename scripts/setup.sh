#!/usr/bin/env bash
# One command on a fresh machine with only Node.js 20 and npm: install pnpm
# (pinned), install the workspace from the lockfile, build, and run the demo.
set -euo pipefail
cd "$(dirname "$0")/.."

PNPM_VERSION=$(node -p 'require("./package.json").packageManager.split("@")[1]')
if [ "$(pnpm --version 2>/dev/null || true)" != "$PNPM_VERSION" ]; then
  npm install -g "pnpm@$PNPM_VERSION"
fi

# Native addons build from source with node-gyp: use this machine's Node headers
# instead of downloading them (there is no network but the npm registry).
if [ -z "${npm_config_nodedir:-}" ] && [ -f /usr/include/node/common.gypi ]; then
  export npm_config_nodedir=/usr
fi
export TURBO_TELEMETRY_DISABLED=1

pnpm install --frozen-lockfile
pnpm build
pnpm demo
