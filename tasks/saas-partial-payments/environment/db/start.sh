#!/usr/bin/env bash
# Launchpad's PostgreSQL (Debian's packages): its cluster in db/data, reached only through
# a Unix socket (no TCP; where it is: db/env.sh). PostgreSQL refuses to run as root: the
# task declares this service unprivileged.
set -euo pipefail
cd "$(dirname "$0")"
source ./env.sh
mkdir -p "$PGHOST"
if [ ! -f data/PG_VERSION ]; then
  "$PG_BIN/initdb" -D data -U launchpad -A trust -E UTF8 --no-sync >/dev/null
fi
# A stopped sandbox leaves this behind; nothing else can be using this cluster now.
rm -f data/postmaster.pid "$PGHOST"/.s.PGSQL.*
# fsync=off: a killed server loses nothing (the kernel keeps its writes); only a crash of
# the machine could, and a trial does not outlive one.
exec "$PG_BIN/postgres" -D data -k "$PGHOST" -c listen_addresses= -c fsync=off \
  -c dynamic_shared_memory_type=mmap -c max_connections=30 -c shared_buffers=32MB
