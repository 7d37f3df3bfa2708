#!/usr/bin/env bash
# Oracle: the catalog and an invoice for every booking (run twice: the second run
# changes nothing; it is package.json's migrate script), and the server's purchases
# through invoices.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
work="${STRIPEBENCH_WORKDIR:-$PWD}"
mkdir -p "$work/scripts"
cp "$here/server.js" "$work/"
cp "$here/backfill.js" "$work/scripts/backfill-invoices.js"
cd "$work"
npm pkg set scripts.migrate="node scripts/backfill-invoices.js"
bash install.sh
npm run migrate
npm run migrate
