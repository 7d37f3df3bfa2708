#!/usr/bin/env bash
# Oracle: stripe-python 16 in requirements.txt, the three services rewritten for it and
# the current API version, then reinstalled offline (the services restart for grading).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
work="${STRIPEBENCH_WORKDIR:-$PWD}"
cp "$here/services/"*.py "$work/services/"
printf 'stripe==16.1.0\n' > "$work/requirements.txt"
bash "$work/install.sh"
mkdir -p "$work/tools"
cp "$here/tools/record_json.py" "$work/tools/"
cp "$here/UPGRADE-NOTES.md" "$work/"
