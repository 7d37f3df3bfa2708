#!/usr/bin/env bash
# Oracle: migrate the shop to embedded Checkout, then buy one of each product through it
# in Chromium with the TRAIL10 promotion code, and submit the Checkout Session id.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
work="${STRIPEBENCH_WORKDIR:-$PWD}"
cp -r "$here/app/." "$work/"
exec "${PYTHON:-python}" "$here/purchase.py" "$work"
