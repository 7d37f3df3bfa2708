#!/usr/bin/env bash
# Installs package.json's packages into node_modules/ from the offline npm cache
# ($STRIPEBENCH_NPM_CACHE; there is no package registry here). An unchanged package.json
# and package-lock.json install nothing.
set -euo pipefail
cd "$(dirname "$0")"
: "${STRIPEBENCH_NPM_CACHE:?the offline npm cache is not configured}"
exec 9<package.json
flock 9
digest() { cat package.json package-lock.json 2>/dev/null | sha256sum | cut -c1-16; }
if [ "$(cat node_modules/.installed 2>/dev/null)" != "$(digest)" ]; then
  # npm cannot read a read-only cache, and the shared one must stay untouched: install
  # from a private copy of it.
  cache="$(mktemp -d)"
  trap 'rm -rf "$cache"' EXIT
  cp -R "$STRIPEBENCH_NPM_CACHE/." "$cache/"
  npm install --offline --cache "$cache" --no-audit --no-fund --loglevel=error
  digest > node_modules/.installed
fi
