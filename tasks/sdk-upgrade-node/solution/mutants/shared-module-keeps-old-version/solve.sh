#!/usr/bin/env bash
# Oracle: stripe-node 23.1.0 in package.json (and its lockfile), the three services
# rewritten for it and the current API version, then reinstalled offline (the services
# restart for grading).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
work="${STRIPEBENCH_WORKDIR:-$PWD}"
cp "$here/services/"*.js "$work/services/"
mkdir -p "$work/services/lib"
cp "$here/services/lib/stripe-client.js" "$work/services/lib/"
cp "$here/package.json" "$here/package-lock.json" "$work/"
bash "$work/install.sh"
