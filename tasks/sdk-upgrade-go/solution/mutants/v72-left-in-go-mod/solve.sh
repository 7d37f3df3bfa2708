#!/usr/bin/env bash
# Mutant: v85 added with go get beside v72, every service rewritten, go.mod never tidied.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
work="${STRIPEBENCH_WORKDIR:-$PWD}"
cd "$work"
. ./goenv.sh
go get github.com/stripe/stripe-go/v85@v85.0.0
for service in payments invoices subscriptions; do
  cp "$here/services/$service/main.go" "services/$service/main.go"
done
go build -o .go/bin/ ./services/...
