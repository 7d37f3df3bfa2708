#!/usr/bin/env bash
# Launchpad's PostgreSQL (Debian's packages): its cluster in db/data, reached only through
# the Unix socket in db/run/ (no TCP). It runs as an unprivileged user (PostgreSQL refuses
# to run as root), so db/ belongs to that user.
set -euo pipefail
cd "$(dirname "$0")"
bin="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)"
mkdir -p run
if [ ! -f data/PG_VERSION ]; then
  "$bin/initdb" -D data -U launchpad -A trust -E UTF8 --no-sync >/dev/null
fi
# A stopped sandbox leaves these behind; nothing else can be using this cluster now.
rm -f data/postmaster.pid run/.s.PGSQL.*
# fsync=off: a killed server loses nothing (the kernel keeps its writes); only a crash of
# the machine could, and a trial does not outlive one.
exec "$bin/postgres" -D data -k "$PWD/run" -c listen_addresses= -c fsync=off \
  -c dynamic_shared_memory_type=mmap -c max_connections=30 -c shared_buffers=32MB
