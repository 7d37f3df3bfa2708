#!/usr/bin/env bash
# Oracle: the reference migration, run from the workdir (it is safe to run again).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
work="${STRIPEBENCH_WORKDIR:-$PWD}"
cp "$here/migrate.py" "$work/migrate.py"
cd "$work"
python migrate.py C1001 C1002 C1003 C1004 C1005 C1006 C1007 C1008
