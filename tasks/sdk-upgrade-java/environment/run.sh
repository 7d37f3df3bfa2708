#!/usr/bin/env bash
# Starts one service on $PORT: bash run.sh payments|invoices|subscriptions
# build.sh builds the Maven project (offline) first when its code changed.
set -euo pipefail
cd "$(dirname "$0")"
case "${1:-}" in
  payments|invoices|subscriptions) ;;
  *) echo "usage: bash run.sh payments|invoices|subscriptions" >&2; exit 2 ;;
esac
bash build.sh
exec java -cp "target/classes:target/lib/*" "backoffice.${1^}"
