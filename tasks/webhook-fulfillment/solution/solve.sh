#!/usr/bin/env bash
# Oracle: fulfil from verified webhooks exactly once, and register the endpoint.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
work="${STRIPEBENCH_WORKDIR:-$PWD}"
cp "$here/app.py" "$work/app.py"
exec "${PYTHON:-python}" "$here/register.py" "$work"
