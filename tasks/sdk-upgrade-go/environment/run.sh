#!/usr/bin/env bash
# Builds and starts one service on $PORT: bash run.sh payments|invoices|subscriptions
# It builds services/<service> offline (goenv.sh) into .go/bin/<service>, one build at a
# time (the three services share the build cache), and runs it.
set -euo pipefail
cd "$(dirname "$0")"
case "${1:-}" in
  payments|invoices|subscriptions) ;;
  *) echo "usage: bash run.sh payments|invoices|subscriptions" >&2; exit 2 ;;
esac
. ./goenv.sh
mkdir -p .go/bin
exec 9>.go/build.lock
flock 9
go build -o ".go/bin/$1" "./services/$1"
exec 9>&-
exec ".go/bin/$1"
