#!/usr/bin/env bash
# Debian packages the tests need: bubblewrap (the sandbox's private root and namespaces), python3 (the CPython runtime), chromium (Playwright drives it), and for the code-server
# install ripgrep (seeds @vscode/ripgrep's download) and libkrb5-dev (kerberos builds from source).
set -euo pipefail
missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v rg >/dev/null 2>&1 || missing+=(ripgrep)
command -v bwrap >/dev/null 2>&1 || missing+=(bubblewrap)
# The opt-in CPython sandbox runtime (src/core/sandbox/native.ts) runs answers in the system's CPython 3.11+.
[ -x /usr/bin/python3 ] || missing+=(python3)
dpkg -s libkrb5-dev >/dev/null 2>&1 || missing+=(libkrb5-dev)
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "missing system packages: ${missing[*]} (install them with: sudo apt-get install -y ${missing[*]})" >&2
  exit 1
fi
echo "installing ${missing[*]} with apt-get" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq "${missing[@]}" >/dev/null
