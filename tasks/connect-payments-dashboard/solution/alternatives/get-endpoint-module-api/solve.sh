#!/usr/bin/env bash
# Alternative: a GET endpoint on the module-level API, the page's script in static/.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
work="${STRIPEBENCH_WORKDIR:-$PWD}"
cp "$here/app/templates/payments.html" "$work/templates/payments.html"
cp "$here/app/static/payments.js" "$work/static/payments.js"
exec "${PYTHON:-python}" "$here/patch_get.py" "$work/app.py"
