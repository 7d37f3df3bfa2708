# Sourced by db/start.sh, run.sh and db/psql.sh: where the app's PostgreSQL is.
# Its Unix socket lives in a short directory under /tmp named after this checkout: a
# socket's path may not exceed 107 bytes, and trial directories run deeper than that.
LAUNCHPAD_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
PG_BIN="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)"
PGHOST="/tmp/launchpad-$(printf %s "$LAUNCHPAD_ROOT" | sha256sum | cut -c1-12)"
PGUSER=launchpad
PGDATABASE=launchpad
DATABASE_URL="postgresql://launchpad@localhost/launchpad?host=$PGHOST"
export PGHOST PGUSER PGDATABASE DATABASE_URL
