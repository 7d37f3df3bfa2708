#!/usr/bin/env bash
# Installs requirements.txt into .deps/ from the offline wheelhouse ($STRIPEBENCH_WHEELHOUSE;
# there is no package index here). Each version of requirements.txt gets its own directory,
# .deps/current points at the one in use; an unchanged file installs nothing.
set -euo pipefail
cd "$(dirname "$0")"
: "${STRIPEBENCH_WHEELHOUSE:?the offline wheelhouse is not configured}"
mkdir -p .deps
exec 9>.deps/.lock
flock 9
digest="$(sha256sum requirements.txt | cut -c1-16)"
target=".deps/$digest"
if [ ! -f "$target/.complete" ]; then
  rm -rf "$target"
  python -m pip install --isolated --quiet --disable-pip-version-check --no-cache-dir \
    --root-user-action=ignore --no-index --find-links "$STRIPEBENCH_WHEELHOUSE" \
    --target "$target" -r requirements.txt
  # Our outbound TLS goes through a proxy whose CA is in $SSL_CERT_FILE when set; the SDK
  # pins its own CA bundle file, so that file must hold the machine's bundle.
  if [ -n "${SSL_CERT_FILE:-}" ] && [ -f "$target/stripe/data/ca-certificates.crt" ]; then
    cp "$SSL_CERT_FILE" "$target/stripe/data/ca-certificates.crt"
  fi
  touch "$target/.complete"
fi
ln -sfn "$digest" .deps/current
