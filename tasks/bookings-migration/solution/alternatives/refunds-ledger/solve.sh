#!/usr/bin/env bash
# Alternative (refunds ledger): the finished server and the CSV migration (run once; it is safe to run again).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
work="${STRIPEBENCH_WORKDIR:-$PWD}"
cp "$here/server.js" "$here/migrate.js" "$work/"
cd "$work"
bash install.sh
node migrate.js
node migrate.js
