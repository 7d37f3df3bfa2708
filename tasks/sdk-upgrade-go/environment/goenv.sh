# Go's offline settings for this directory; source it first: `. ./goenv.sh`, then
# `go build ./...`, `go get github.com/stripe/stripe-go/vNN@vNN.x.y` etc. work offline.
# Modules come only from the read-only module cache in $STRIPEBENCH_GOMODCACHE (there is
# no module proxy here); go.sum entries come from that cache (no checksum database).
# Builds are cached in .go/cache (unless GOCACHE is set), binaries go to .go/bin.
: "${STRIPEBENCH_GOMODCACHE:?the offline Go module cache is not configured}"
export GOMODCACHE="$STRIPEBENCH_GOMODCACHE" GOPROXY=off GOSUMDB=off GOFLAGS=-mod=mod \
  GOTOOLCHAIN=local GOCACHE="${GOCACHE:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/.go/cache}"
