#!/usr/bin/env bash
# Oracle: an account-session endpoint on the platform's server and the Payments page with
# the Connect Payments component (dispute management on, refund management off).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
work="${STRIPEBENCH_WORKDIR:-$PWD}"
cp "$here/app/templates/payments.html" "$work/templates/payments.html"
exec "${PYTHON:-python}" "$here/patch_app.py" "$work/app.py"
