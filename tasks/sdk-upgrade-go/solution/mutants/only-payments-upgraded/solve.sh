#!/usr/bin/env bash
# Mutant: only payments moved to stripe-go v85; go.mod keeps v72 for the other two.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
work="${STRIPEBENCH_WORKDIR:-$PWD}"
cd "$work"
. ./goenv.sh
go get github.com/stripe/stripe-go/v85@v85.0.0
cp "$here/services/payments/main.go" services/payments/main.go
go mod tidy
go build -o .go/bin/ ./services/...
