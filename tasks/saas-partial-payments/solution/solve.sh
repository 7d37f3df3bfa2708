#!/usr/bin/env bash
# Oracle: Launchpad subscribes without a trial, the first invoice paid by two hosted
# Checkout payments of half each, attached to it; then sign up and subscribe to Base in
# Chromium through the running app, and submit the subscription id.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
work="${STRIPEBENCH_WORKDIR:-$PWD}"
cp -r "$here/app/." "$work/"
exec "${PYTHON:-python}" "$here/subscribe.py" "$work"
