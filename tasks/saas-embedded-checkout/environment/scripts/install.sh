#!/usr/bin/env bash
# Installs package.json's packages into node_modules/ from the offline npm cache
# ($STRIPEBENCH_NPM_CACHE; there is no package registry here). Nothing happens while
# package.json and package-lock.json are unchanged.
set -euo pipefail
cd "$(dirname "$0")/.."
digest() { cat package.json package-lock.json 2>/dev/null | sha256sum | cut -c1-16; }
[ "$(cat node_modules/.installed 2>/dev/null)" = "$(digest)" ] && exit 0
: "${STRIPEBENCH_NPM_CACHE:?the offline npm cache is not configured}"
# npm writes to its cache even offline, and the shared one must stay untouched (it is
# read-only in a sandbox): install from a private copy.
cache="$(mktemp -d)"
trap 'rm -rf "$cache"' EXIT
cp -R "$STRIPEBENCH_NPM_CACHE/." "$cache/"
npm install --offline --cache "$cache" --no-audit --no-fund --loglevel=error
digest > node_modules/.installed
