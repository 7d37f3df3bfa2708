#!/usr/bin/env bash
# psql on the app's database: bash db/psql.sh [-c "select * from teams"]
source "$(dirname "$0")/env.sh"
exec "$PG_BIN/psql" "$@"
