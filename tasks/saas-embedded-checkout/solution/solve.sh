#!/usr/bin/env bash
# Oracle: move Launchpad's subscriptions to embedded Checkout (@stripe/react-stripe-js),
# create the TAKE20 promotion code, then sign up and subscribe to Base with it in
# Chromium through the running app, and submit the Checkout Session id.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
work="${STRIPEBENCH_WORKDIR:-$PWD}"
cp -r "$here/app/." "$work/"
(cd "$work" && bash scripts/install.sh)
exec "${PYTHON:-python}" "$here/subscribe.py" "$work"
