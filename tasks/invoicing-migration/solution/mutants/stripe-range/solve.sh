#!/usr/bin/env bash
# Oracle: the catalog and an invoice for every booking (run twice: the second run
# changes nothing; it is package.json's migrate script), and the server's purchases
# through invoices.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
work="${STRIPEBENCH_WORKDIR:-$PWD}"
cp "$here/server.js" "$here/migrate_invoices.js" "$work/"
cd "$work"
npm pkg set scripts.migrate="node migrate_invoices.js"
npm pkg set dependencies.stripe="^18.5.0"
bash install.sh
npm run migrate
npm run migrate
