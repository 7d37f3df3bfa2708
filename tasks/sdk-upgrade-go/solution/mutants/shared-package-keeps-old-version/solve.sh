#!/usr/bin/env bash
# Oracle: go.mod (and go.sum) on stripe-go v85 only, the three services rewritten for it
# and its API version, then built offline once (the services restart for grading).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
work="${STRIPEBENCH_WORKDIR:-$PWD}"
for service in payments invoices subscriptions; do
  cp "$here/services/$service/main.go" "$work/services/$service/main.go"
done
mkdir -p "$work/internal/stripeclient"
cp "$here/internal/stripeclient/client.go" "$work/internal/stripeclient/"
cp "$here/go.mod" "$here/go.sum" "$work/"
cd "$work"
. ./goenv.sh
go build -o .go/bin/ ./services/...
