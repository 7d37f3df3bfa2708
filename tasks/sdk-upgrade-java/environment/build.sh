#!/usr/bin/env bash
# Builds the services (one Maven project) offline from the Maven repository in
# $STRIPEBENCH_M2 (there is no package registry here): classes in target/classes, the
# dependencies' jars in target/lib. Unchanged sources and pom.xml build nothing.
set -euo pipefail
cd "$(dirname "$0")"
: "${STRIPEBENCH_M2:?the offline Maven repository is not configured}"
exec 9<pom.xml
flock 9  # the three services start at once: one builds, the others wait for it
digest() { find pom.xml src -type f -print0 | sort -z | xargs -0 cat | sha256sum | cut -c1-16; }
if [ "$(cat target/.built 2>/dev/null)" != "$(digest)" ]; then
  # Maven writes to its local repository, and the shared one is read-only: build against
  # a private copy of it.
  repo="$(mktemp -d)"
  trap 'rm -rf "$repo"' EXIT
  cp -R "$STRIPEBENCH_M2/." "$repo/"
  rm -rf target/lib
  mvn -o -B -q -Dmaven.repo.local="$repo" compile dependency:copy-dependencies \
    -DincludeScope=runtime -DoutputDirectory=target/lib
  digest > target/.built
fi
