#!/usr/bin/env bash
# Alternative: webhooks in their own module, every event type, a transaction as the lock.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
work="${STRIPEBENCH_WORKDIR:-$PWD}"
cp "$here/app.py" "$here/webhooks.py" "$work/"
exec "${PYTHON:-python}" "$here/register.py" "$work"
