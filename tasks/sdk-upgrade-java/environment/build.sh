#!/usr/bin/env bash
# Builds the services (one Maven project) offline from the Maven repository in
# $STRIPEBENCH_M2 (there is no package registry here): classes in target/classes, the
# dependencies' jars in target/lib. Unchanged sources and pom.xml build nothing, and a
# build that failed fails again at once (its log in target/build.log) until they change.
set -euo pipefail
cd "$(dirname "$0")"
: "${STRIPEBENCH_M2:?the offline Maven repository is not configured}"
exec 9<pom.xml
flock 9  # the three services start at once: one builds, the others wait for it
digest() { find pom.xml src -type f -print0 | sort -z | xargs -0 cat | sha256sum | cut -c1-16; }
code="$(digest)"
[ "$(cat target/.built 2>/dev/null)" = "$code" ] && exit 0
if [ "$(cat target/.failed 2>/dev/null)" = "$code" ]; then
  cat target/build.log
  echo "build.sh: the last build of this code failed (above); change it to build again" >&2
  exit 1
fi
# Maven writes to its local repository, and the shared one is read-only: build against a
# private copy of it.
repo="$(mktemp -d)"
trap 'rm -rf "$repo"' EXIT
cp -R "$STRIPEBENCH_M2/." "$repo/"
rm -rf target/lib target/.built target/.failed
mkdir -p target
if ! mvn -o -B -q -Dstyle.color=never -Dmaven.repo.local="$repo" compile \
    dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory=target/lib \
    > target/build.log 2>&1; then
  cat target/build.log
  echo "$code" > target/.failed
  exit 1
fi
echo "$code" > target/.built
