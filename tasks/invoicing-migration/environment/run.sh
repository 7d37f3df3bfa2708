#!/usr/bin/env bash
# Starts the booking server on $PORT. Its npm packages are package.json's, installed
# offline by install.sh.
set -euo pipefail
cd "$(dirname "$0")"
bash install.sh
exec node server.js
