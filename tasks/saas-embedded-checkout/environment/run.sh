#!/usr/bin/env bash
# Starts Launchpad on $PORT (the `app` service): waits for its database (the `db`
# service), creates it on first start, installs packages when package.json changed,
# applies the migrations, then serves the app with `next dev` (it reloads code as it
# changes; `npm run build && npm start` serves a production build instead).
set -euo pipefail
cd "$(dirname "$0")"
source db/env.sh
export NEXT_TELEMETRY_DISABLED=1
export PORT="${PORT:-3000}"
export BASE_URL="${BASE_URL:-http://127.0.0.1:$PORT}"
for _ in $(seq 1 300); do
  "$PG_BIN/pg_isready" -q && break
  sleep 0.1
done
"$PG_BIN/psql" -qtA -d postgres -c "select 1 from pg_database where datname = 'launchpad'" |
  grep -q 1 || "$PG_BIN/createdb" launchpad
bash scripts/install.sh
node lib/db/migrate.mjs
exec node_modules/.bin/next dev --port "$PORT" --hostname 127.0.0.1
