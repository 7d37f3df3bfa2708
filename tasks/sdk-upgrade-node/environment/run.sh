#!/usr/bin/env bash
# Starts one service on $PORT: bash run.sh payments|invoices|subscriptions
# Its npm packages are package.json's, installed offline by install.sh.
set -euo pipefail
cd "$(dirname "$0")"
case "${1:-}" in
  payments|invoices|subscriptions) ;;
  *) echo "usage: bash run.sh payments|invoices|subscriptions" >&2; exit 2 ;;
esac
bash install.sh
exec node "services/$1.js"
