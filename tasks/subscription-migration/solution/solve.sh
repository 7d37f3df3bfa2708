#!/usr/bin/env bash
# Oracle: the reference migration, run from the workdir (it is safe to run again).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
work="${STRIPEBENCH_WORKDIR:-$PWD}"
cp "$here/migrate.py" "$work/migrate.py"
cd "$work"
python migrate.py
