#!/usr/bin/env bash
# Oracle: write the exact create parameters of every challenge page to submission.json.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
"${PYTHON:-python}" "$here/solve.py"
"${PYTHON:-python}" "$here/edit.py"
