#!/usr/bin/env bash
# Installs code-server (a real VS Code, run as a web server) for the integration and e2e tests.
# @vscode/test-electron cannot download VS Code here (no internet), so CI drives code-server instead.
# Recipe and the reasons for each workaround: docs/platform-notes.md part D2.
#   - code-server 4.100.3 is the newest release whose postinstall accepts Node 20.
#   - npm_config_unsafe_perm=true: the postinstall refuses to run as root otherwise.
#   - npm_config_yes=true: node-pty's postinstall calls `npx node-gyp`, which the machine npmrc would cancel.
#   - @vscode/ripgrep's postinstall downloads rg; we seed its cache with Debian's /usr/bin/rg instead.
#   - kerberos builds from source and needs libkrb5-dev (apt, see .ci/run).
# Skips everything when the pinned version is already installed. Override the folder with SF_CODE_SERVER_DIR.
set -euo pipefail
cd "$(dirname "$0")/.."

VERSION="${SF_CODE_SERVER_VERSION:-4.100.3}"
DIR="${SF_CODE_SERVER_DIR:-$PWD/.vscode-test/code-server}"
BIN="$DIR/node_modules/.bin/code-server"

if [ -x "$BIN" ] && "$BIN" --version 2>/dev/null | grep -q "^$VERSION "; then
  echo "code-server $VERSION already installed in $DIR"
  exit 0
fi

for tool in rg; do
  command -v "$tool" >/dev/null 2>&1 || { echo "missing $tool: apt-get install -y ripgrep chromium libkrb5-dev" >&2; exit 1; }
done

TMP="${TMPDIR:-/tmp}"
RG_TAG="v13.0.0-10"   # the rg release @vscode/ripgrep 1.15.11 (pulled by code-server 4.100.3) asks for
RG_PKG="1.15.11"
RG_CACHE="$TMP/vscode-ripgrep-cache-$RG_PKG"
RG_FILE="$RG_CACHE/ripgrep-$RG_TAG-x86_64-unknown-linux-musl.tar.gz"
if [ ! -f "$RG_FILE" ]; then
  seed="$(mktemp -d)"
  mkdir -p "$RG_CACHE"
  cp "$(command -v rg)" "$seed/rg"
  tar czf "$RG_FILE" -C "$seed" rg
  rm -rf "$seed"
fi

mkdir -p "$DIR"
cd "$DIR"
[ -f package.json ] || printf '{ "name": "sf-code-server", "private": true }\n' > package.json
start=$(date +%s)
npm_config_unsafe_perm=true npm_config_yes=true \
  npm install --no-audit --no-fund --no-save "code-server@$VERSION" --foreground-scripts >install.log 2>&1 || {
    echo "code-server install failed; last lines of $DIR/install.log:" >&2
    tail -n 40 install.log >&2
    exit 1
  }
"$BIN" --version
echo "code-server $VERSION installed in $(( $(date +%s) - start )) s"
